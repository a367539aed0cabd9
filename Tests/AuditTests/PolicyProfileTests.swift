import Findings
import Foundation
import TestSupport
import Testing

@testable import Audit

/// The built-in profiles are policy texts: `convert`'s full text parsed from nothing is the `convert` profile, which
/// is the default one without the MakerNote known loss and with the `verdict` lines.
@Test func theConvertProfileIsItsText() throws {
    var parsed = try Policy.parse(Policy.convertText, name: "convert", base: Policy())
    #expect(parsed == Policy.convert)
    #expect(Policy.readbackOutputs == Policy.convert)
    #expect(Policy.profileNames == ["default", "convert"])
    #expect(Policy.profileText("default") == Policy.builtInText)
    #expect(Policy.profile("nope") == nil && Policy.profileText("nope") == nil)
    #expect(Policy.builtIn.verdictRules.isEmpty)
    #expect(Policy.convert.knownLosses.isEmpty && Policy.builtIn.isKnownLoss("ExifIFD:MakerNote"))
    // Without its own lines it is the default profile.
    parsed.knownLosses = Policy.builtIn.knownLosses
    parsed.verdictRules = []
    parsed.name = "built-in"
    #expect(parsed == Policy.builtIn)
}

/// `profile NAME` starts a file from a built-in profile; `verdict` lines parse and are checked.
@Test func profileAndVerdictDirectives() throws {
    let p = try Policy.parse("profile convert\nverdict pass any gainmap.*", name: "mine")
    #expect(p.name == "mine")
    #expect(p.knownLosses.isEmpty)
    #expect(p.verdictRules.count == Policy.convert.verdictRules.count + 1)
    #expect(p.conversionAction(for: Finding(code: .gainmapMissing, severity: .error, message: "m")) == .pass)
    #expect(p.conversionAction(for: Finding(code: .containerTruncated, severity: .error, message: "m")) == .fail)
    #expect(p.conversionAction(for: Finding(code: .metadataLost, severity: .error, message: "m")) == .keep)
    #expect(p.conversionAction(for: Finding(code: .metadataLost, severity: .info, message: "m")) == .pass)
    let usage = "usage: verdict fail|keep|pass error|warning|known-loss|info|any CODE…"
    for (text, message) in [
        ("verdict drop error x.y", usage), ("verdict keep fatal x.y", usage), ("verdict keep error", usage),
        ("verdict keep error a\"b", "'a\"b' is not a finding code or code glob"),
        ("profile nope", "usage: profile default|convert"), ("profile", "usage: profile default|convert"),
        // A verdict line's codes are checked against the catalogue as a severity line's are.
        ("verdict keep warning render.cats", "unknown code 'render.cats' (did you mean 'render.cast'?)"),
        ("verdict fail any nothing.*", "'nothing.*' matches no finding code (readback codes lists them)"),
    ] {
        #expect(throws: Policy.ParseError(name: "p", line: 1, message: message)) { try Policy.parse(text, name: "p") }
    }
}

/// docs/policy.md quotes the convert profile's own lines verbatim.
@Test func policyDocQuotesTheConvertProfile() throws {
    let doc = try String(contentsOf: Repo.root.appendingPathComponent("docs/policy.md"), encoding: .utf8)
    let marker = "### The convert profile (its own lines)\n\n```\n"
    let start = try #require(doc.range(of: marker)).upperBound
    let end = try #require(doc.range(of: "\n```", range: start..<doc.endIndex)).lowerBound
    #expect(String(doc[start..<end]) == Policy.convertOwnText)
}
