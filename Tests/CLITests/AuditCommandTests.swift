import Foundation
import HEIF
import HeifCodec
import TestSupport
import Testing

@testable import ReadbackCLI

/// A small real HEIC (libheif-encoded, with an nclx), written to `dir/name`.
func writeHEIC(_ dir: URL, _ name: String, truncateBy: Int = 0) throws -> URL {
    let w = 64
    let h = 48
    var s = HeifEncodeSettings()
    s.preset = "ultrafast"
    let bytes = try HeifEncoder.encode(
        .rgb8(width: w, height: h, samples: (0..<(w * h * 3)).map { UInt8($0 % 251) }), settings: s)
    let u = dir.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes.dropLast(truncateBy)).write(to: u)
    return u
}

@Test func auditOutputsOnlyGatesOnErrorsAndWritesAllReports() throws {
    let dir = Repo.temporaryDirectory("cli-audit")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "good.heic")
    _ = try writeHEIC(out, "sub/cut.heic", truncateBy: 100)
    let rep = dir.appendingPathComponent("rep")
    let db = dir.appendingPathComponent("h.db").path
    let r = runCLI(["audit", "--outputs", out.path, "--report", rep.path, "--history-db", db, "--jobs", "2"])
    #expect(r.code == .findings)
    #expect(r.out.contains("sub/cut.heic: FAIL"))
    #expect(r.out.contains("error container.truncated"))
    #expect(r.out.contains("[1/2]") || r.out.contains("[2/2]"))
    #expect(
        r.out.hasSuffix("audited 2 file(s): 1 passed, 1 failed (gate: error); 2 error, 1 info\n")
            || r.out.contains("audited 2 file(s): 1 passed, 1 failed (gate: error)"))
    for f in ["report.json", "report.html", "junit.xml"] {
        #expect(FileManager.default.fileExists(atPath: rep.appendingPathComponent(f).path), "\(f) missing")
    }
    // Quiet: no progress lines, the failing file and the summary only.
    let q = runCLI(["audit", "--outputs", out.path, "--no-history", "--quiet", "--no-decode"])
    #expect(!q.out.contains("good.heic"))
    #expect(q.out.contains("sub/cut.heic: FAIL"))
    // Only the good file: clean.
    let good = dir.appendingPathComponent("goodonly")
    _ = try writeHEIC(good, "a.heic")
    #expect(runCLI(["audit", "--outputs", good.path, "--no-history"]).code == .clean)
}

@Test func auditReadsLinksToFilesAndSaysWhyAFolderHadNothing() throws {
    let dir = Repo.temporaryDirectory("cli-links")
    defer { try? FileManager.default.removeItem(at: dir) }
    let archive = dir.appendingPathComponent("archive")
    let good = try writeHEIC(archive, "good.heic")
    let cut = try writeHEIC(archive, "cut.heic", truncateBy: 100)
    // A folder of links into the archive (a curated selection): each linked file is audited under the link's name.
    let links = dir.appendingPathComponent("links")
    try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
    let fm = FileManager.default
    try fm.createSymbolicLink(atPath: links.appendingPathComponent("a.heic").path, withDestinationPath: good.path)
    try fm.createSymbolicLink(atPath: links.appendingPathComponent("b.heic").path, withDestinationPath: cut.path)
    try fm.createSymbolicLink(
        atPath: links.appendingPathComponent("gone.heic").path, withDestinationPath: "/nonexistent")
    try fm.createSymbolicLink(atPath: links.appendingPathComponent("loop").path, withDestinationPath: links.path)
    let r = runCLI(["audit", "--outputs", links.path, "--no-history", "--no-decode"])
    #expect(r.code == .findings)
    #expect(r.out.contains("b.heic: FAIL"))
    #expect(r.out.contains("audited 2 file(s): 1 passed, 1 failed"), "\(r.out)")
    // A pair given through links is judged by the files they point to (not the links' own mode, owner or times).
    let src = try writeHEIC(archive, "src.heic")
    try fm.createSymbolicLink(atPath: links.appendingPathComponent("src-link.heic").path, withDestinationPath: src.path)
    let pair = runCLI([
        "audit", links.appendingPathComponent("src-link.heic").path, links.appendingPathComponent("a.heic").path,
        "--no-history",
    ])
    #expect(pair.code == .clean, "\(pair.out)")
    #expect(!pair.out.contains("file.mode"))
    // A folder with nothing to audit says why on stderr, instead of passing "0 files" in silence.
    let only = dir.appendingPathComponent("onlylinks")
    try fm.createDirectory(at: only, withIntermediateDirectories: true)
    try fm.createSymbolicLink(atPath: only.appendingPathComponent("sub").path, withDestinationPath: archive.path)
    let e = runCLI(["audit", "--outputs", only.path, "--no-history"])
    #expect(e.code == .clean)
    #expect(e.err.contains("holds no output to audit"), "\(e.err)")
    #expect(e.err.contains("1 entry left out (links to folders or to nothing"), "\(e.err)")
    let jpegs = dir.appendingPathComponent("jpegs")
    try fm.createDirectory(at: jpegs, withIntermediateDirectories: true)
    try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: jpegs.appendingPathComponent("x.jpg"))
    let j = runCLI(["audit", "--outputs", jpegs.path, "--no-history"])
    #expect(j.err.contains("1 other file(s), e.g. x.jpg"), "\(j.err)")
    #expect(j.err.contains("--formats chooses other outputs"), "\(j.err)")
}

