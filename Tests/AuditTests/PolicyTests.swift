import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit

@Test func builtInPolicyParses() throws {
    let p = try Policy.parse(Policy.builtInText, name: "built-in", base: Policy())
    #expect(p == Policy.builtIn)
    // metadata.lost keeps the comparison's severity (error for critical and important fields, warning for
    // informational ones); the orientation codes are set.
    #expect(p.severity(for: "metadata.lost", default: .warning) == .warning)
    #expect(p.severity(for: "metadata.lost", default: .error) == .error)
    #expect(p.severity(for: "orientation.changed", default: .info) == .error)
    #expect(p.severity(for: "orientation.double-rotation", default: .error) == .info)
    #expect(p.severity(for: "metadata.rounded", default: .error) == .warning)
    #expect(p.severity(for: "container.pitm.missing", default: .warning) == .warning)
    #expect(p.isKnownLoss("ExifIFD:MakerNote"))
    #expect(p.isKnownLoss("MakerNotes:MakerNoteApple"))
    #expect(!p.isKnownLoss("GPS:GPSLatitude"))
    #expect(!p.matters("IFD0:Software"))
    #expect(p.matters("GPS:GPSLatitude"))
    #expect(p.sizeRatioMin == 0.01 && p.sizeRatioMax == 5)
}

@Test func policyFileOverridesAndGlobs() throws {
    let text = """
        # stricter
        severity container.* warning
        severity container.truncated error   # exact after glob
        severity metadata.added off
        not-known-loss MakerNote*
        known-loss XMP-photoshop:*
        compare GPS:* ExifIFD:DateTimeOriginal
        require-gainmap yes
        size-ratio - 3
        """
    let p = try Policy.parse(text, name: "strict.policy")
    #expect(p.name == "strict.policy")
    #expect(p.severity(for: "container.box.truncated", default: .error) == .warning)
    #expect(p.severity(for: "container.truncated", default: .info) == .error)
    #expect(p.severity(for: "metadata.added", default: .info) == nil)
    #expect(!p.isKnownLoss("ExifIFD:MakerNote"))
    #expect(p.isKnownLoss("XMP-photoshop:City"))
    #expect(p.matters("GPS:GPSAltitude") && p.matters("exififd:datetimeoriginal"))
    #expect(!p.matters("IFD0:Make"))
    #expect(p.requireGainMap)
    #expect(p.sizeRatioMin == nil && p.sizeRatioMax == 3)
    let applied = p.apply([
        Finding(code: .metadataAdded, severity: .info, message: "x"),
        Finding(code: .containerBoxTruncated, severity: .error, message: "y"),
    ])
    #expect(applied.map(\.code) == [.containerBoxTruncated])
    #expect(applied.map(\.severity) == [.warning])
}

@Test(arguments: [
    ("severity metadata.lost fatal", 1, "unknown severity 'fatal' (error, warning, known-loss, info or off)"),
    (
        "\n\nfrobnicate x", 3,
        "unknown directive 'frobnicate' (severity, compare, ignore, known-loss, not-known-loss, require-gainmap, size-ratio, render, verdict, profile, reset)"
    ),
    ("severity a b c", 1, "usage: severity CODE error|warning|known-loss|info|off"),
    ("size-ratio 3 1", 1, "size-ratio MIN is larger than MAX"),
    ("require-gainmap maybe", 1, "usage: require-gainmap yes|no"),
    ("ignore", 1, "ignore needs at least one field pattern"),
])
func policyErrorsNameTheLine(_ text: String, _ line: Int, _ message: String) {
    #expect(throws: Policy.ParseError(name: "p.txt", line: line, message: message)) {
        try Policy.parse(text, name: "p.txt")
    }
}

@Test func resetStartsFromNothing() throws {
    let p = try Policy.parse("reset\nseverity render.exposure error", name: "r")
    #expect(p.knownLosses.isEmpty && p.ignoreFields.isEmpty)
    #expect(p.severity(for: "metadata.lost", default: .info) == .info)
    #expect(p.severity(for: "render.exposure", default: .info) == .error)
}

@Test func globMatching() {
    #expect(Policy.glob("a*c", "abbbc"))
    #expect(Policy.glob("*", ""))
    #expect(!Policy.glob("a*d", "abc"))
    #expect(Policy.glob("*.truncated", "container.truncated"))
    #expect(Policy.fieldMatches("GPS*", "GPS:GPSLatitude"))
    #expect(!Policy.fieldMatches("GPS:Lat*", "IFD0:Latitude"))
}

/// docs/policy.md quotes the built-in policy verbatim; the quote must stay true.
@Test func policyDocQuotesTheBuiltInPolicy() throws {
    let doc = try String(contentsOf: Repo.root.appendingPathComponent("docs/policy.md"), encoding: .utf8)
    let marker = "## The built-in policy\n\n```\n"
    let start = try #require(doc.range(of: marker)).upperBound
    let end = try #require(doc.range(of: "\n```", range: start..<doc.endIndex)).lowerBound
    #expect(String(doc[start..<end]) == Policy.builtInText)
    // And the example CI policy in the doc parses.
    let ci = try #require(doc.range(of: "# ci.policy")).lowerBound
    let ciEnd = try #require(doc.range(of: "\n```", range: ci..<doc.endIndex)).lowerBound
    let p = try Policy.parse(String(doc[ci..<ciEnd]), name: "ci.policy")
    #expect(p.requireGainMap)
}
