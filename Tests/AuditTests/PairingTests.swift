import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

private func touch(_ root: URL, _ rel: String) throws {
    let u = root.appendingPathComponent(rel)
    try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("x".utf8).write(to: u)
}

@Test func directoriesPairByRelativePathAndStemCaseInsensitiveExtensions() throws {
    let root = Repo.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let src = root.appendingPathComponent("src")
    let out = root.appendingPathComponent("out")
    for s in ["a/IMG_1.CR2", "a/IMG_2.dng", "b/IMG_1.NEF", "c/only.arw", ".hidden.dng"] { try touch(src, s) }
    for o in ["a/IMG_1.HEIC", "a/IMG_2.heic", "b/IMG_1.hif", "d/orphan.heic", "a/notes.txt"] { try touch(out, o) }
    let p = try Pairing.directories(sources: src, outputs: out)
    #expect(p.jobs.map(\.name) == ["a/IMG_1.HEIC", "a/IMG_2.heic", "b/IMG_1.hif", "c/only.arw"])
    #expect(p.jobs.map(\.sourceDisplay) == ["a/IMG_1.CR2", "a/IMG_2.dng", "b/IMG_1.NEF", "c/only.arw"])
    #expect(p.jobs[3].output == nil)
    #expect(p.unmatchedOutputs == ["d/orphan.heic"])
}

@Test func outputsOnlyListsHEIFFamilies() throws {
    let root = Repo.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    for o in ["x.heic", "y.AVIF", "z/w.HIF", "readme.md"] { try touch(root, o) }
    let p = try Pairing.outputsOnly(root)
    #expect(p.jobs.map(\.name) == ["x.heic", "y.AVIF", "z/w.HIF"])
    #expect(p.jobs.allSatisfy { $0.source == nil })
    #expect(throws: Pairing.Failure.self) { try Pairing.outputsOnly(root.appendingPathComponent("nope")) }
}

@Test func linksToFilesAreListedWhereTheyAreAndLinksToFoldersOrNothingAreLeftOut() throws {
    let root = Repo.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let fm = FileManager.default
    try touch(root, "archive/deep/p.heic")
    let sel = root.appendingPathComponent("sel")
    try touch(sel, "own.heic")
    try fm.createSymbolicLink(
        atPath: sel.appendingPathComponent("link.heic").path,
        withDestinationPath: root.appendingPathComponent("archive/deep/p.heic").path)
    try fm.createSymbolicLink(atPath: sel.appendingPathComponent("relative.heic").path, withDestinationPath: "own.heic")
    try fm.createSymbolicLink(atPath: sel.appendingPathComponent("broken.heic").path, withDestinationPath: "nope.heic")
    try fm.createSymbolicLink(atPath: sel.appendingPathComponent("up").path, withDestinationPath: root.path)
    let scan = try Pairing.scan(sel)
    #expect(scan.files == ["link.heic", "own.heic", "relative.heic"])
    #expect(scan.skipped == ["broken.heic", "up"])
    let p = try Pairing.outputsOnly(sel)
    #expect(p.jobs.map(\.name) == ["link.heic", "own.heic", "relative.heic"])
    #expect(p.jobs[0].output?.lastPathComponent == "link.heic")
}

@Test func pairsFileParsesTabsCommentsAndNamesBadLines() throws {
    let root = Repo.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    try touch(root, "o1.heic")
    let p = try Pairing.pairsFile(
        "# header\ns1.dng\to1.heic\n\n/abs/s2.dng\to2.heic\r\n", base: root, name: "pairs.tsv")
    #expect(p.jobs.count == 2)
    #expect(p.jobs[0].source == root.appendingPathComponent("s1.dng"))
    #expect(p.jobs[0].output == root.appendingPathComponent("o1.heic"))
    #expect(p.jobs[1].source?.path == "/abs/s2.dng")
    #expect(p.jobs[1].output == nil)
    #expect(throws: Pairing.Failure(message: "pairs.tsv:2: expected SOURCE<TAB>OUTPUT, got 'a b'")) {
        try Pairing.pairsFile("x\ty\na b\n", base: root, name: "pairs.tsv")
    }
}

@Test func missingOutputIsAFindingAndGatesTheRun() {
    let job = AuditJob(name: "IMG_9.dng", source: URL(fileURLWithPath: "/nonexistent/IMG_9.dng"), output: nil)
    let r = FileAuditor(options: AuditOptions(), decoders: .inProcess).audit(job)
    #expect(r.findings.map(\.code).contains(.outputMissing))
    #expect(r.findings.first { $0.code == .outputMissing }?.severity == .error)
    #expect(r.verdict(failOn: .error) == .fail)
}

@Test func runnerKeepsJobOrderAcrossWorkers() {
    let jobs = (0..<50).map { AuditJob(name: String(format: "%03d", $0), source: nil, output: nil) }
    final class Count: @unchecked Sendable {
        var n = 0
        let l = NSLock()
    }
    let c = Count()
    let results = AuditRunner.run(
        jobs, workers: 4, audit: { FileResult(name: $0.name) },
        progress: { done, total, _ in
            c.l.withLock { c.n = max(c.n, done) }
            _ = total
        })
    #expect(results.map(\.name) == jobs.map(\.name))
    #expect(c.n == 50)
}

@Test func baselineRegressionsAndImprovements() {
    let old = FixedReport.make()
    var new = old
    // File a: GPS restored, Make lost; file b: ISO gain map now incomplete; file d: truncation fixed, new error.
    new.files[0].metadata = [
        DiffRow(field: "IFD0:Make", status: .lost, source: "Canon", output: nil),
        DiffRow(field: "GPS:GPSLatitude", status: .kept, source: "48.8584", output: "48.8584"),
    ]
    new.files[1].gainMaps[1].data = .fail  // gainMaps sorted: apple, iso
    new.files[3].findings = [Finding(code: .decodePrimaryFailed, severity: .error, message: "x")]
    new.recomputeSummary()
    let b = Baseline.compare(old: old, current: new, path: "old.json")
    #expect(
        b.regressions == [
            .init(file: "a/IMG_0001.heic", kind: "field-lost", subject: "IFD0:Make"),
            .init(file: "b/IMG_0002.heic", kind: "gainmap-incomplete", subject: "iso"),
            .init(file: "d/broken.heic", kind: "new-error", subject: "decode.primary-failed"),
        ])
    #expect(
        b.improvements == [
            .init(file: "a/IMG_0001.heic", kind: "field-restored", subject: "GPS:GPSLatitude"),
            .init(file: "d/broken.heic", kind: "error-fixed", subject: "container.truncated"),
        ])
    // Against itself: nothing to report, the gate passes even though errors exist.
    var same = old
    same.baseline = Baseline.compare(old: old, current: old, path: "old.json")
    #expect(same.baseline?.regressions.isEmpty == true)
    #expect(!same.gateFails)
}

/// `convert . --out out` then `audit --sources . --outputs out`: the outputs inside the source folder are not sources
/// (each output was paired with itself missing its output).
@Test func anOutputFolderInsideTheSourceFolderIsNotReadAsSources() throws {
    let root = Repo.temporaryDirectory("pairing-nested")
    defer { try? FileManager.default.removeItem(at: root) }
    try touch(root, "a.dng")
    try touch(root, "out/a.heic")
    let p = try Pairing.directories(sources: root, outputs: root.appendingPathComponent("out"))
    #expect(p.jobs.map(\.name) == ["a.heic"], "\(p.jobs.map(\.name))")
    #expect(p.jobs.first?.sourceDisplay == "a.dng")
}
