import Foundation
import TestSupport
import Testing

@testable import ReadbackCLI

/// `readback codes` and the policy's validation against the catalogue, through the command line.

@Test func codesPrintsTheCatalogueAsTextAndVersionedJSON() throws {
    let text = runCLI(["codes"])
    #expect(text.code == .clean && text.err.isEmpty)
    let line = try #require(text.out.split(separator: "\n").first { $0.hasPrefix("render.cast ") })
    #expect(
        line.contains(" warning ") && line.contains(" keeps-original ")
            && line.hasSuffix("(error above the cast error limit)"))
    #expect(text.out.contains("  container.iloc.extentPastEOF → container.iloc.extent-past-eof\n"))

    let json = runCLI(["codes", "--json"])
    #expect(json.code == .clean)
    struct Entry: Decodable {
        let code, severity, topic, effect, meaning: String
        let aliases: [String]
    }
    struct Catalogue: Decodable {
        let schemaVersion: Int
        let codes: [Entry]
    }
    let c = try JSONDecoder().decode(Catalogue.self, from: Data(json.out.utf8))
    #expect(c.schemaVersion == 1)
    #expect(
        c.codes.count == text.out.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.count,
        "one entry per text line")
    let blank = try #require(c.codes.first { $0.code == "render.blank" })
    #expect(blank.severity == "error" && blank.topic == "render" && blank.effect == "fails-conversion")
    let eof = try #require(c.codes.first { $0.code == "container.iloc.extent-past-eof" })
    #expect(eof.aliases == ["container.iloc.extentPastEOF"])
    #expect(Set(c.codes.map(\.code)).count == c.codes.count)

    let both = runCLI(["codes", "--json", "--markdown"])
    #expect(both.code == .usageOrIO)
}

/// docs/codes.md is `readback codes --markdown` (make codes-doc writes it).
@Test func committedCodesDocIsTheGeneratedOne() throws {
    let r = runCLI(["codes", "--markdown"])
    #expect(r.code == .clean)
    let committed = try String(contentsOf: Repo.root.appendingPathComponent("docs/codes.md"), encoding: .utf8)
    #expect(committed == r.out, "docs/codes.md is stale: run make codes-doc")
    #expect(r.out.contains("| `render.cast` | warning | keeps-original |"))
}

@Test func aPolicyWithAnUnknownCodeOrAnEmptyGlobIsAUsageError() throws {
    let dir = Repo.temporaryDirectory("cli-policy-codes")
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try writeHEIC(dir, "out/a.heic")
    let out = dir.appendingPathComponent("out").path
    let typo = dir.appendingPathComponent("p.policy")
    try "# a gate\nseverity render.cats error\n".write(to: typo, atomically: true, encoding: .utf8)
    let r = runCLI(["audit", "--outputs", out, "--no-history", "--no-decode", "--policy", typo.path])
    #expect(r.code == .usageOrIO)
    #expect(r.out.isEmpty)
    #expect(r.err == "readback audit: \(typo.path):2: unknown code 'render.cats' (did you mean 'render.cast'?)\n")

    let glob = dir.appendingPathComponent("g.policy")
    try "severity rendr.* error\n".write(to: glob, atomically: true, encoding: .utf8)
    let g = runCLI(["audit", "--outputs", out, "--no-history", "--no-decode", "--policy", glob.path])
    #expect(g.code == .usageOrIO)
    #expect(g.err == "readback audit: \(glob.path):1: 'rendr.*' matches no finding code (readback codes lists them)\n")
}

@Test func aPolicyNamingAnOldCodeOrAnImpossibleFieldRunsWithWarnings() throws {
    let dir = Repo.temporaryDirectory("cli-policy-alias")
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try writeHEIC(dir, "out/cut.heic", truncateBy: 100)
    let out = dir.appendingPathComponent("out").path
    let policy = dir.appendingPathComponent("old.policy")
    try "severity container.iloc.extentPastEOF info\nignore Nowhere:Tag\n".write(
        to: policy, atomically: true, encoding: .utf8)
    let r = runCLI(["audit", "--outputs", out, "--no-history", "--no-decode", "--policy", policy.path])
    #expect(r.code == .findings, "container.truncated still fails the gate")
    #expect(
        r.err.contains(
            "readback audit: warning: \(policy.path):1: 'container.iloc.extentPastEOF' is an old name of 'container.iloc.extent-past-eof'"
        ))
    #expect(
        r.err.contains(
            "readback audit: warning: \(policy.path):2: field pattern 'Nowhere:Tag' can never match: no tag table has the group 'Nowhere'\n"
        ))
}