@Test func auditOfOneOutputAloneJudgesItAsOutputsDoes() throws {
    let dir = Repo.temporaryDirectory("cli-one")
    defer { try? FileManager.default.removeItem(at: dir) }
    let good = try writeHEIC(dir, "good.heic")
    let cut = try writeHEIC(dir, "cut.heic", truncateBy: 100)
    let g = runCLI(["audit", good.path, "--no-history"])
    #expect(g.code == .clean, "\(g.out)\(g.err)")
    #expect(g.out.contains("audited 1 file(s): 1 passed"))
    let rep = dir.appendingPathComponent("rep")
    let c = runCLI(["audit", cut.path, "--no-history", "--report", rep.path])
    #expect(c.code == .findings)
    #expect(c.out.contains("error container.truncated"))
    let json = try String(contentsOf: rep.appendingPathComponent("report.json"), encoding: .utf8)
    #expect(json.contains("\"mode\":\"output\"") || json.contains("\"mode\" : \"output\""))
    // A RAW alone is a source: it needs its output.
    let raw = runCLI(["audit", dir.appendingPathComponent("x.dng").path])
    #expect(raw.code == .usageOrIO)
    #expect(raw.err.contains("a source needs its output: SRC OUT"))
    #expect(runCLI(["audit", dir.path + "/", "--no-history"]).code == .usageOrIO)
}

@Test func auditBaselineFailsOnlyOnRegressions() throws {
    let dir = Repo.temporaryDirectory("cli-baseline")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "cut.heic", truncateBy: 100)
    let first = dir.appendingPathComponent("r1")
    #expect(runCLI(["audit", "--outputs", out.path, "--no-history", "--report", first.path]).code == .findings)
    // Same files against that baseline: the error is old, so the gate passes.
    let again = runCLI([
        "audit", "--outputs", out.path, "--no-history", "--baseline", first.appendingPathComponent("report.json").path,
    ])
    #expect(again.code == .clean)
    #expect(again.out.contains("0 regression(s), 0 improvement(s)"))
    // A new broken file is a regression.
    _ = try writeHEIC(out, "new.heic", truncateBy: 50)
    let worse = runCLI([
        "audit", "--outputs", out.path, "--no-history", "--baseline", first.appendingPathComponent("report.json").path,
    ])
    #expect(worse.code == .findings)
    #expect(worse.out.contains("regression: new.heic: new-error container.truncated"))
}

@Test func auditPairsAndDirectoriesReportMissingOutputs() throws {
    let dir = Repo.temporaryDirectory("cli-pairs")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(src, "a.HEIC")
    _ = try writeHEIC(src, "b.heic")
    _ = try writeHEIC(out, "a.heic")
    _ = try writeHEIC(out, "extra.heic")
    let r = runCLI(["audit", "--sources", src.path, "--outputs", out.path, "--no-history", "--no-decode"])
    #expect(r.code == .findings)
    #expect(r.out.contains("output without source: extra.heic"))
    #expect(r.out.contains("b.heic: FAIL"))
    #expect(r.out.contains("error output.missing"))
    // --fail-on info also fails the clean pair only if it has info findings; a pairs file with the good pair passes.
    try "src/a.HEIC\tout/a.heic\n".write(to: dir.appendingPathComponent("pairs.tsv"), atomically: true, encoding: .utf8)
    #expect(runCLI(["audit", "--pairs", dir.appendingPathComponent("pairs.tsv").path, "--no-history"]).code == .clean)
    // One explicit pair.
    let one = runCLI([
        "audit", src.appendingPathComponent("a.HEIC").path, out.appendingPathComponent("a.heic").path, "--no-history",
    ])
    #expect(one.code == .clean)
}

