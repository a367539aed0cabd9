import Foundation
import TestSupport
import Testing

@testable import ReadbackCLI

/// `sha256sum FILE`'s digest: an oracle independent of the code under test.
private func sha256sum(_ url: URL) throws -> String {
    let r = try Tool.run("/usr/bin/sha256sum", [url.path])
    return String(String(decoding: r.out, as: UTF8.self).prefix(while: { !$0.isWhitespace }))
}

/// Each file entry of `DIR/report.json` as name → sha256 (nil when the entry has none).
private func digests(_ reportDir: URL) throws -> [String: String?] {
    let data = try Data(contentsOf: reportDir.appendingPathComponent("report.json"))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let files = try #require(root["files"] as? [[String: Any]])
    var out: [String: String?] = [:]
    for f in files { out[try #require(f["name"] as? String)] = f["sha256"] as? String }
    return out
}

/// The default (`--hash sha256`) reports each output's digest, and it is the one `sha256sum` computes; the fast
/// mode's single read of each file feeds both the checks and the hash.
@Test func auditReportsEachOutputsSHA256AsSha256sumDoes() throws {
    let dir = Repo.temporaryDirectory("cli-hash-default")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    let a = try writeHEIC(out, "a.heic")
    let b = try writeHEIC(out, "sub/b.heic", truncateBy: 100)
    for (hash, rep) in [([String](), "r1"), (["--hash", "sha256"], "r2")] {
        let report = dir.appendingPathComponent(rep)
        let r = runCLI(["audit", "--outputs", out.path, "--no-decode", "--no-history", "--report", report.path] + hash)
        #expect(r.code == .findings, "\(r.out)\(r.err)")
        let d = try digests(report)
        #expect(d.count == 2)
        #expect(d["a.heic"] == .some(try sha256sum(a)))
        #expect(d["sub/b.heic"] == .some(try sha256sum(b)))
    }
}

/// `--hash none`: no entry carries a sha256 (the field is optional in the schema), the checks are the same, and a
/// baseline still works (it matches files by name).
@Test func auditHashNoneWritesNoDigestAndKeepsTheVerdicts() throws {
    let dir = Repo.temporaryDirectory("cli-hash-none")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(out, "a.heic")
    _ = try writeHEIC(out, "cut.heic", truncateBy: 100)
    let rep = dir.appendingPathComponent("rep")
    let db = dir.appendingPathComponent("h.db").path
    let r = runCLI([
        "audit", "--outputs", out.path, "--no-decode", "--hash", "none", "--report", rep.path, "--history-db", db,
    ])
    #expect(r.code == .findings, "\(r.out)\(r.err)")
    #expect(r.out.contains("cut.heic: FAIL"))
    let d = try digests(rep)
    #expect(Set(d.keys) == ["a.heic", "cut.heic"])
    #expect(d.values.allSatisfy { $0 == nil }, "\(d)")
    let json = try String(contentsOf: rep.appendingPathComponent("report.json"), encoding: .utf8)
    #expect(!json.contains("\"sha256\""))
    // The same files against that report as baseline: nothing regressed, so the gate passes.
    let again = runCLI([
        "audit", "--outputs", out.path, "--no-decode", "--hash", "none", "--no-history", "--baseline",
        rep.appendingPathComponent("report.json").path,
    ])
    #expect(again.code == .clean, "\(again.out)\(again.err)")
    let bad = runCLI(["audit", "--outputs", out.path, "--no-history", "--hash", "md5"])
    #expect(bad.code == .usageOrIO)
    #expect(bad.err.contains("--hash takes one of sha256|none"), "\(bad.err)")
}
