import Foundation
import Testing

@testable import Audit
@testable import Findings

/// The catalogue of finding codes (`FindingCode` in Findings) and the policy's validation against it.

@Test func everyCodeHasOneEntryAndOneSpelling() {
    let spelling = try! Regex(#"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+$"#)
    for c in FindingCode.allCases {
        #expect(FindingCode.entries[c] != nil, "\(c.rawValue) has no entry")
        #expect(c.rawValue.wholeMatch(of: spelling) != nil, "\(c.rawValue) is not dotted lower-case kebab-case")
        #expect(!c.meaning.isEmpty && !c.meaning.contains("\n"))
    }
    #expect(FindingCode.catalogue.count == FindingCode.allCases.count, "one entry per code")
    #expect(FindingCode.catalogue.map(\.code) == FindingCode.allCases, "the catalogue lists codes in case order")
}

@Test func aCodeStartsWithItsTopic() {
    let prefix: [FindingCode.Topic: String] = [
        .container: "container.", .input: "input.", .output: "output.", .size: "size.", .decode: "decode.",
        .signalling: "signalling.", .metadata: "metadata.", .orientation: "orientation.", .gainMap: "gainmap.",
        .fileFacts: "file.", .sidecar: "sidecar.", .render: "render.", .conformance: "conformance.",
    ]
    for c in FindingCode.allCases {
        #expect(c.rawValue.hasPrefix(prefix[c.topic]!), "\(c.rawValue) is not under \(c.topic)")
    }
    #expect(Set(FindingCode.allCases.map(\.topic)) == Set(FindingCode.Topic.allCases), "every topic has a code")
}

@Test func oldNamesAreAliasesOfRenamedCodes() {
    #expect(FindingCode.named("container.iloc.extentPastEOF") == .containerIlocExtentPastEof)
    #expect(FindingCode.named("container.ipma.unknown-item") == .containerIpmaUnknownItem)
    #expect(FindingCode.named("render.cats") == nil)
    #expect(FindingCode.current("container.iref.cdscMultiTarget") == "container.iref.cdsc-multi-target")
    #expect(FindingCode.current("render.cast") == "render.cast")
    #expect(FindingCode.containerIrefAuxlMultiTarget.aliases == ["container.iref.auxlMultiTarget"])
    for (old, c) in FindingCode.aliases {
        #expect(FindingCode(rawValue: old) == nil, "\(old) is both an alias and a code")
        #expect(c.aliases.contains(old))
    }
}

@Test func aFindingOfACataloguedCodeHasItsDefaultSeverity() {
    let f = Finding(.renderCast, message: "cast")
    #expect(f.code == .renderCast && f.severity == .warning)
    #expect(Finding(.renderCast, severity: .error, message: "cast").severity == .error)
    #expect(FindingCode.containerPitmMissing.finding("no pitm").severity == .error)
}

/// A finding's code is written as its string, in JSON and in text, and read back through the catalogue: an old
/// spelling is read as the current code, an unknown one is refused with its name.
@Test func aFindingCodeIsWrittenAsItsStringAndReadThroughTheCatalogue() throws {
    let f = Finding(.containerIlocExtentPastEof, message: "m")
    let json = String(decoding: try JSONEncoder().encode(f), as: UTF8.self)
    #expect(json.contains(#""code":"container.iloc.extent-past-eof""#), "\(json)")
    #expect(try JSONDecoder().decode(Finding.self, from: Data(json.utf8)) == f)
    #expect("\(f.code)" == "container.iloc.extent-past-eof")
    #expect(f.description == "error container.iloc.extent-past-eof: m")
    let old = json.replacingOccurrences(of: "container.iloc.extent-past-eof", with: "container.iloc.extentPastEOF")
    #expect(try JSONDecoder().decode(Finding.self, from: Data(old.utf8)).code == .containerIlocExtentPastEof)
    let unknown = json.replacingOccurrences(of: "container.iloc.extent-past-eof", with: "x.y")
    #expect(throws: FindingCode.Unknown.self) { try JSONDecoder().decode(Finding.self, from: Data(unknown.utf8)) }
}

@Test func theBuiltInPolicyNamesOnlyCataloguedCodesAndWarnsOfNothing() throws {
    let p = try Policy.parse(Policy.builtInText, name: "built-in", base: Policy())
    #expect(p.warnings.isEmpty, "\(p.warnings)")
    #expect(!p.severities.isEmpty)
    for rule in p.severities { #expect(FindingCode(rawValue: rule.pattern) != nil, "\(rule.pattern)") }
    #expect(p == Policy.builtIn)
}

@Test func anUnknownCodeIsRefusedWithTheNearestCode() {
    #expect(
        throws: Policy.ParseError(
            name: "p.policy", line: 2, message: "unknown code 'render.cats' (did you mean 'render.cast'?)")
    ) {
        try Policy.parse("# a typo\nseverity render.cats error\n", name: "p.policy")
    }
    #expect(throws: Policy.ParseError(name: "p.policy", line: 1, message: "unknown code 'frobnicate.everything'")) {
        try Policy.parse("severity frobnicate.everything error", name: "p.policy")
    }
    // An old camelCase name typed wrong is still near its new name.
    #expect(
        Policy.suggestion(for: "container.iloc.extentPastEof") == " (did you mean 'container.iloc.extent-past-eof'?)")
}

@Test func aGlobMatchingNoCodeIsRefused() throws {
    #expect(
        throws: Policy.ParseError(
            name: "p", line: 1, message: "'render.*x' matches no finding code (readback codes lists them)")
    ) {
        try Policy.parse("severity render.*x error", name: "p")
    }
    let p = try Policy.parse("severity render.* error\nseverity container.* warning", name: "p")
    #expect(p.severity(for: "render.exposure", default: .warning) == .error)
    #expect(p.warnings.isEmpty)
}

@Test func anOldNameAppliesToTheRenamedCodeWithANote() throws {
    let p = try Policy.parse("severity container.ipma.unknownItem error\n", name: "old.policy")
    #expect(p.severity(for: "container.ipma.unknown-item", default: .warning) == .error)
    #expect(
        p.warnings == [
            "old.policy:1: 'container.ipma.unknownItem' is an old name of 'container.ipma.unknown-item' (old names are accepted for one report-schema version)"
        ])
    // A glob that matches only old names stands for the codes they became.
    let g = try Policy.parse("severity container.iref.*MultiTarget off", name: "g")
    #expect(g.severity(for: "container.iref.cdsc-multi-target", default: .warning) == nil)
    #expect(g.severity(for: "container.iref.auxl-multi-target", default: .warning) == nil)
    #expect(g.severity(for: "container.iref.missing-item", default: .error) == .error)
}

@Test func aFieldPatternThatCanNeverMatchWarns() throws {
    let p = try Policy.parse(
        "ignore Foo:Bar GPS:GPSLatitude XMP-whatever:Tag Maker*\ncompare IFD0:* Nope*:X", name: "f")
    #expect(
        p.warnings == [
            "f:1: field pattern 'Foo:Bar' can never match: no tag table has the group 'Foo'",
            "f:2: field pattern 'Nope*:X' can never match: no tag table has the group 'Nope*'",
        ])
    #expect(p.ignoreFields.contains("Foo:Bar"), "a warning, not an error: the line still applies")
}

@Test func editDistanceCountsEdits() {
    #expect(Policy.editDistance("render.cats", "render.cast") == 2)
    #expect(Policy.editDistance("", "abc") == 3)
    #expect(Policy.editDistance("kitten", "sitting") == 3)
    #expect(Policy.editDistance("same", "same") == 0)
}