@Test(arguments: [
    (
        ["audit"],
        "readback audit: nothing to audit: give SRC OUT, --sources DIR --outputs DIR, --pairs FILE or --outputs DIR"
    ),
    (["audit", "x.heic"], "readback audit: x.heic: no such file"),
    (
        ["audit", "x.cr2"],
        "readback audit: a single file is audited alone only when it is an output (avif, heic, heif, hif, jpeg, jpg);"
            + " a source needs its output: SRC OUT"
    ),
    (["audit", "--sources", "s"], "readback audit: --sources needs --outputs"),
    (
        ["audit", "--outputs", "o", "--fail-on", "fatal"],
        "readback audit: --fail-on takes one of error|warning|known-loss|info, not 'fatal'"
    ),
    (
        ["audit", "a", "b", "--outputs", "o"],
        "readback audit: give either SRC OUT or --sources/--outputs/--pairs, not both"
    ),
    (
        ["audit", "--outputs", "o", "--no-history", "--history-db", "x"],
        "readback audit: --no-history and --history-db contradict each other"
    ),
])
func auditUsageErrorsAreOneLineAndExit2(_ args: [String], _ first: String) {
    let r = runCLI(args)
    #expect(r.code == .usageOrIO)
    #expect(r.err.split(separator: "\n").first.map(String.init) == first)
}

@Test func auditIOErrorsNameTheFile() throws {
    let dir = Repo.temporaryDirectory("cli-io")
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = runCLI(["audit", "--outputs", dir.appendingPathComponent("nope").path, "--no-history"])
    #expect(r.code == .usageOrIO)
    #expect(r.err == "readback audit: \(dir.appendingPathComponent("nope").path): not a folder\n")
    let bad = dir.appendingPathComponent("p.policy")
    try "severity x.y loud\n".write(to: bad, atomically: true, encoding: .utf8)
    let p = runCLI(["audit", "--outputs", dir.path, "--no-history", "--policy", bad.path])
    #expect(p.code == .usageOrIO)
    #expect(
        p.err == "readback audit: \(bad.path):1: unknown severity 'loud' (error, warning, known-loss, info or off)\n")
}

@Test func historyShowsRunsAndWhatChanged() throws {
    let dir = Repo.temporaryDirectory("cli-history")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("state/h.db").path
    #expect(runCLI(["history", "--history-db", db]).out == "no audit runs recorded yet (\(db) does not exist)\n")
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "a.heic")
    _ = runCLI(["audit", "--outputs", out.path, "--history-db", db, "--no-decode"])
    _ = try writeHEIC(out, "b.heic", truncateBy: 100)
    _ = runCLI(["audit", "--outputs", out.path, "--history-db", db, "--no-decode"])
    let r = runCLI(["history", "--history-db", db])
    #expect(r.code == .clean)
    let lines = r.out.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("run  started") == true)
    #expect(lines.count >= 5)
    #expect(lines[1].hasPrefix("2    "))
    #expect(lines[2].hasPrefix("1    "))
    // b.heic's findings are new: libheif's 64×48 file (coded 64×64, cropped by a clap before its ispe) warns
    // conformance.ispe-mismatch and container.property.transform-before-ispe, and it is cut.
    #expect(r.out.contains("changes from run 1 to run 2: 3 new finding(s), 0 fixed"))
    #expect(r.out.contains("  new    error container.truncated  b.heic"))
    // Respects XDG_STATE_HOME when no --history-db is given.
    let xdg = runCLI(["history"], env: ["XDG_STATE_HOME": dir.appendingPathComponent("xdg").path])
    #expect(xdg.out.contains(dir.appendingPathComponent("xdg/readback/history.db").path))
}

@Test func auditProgressIsOneUpdatingLineOnATerminal() throws {
    let dir = Repo.temporaryDirectory("cli-tty")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "a.heic")
    _ = try writeHEIC(out, "b.heic")
    let r = runCLI(["audit", "--outputs", out.path, "--no-history", "--no-decode", "--jobs", "1"], tty: true)
    #expect(r.code == .clean)
    #expect(r.out.contains("\r\u{1B}[K[1/2] a.heic"))
    #expect(r.out.contains("\r\u{1B}[K[2/2] b.heic"))
    #expect(!r.out.contains("[1/2] a.heic: pass"))
    // The progress line is cleared before the summary.
    #expect(r.out.contains("\r\u{1B}[Kaudited 2 file(s)"))
    // NO_COLOR on a terminal: no escape codes in the failure lines, progress still redrawn.
    _ = try writeHEIC(out, "c.heic", truncateBy: 80)
    let nc = runCLI(["audit", "--outputs", out.path, "--no-history", "--no-decode"], env: ["NO_COLOR": "1"], tty: true)
    #expect(nc.out.contains("c.heic: FAIL\n"))
}

