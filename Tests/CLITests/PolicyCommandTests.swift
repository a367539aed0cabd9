import Foundation
import TestSupport
import Testing

@testable import ReadbackCLI

/// `readback audit --print-policy [--profile NAME] [--policy FILE]` prints the policy's full text and exits 0: the
/// default profile, the convert profile (golden), and a file applied on top; a file that does not parse is exit 2.
@Test func printPolicyShowsEveryProfile() throws {
    let plain = runCLI(["audit", "--print-policy"])
    #expect(plain.code == .clean)
    #expect(plain.err.isEmpty)
    #expect(plain.out.contains("known-loss MakerNote*\n"))
    #expect(!plain.out.contains("verdict "))
    #expect(runCLI(["audit", "--print-policy", "--profile", "default"]).out == plain.out)
    let convert = runCLI(["audit", "--print-policy", "--profile", "convert"])
    #expect(convert.code == .clean)
    #expect(convert.out.hasPrefix(plain.out))
    #expect(Golden.check(convert.out, named: "print-policy-convert.txt") == nil)

    let dir = Repo.temporaryDirectory("print-policy")
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("mine.policy")
    try "verdict pass error gainmap.*\n".write(to: file, atomically: true, encoding: .utf8)
    let mine = runCLI(["audit", "--print-policy", "--profile", "convert", "--policy", file.path])
    #expect(mine.code == .clean)
    #expect(mine.out == convert.out + "# --policy \(file.path), applied on top:\nverdict pass error gainmap.*\n")
    try "verdict maybe error x\n".write(to: file, atomically: true, encoding: .utf8)
    let bad = runCLI(["audit", "--print-policy", "--policy", file.path])
    #expect(bad.code == .usageOrIO)
    #expect(bad.err.contains("mine.policy:1: usage: verdict"), "\(bad.err)")
    let unknown = runCLI(["audit", "--print-policy", "--profile", "strict"])
    #expect(unknown.code == .usageOrIO)
    #expect(unknown.err.contains("--profile takes one of default|convert, not 'strict'"), "\(unknown.err)")
    #expect(runCLI(["audit", "a.dng", "b.heic", "--print-policy"]).code == .usageOrIO)
}

/// As a new user met it: the MakerNote removed with exiftool is one thing in `readback diff
/// --json`: class known-loss in its entry and counts, finding metadata.known-loss.
@Test func diffShowsAKnownLossAsItsClass() throws {
    let dir = Repo.temporaryDirectory("diff-known-loss")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = Repo.root.appendingPathComponent("Corpus/heic/good.heic")
    let out = dir.appendingPathComponent("no-makernote.heic")
    let edit = try Tool.run("exiftool", ["-q", "-q", "-MakerNotes:all=", "-o", out.path, src.path])
    try #require(edit.status == 0, "exiftool could not remove the MakerNote")
    let r = runCLI(["diff", src.path, out.path, "--json"])
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    let entries = try #require(doc["entries"] as? [[String: Any]])
    let makerNote = entries.filter { ($0["key"] as? String)?.contains("MakerNote") == true }
    #expect(!makerNote.isEmpty, "the source has a MakerNote")
    #expect(makerNote.allSatisfy { $0["class"] as? String == "known-loss" }, "\(makerNote)")
    let counts = try #require(doc["counts"] as? [String: [String: Int]])
    #expect(counts["lost"]?.values.reduce(0, +) == 0)
    #expect((counts["known-loss"]?.values.reduce(0, +) ?? 0) == makerNote.count)
    let findings = try #require(doc["findings"] as? [[String: Any]])
    let codes = findings.filter { (($0["key"] as? [String: String])?["name"])?.contains("MakerNote") == true }
        .map { $0["code"] as? String }
    #expect(!codes.isEmpty && codes.allSatisfy { $0 == "metadata.known-loss" }, "\(findings)")
}

/// A field the policy ignores (the built-in policy ignores `*:Software`) is no row of `readback diff`: the table and
/// the findings come from the same judgement, so a change the audit does not judge is not shown as one.
@Test func diffLeavesOutTheFieldsThePolicyIgnores() throws {
    let dir = Repo.temporaryDirectory("diff-ignored")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = Repo.root.appendingPathComponent("Corpus/heic/good.heic")
    let out = dir.appendingPathComponent("other-software.heic")
    let edit = try Tool.run(
        "exiftool", ["-q", "-q", "-m", "-IFD0:Software=Another Converter 1.0", "-o", out.path, src.path])
    try #require(edit.status == 0, "exiftool could not set the Software tag")
    let r = runCLI(["diff", src.path, out.path, "--json"])
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    let entries = try #require(doc["entries"] as? [[String: Any]])
    #expect(!entries.isEmpty)
    #expect(!entries.contains { ($0["key"] as? String)?.hasSuffix(":Software") == true }, "\(entries)")
    let table = runCLI(["diff", src.path, out.path, "--all"])
    #expect(!table.out.contains("Another Converter"), "\(table.out)")
}