@Test func failOnAndPolicyMoveTheGate() throws {
    let dir = Repo.temporaryDirectory("cli-gate")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "cut.heic", truncateBy: 100)
    // An error by default…
    #expect(runCLI(["audit", "--outputs", out.path, "--no-history", "--no-decode"]).code == .findings)
    // …a warning under a policy, which passes the default gate and fails --fail-on warning.
    let policy = dir.appendingPathComponent("lenient.policy")
    try "severity container.* warning\n".write(to: policy, atomically: true, encoding: .utf8)
    let lenient = runCLI(["audit", "--outputs", out.path, "--no-history", "--no-decode", "--policy", policy.path])
    #expect(lenient.code == .clean)
    #expect(lenient.out.contains("warning"))
    let strict = runCLI([
        "audit", "--outputs", out.path, "--no-history", "--no-decode", "--policy", policy.path, "--fail-on", "warning",
    ])
    #expect(strict.code == .findings)
    // Turned off entirely: no finding at all (libheif's 64×48 file also has conformance.ispe-mismatch).
    try "severity container.* off\nseverity conformance.* off\n".write(to: policy, atomically: true, encoding: .utf8)
    let off = runCLI([
        "audit", "--outputs", out.path, "--no-history", "--no-decode", "--policy", policy.path, "--fail-on", "info",
    ])
    #expect(off.code == .clean)
    #expect(off.out.contains("no findings"))
}

/// A JPEG or AVIF share named alone is audited as `--outputs DIR --formats jpeg,avif` audits it: the same findings.
@Test func aJPEGOrAVIFNamedAloneIsAuditedAsAnOutput() throws {
    let dir = Repo.temporaryDirectory("audit-one-share")
    defer { try? FileManager.default.removeItem(at: dir) }
    let jpeg = Repo.root.appendingPathComponent("Corpus/jpeg/ultrahdr.jpg")
    let copy = dir.appendingPathComponent("ultrahdr.jpg")
    try FileManager.default.copyItem(at: jpeg, to: copy)
    func codes(_ args: [String]) throws -> [String] {
        let report = dir.appendingPathComponent("report-\(args.count)")
        let r = runCLI(args + ["--report", report.path, "--no-thumbnails", "--no-history"])
        #expect(r.code != .usageOrIO, "\(r.err)")
        let data = try Data(contentsOf: report.appendingPathComponent("report.json"))
        let obj = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(obj["files"] as? [[String: Any]])
        #expect(files.count == 1, "\(r.out)")
        return (files.first?["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }.sorted()
    }
    let alone = try codes(["audit", copy.path])
    let folder = try codes(["audit", "--outputs", dir.path, "--formats", "jpeg"])
    #expect(alone == folder, "alone \(alone), in a folder \(folder)")
    #expect(!alone.isEmpty, "the Ultra HDR file's findings are its gain map's (a known warning)")
    // --formats still narrows what a file alone may be.
    let narrowed = runCLI(["audit", copy.path, "--formats", "heic", "--no-history"])
    #expect(narrowed.code == .usageOrIO && narrowed.err.contains("(heic, heif, hif)"), "\(narrowed.err)")
}

/// Two folders given as SRC OUT are not audited as one unreadable pair: the error says how to pair folders.
@Test func twoFoldersAsSrcOutIsAUsageErrorNamingTheFolderOptions() throws {
    let dir = Repo.temporaryDirectory("cli-audit-folders")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (src, out) = (dir.appendingPathComponent("raw"), dir.appendingPathComponent("heic"))
    _ = try writeHEIC(out, "a.heic")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    let r = runCLI(["audit", src.path, out.path])
    #expect(r.code == .usageOrIO, "\(r.out)\(r.err)")
    #expect(r.err.contains("are folders: audit them with --sources \(src.path) --outputs \(out.path)"), "\(r.err)")
    let one = runCLI(["audit", src.path, out.appendingPathComponent("a.heic").path])
    #expect(one.code == .usageOrIO, "\(one.out)\(one.err)")
    #expect(one.err.contains("\(src.path) is a folder"), "\(one.err)")
}
