import Audit
import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

/// Readback's conformance findings against GPAC's ComplianceWarden, rule by rule, on two sets of files: the checker's
/// own test vectors (its tests/heif and tests/miaf `.asm` files, assembled with `nasm -f bin`, each with the
/// checker's expected output in the `.ref` beside it) and the real phone and camera files of the shared corpus
/// (heic/, the checker run on each). Expectations/compliance-warden-rules.tsv maps each of the checker's rules to
/// the Readback codes that report it; Expectations/compliance-warden-differences.tsv lists, file by file, every
/// difference with its reason, and must be exact (docs/policy.md, "Conformance").
@Suite(.serialized) struct ComplianceWardenParityRealWorldTests {
    /// One row of the rule table.
    struct Rule {
        var scope: String
        var codes: Set<String>
    }

    static let expectations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Expectations")

    /// Rows of a tab-separated table, comments and blank lines left out.
    static func rows(_ name: String) throws -> [[String]] {
        try String(contentsOf: expectations.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    static func rules() throws -> [String: Rule] {
        var out: [String: Rule] = [:]
        for r in try rows("compliance-warden-rules.tsv") where r.count == 4 {
            out[r[0]] = Rule(scope: r[1], codes: r[2] == "-" ? [] : Set(r[2].split(separator: ",").map(String.init)))
        }
        return out
    }

    /// The listed differences: subject → kind → rules or codes.
    static func differences() throws -> [String: [String: Set<String>]] {
        var out: [String: [String: Set<String>]] = [:]
        for r in try rows("compliance-warden-differences.tsv") where r.count == 4 {
            #expect(!r[3].isEmpty, "\(r[0]) \(r[1]): no reason given")
            out[r[0], default: [:]][r[1]] = r[2] == "-" ? [] : Set(r[2].split(separator: ",").map(String.init))
        }
        return out
    }

    /// The rules a `.ref` file (the checker's text output) flags as errors: `heif#11`, `miaf#26`, …
    static func flagged(ref text: String) -> Set<String> {
        var out = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("[") && line.contains("] Error:") {
            // "[heif][Rule #11] Error: …"
            let parts = line.split(separator: "]").map { $0.dropFirst() }
            guard parts.count >= 2, parts[1].hasPrefix("Rule #"), let n = Int(parts[1].dropFirst(6)) else { continue }
            out.insert("\(parts[0])#\(n)")
        }
        return out
    }

    /// The differences between the checker's flagged rules and Readback's codes, over the checker's `specs`.
    static func compare(flagged: Set<String>, codes: Set<String>, specs: Set<String>, rules: [String: Rule]) -> [String:
        Set<String>]
    {
        var unseen = Set<String>()
        for r in flagged {
            guard let rule = rules[r] else {
                unseen.insert(r)
                continue
            }
            if rule.scope == "out" { continue }
            if rule.scope != "still" || rule.codes.isDisjoint(with: codes) { unseen.insert(r) }
        }
        let compared = Set(
            rules.filter { $0.value.scope == "still" && specs.contains(String($0.key.split(separator: "#")[0])) }
                .flatMap(\.value.codes))
        let explained = Set(flagged.compactMap { rules[$0] }.filter { $0.scope == "still" }.flatMap(\.codes))
        let extra = codes.intersection(compared).subtracting(explained)
        var out: [String: Set<String>] = [:]
        if !unseen.isEmpty { out["unseen"] = unseen }
        if !extra.isEmpty { out["extra"] = extra }
        return out
    }

    /// Readback's error and warning codes for `file`, audited alone without decoding (the conformance rules read
    /// the container only).
    static func readbackCodes(_ file: URL, name: String) -> Set<String> {
        let r = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
            AuditJob(name: name, source: nil, output: file))
        return Set(r.findings.filter { $0.severity == .error || $0.severity == .warning }.map(\.code.rawValue))
    }

    static func toolsFolder() throws -> URL {
        if let t = ProcessInfo.processInfo.environment["READBACK_TOOLS"] { return URL(fileURLWithPath: t) }
        return try RealWorldCorpus.root().deletingLastPathComponent().appendingPathComponent("tools")
    }

    @Test func everyRuleOfTheCheckerIsInTheTableOnce() throws {
        let cw = try ComplianceWarden.binary.get()
        let r = try TestSupport.Tool.run(cw.path, ["-s", "miaf", "-l"])
        var listed = Set<String>()
        // "[miaf] Rule #0035: Section 7.3.11.1"
        for line in String(decoding: r.out + r.err, as: UTF8.self).split(separator: "\n") where line.hasPrefix("[") {
            let p = line.split(separator: " ")
            guard p.count >= 3, p[1] == "Rule", p[2].hasPrefix("#"), let n = Int(p[2].dropFirst().dropLast()) else {
                continue
            }
            listed.insert("\(p[0].dropFirst().dropLast())#\(n)")
        }
        #expect(listed.count == 18 + 34 + 53, "the checker lists \(listed.count) rules")
        let table = try Self.rules()
        #expect(Set(table.keys.filter { !$0.hasPrefix("readback#") }) == listed)
        let known = Set(FindingCode.allCases.map(\.rawValue))
        for (id, rule) in table {
            #expect(["still", "out", "missing", "beyond"].contains(rule.scope), "\(id): scope \(rule.scope)")
            #expect(rule.codes.isSubset(of: known), "\(id): unknown codes \(rule.codes.subtracting(known))")
            #expect((rule.scope == "still" || rule.scope == "beyond") == !rule.codes.isEmpty, "\(id)")
        }
        // Every conformance code reports some rule of the table.
        let mapped = Set(table.values.flatMap(\.codes))
        let conformance = known.filter { $0.hasPrefix("conformance.") }
        #expect(conformance.subtracting(mapped).isEmpty, "unmapped: \(conformance.subtracting(mapped).sorted())")
    }

    @Test func theCheckersOwnVectorsAgreeRuleByRule() throws {
        let tests = try Self.toolsFolder().appendingPathComponent("compliance-warden/tests")
        let rules = try Self.rules()
        let listed = try Self.differences()
        let dir = Repo.temporaryDirectory("readback-cw-vectors")
        defer { try? FileManager.default.removeItem(at: dir) }
        var compared = 0
        var tracks = Set<String>()
        for spec in ["heif", "miaf"] {
            let src = tests.appendingPathComponent(spec)
            let asms = try FileManager.default.contentsOfDirectory(at: src, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "asm" }.sorted { $0.path < $1.path }
            #expect(asms.count >= 30, "\(spec): \(asms.count) vectors")
            let specs: Set<String> = spec == "heif" ? ["isobmff", "heif"] : ["isobmff", "heif", "miaf"]
            for asm in asms {
                let name = asm.deletingPathExtension().lastPathComponent
                let subject = "\(spec)/\(name)"
                let out = dir.appendingPathComponent("\(spec)-\(name).hif")
                let r = try TestSupport.Tool.run("nasm", ["-f", "bin", "-o", out.path, asm.path])
                try #require(r.status == 0, "nasm \(subject): \(String(decoding: r.err, as: UTF8.self))")
                let bytes = try [UInt8](Data(contentsOf: out))
                if Self.topLevelBoxes(bytes).contains("moov") {
                    tracks.insert(subject)
                    continue
                }
                let ref = try String(contentsOf: src.appendingPathComponent(name + ".ref"), encoding: .utf8)
                let diff = Self.compare(
                    flagged: Self.flagged(ref: ref), codes: Self.readbackCodes(out, name: subject), specs: specs,
                    rules: rules)
                var expected = listed[subject] ?? [:]
                expected["tracks"] = nil
                #expect(diff == expected, "\(subject): differences \(diff), listed \(expected)")
                compared += 1
            }
        }
        let listedTracks = Set(listed.filter { $0.value["tracks"] != nil }.keys)
        #expect(tracks == listedTracks, "vectors with a MovieBox \(tracks.sorted()) vs listed \(listedTracks.sorted())")
        #expect(compared >= 60, "\(compared) still-image vectors compared")
    }

    @Test func realFilesAgreeRuleByRule() throws {
        let cw = try ComplianceWarden.binary.get()
        let rules = try Self.rules()
        let listed = try Self.differences()
        let heic = try RealWorldCorpus.root().appendingPathComponent("heic")
        let files = try FileManager.default.contentsOfDirectory(at: heic, includingPropertiesForKeys: nil)
            .sorted { $0.path < $1.path }
        #expect(files.count >= 30, "\(files.count) files in heic/")
        for file in files {
            let subject = "heic/\(file.lastPathComponent)"
            let errors = try ComplianceWarden.errors(cw, file)
            var expected = listed[subject] ?? [:]
            if errors.contains(where: { $0.spec == "-" }) {
                #expect(expected["unparsed"] != nil, "\(subject): the checker cannot parse it: \(errors.map(\.text))")
                continue
            }
            #expect(expected["unparsed"] == nil, "\(subject): listed as unparsed, but the checker parses it")
            expected["unparsed"] = nil
            let flagged = Set(errors.map { "\($0.spec)#\($0.rule)" })
            let diff = Self.compare(
                flagged: flagged, codes: Self.readbackCodes(file, name: subject), specs: ["isobmff", "heif", "miaf"],
                rules: rules)
            #expect(diff == expected, "\(subject): differences \(diff), listed \(expected)")
        }
        let subjects = Set(files.map { "heic/\($0.lastPathComponent)" })
        let stale = Set(listed.keys.filter { $0.hasPrefix("heic/") }).subtracting(subjects)
        #expect(stale.isEmpty, "listed but not in the corpus: \(stale.sorted())")
    }

    @Test func untouchedRealFilesAuditedAgainstThemselvesRaiseNoConformanceError() throws {
        let heic = try RealWorldCorpus.root().appendingPathComponent("heic")
        let files = try FileManager.default.contentsOfDirectory(at: heic, includingPropertiesForKeys: nil)
        var warned = 0
        for file in files.sorted(by: { $0.path < $1.path }) {
            let r = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
                AuditJob(name: file.lastPathComponent, source: file, output: file))
            let conformance = r.findings.filter { $0.code.rawValue.hasPrefix("conformance.") }
            #expect(
                conformance.allSatisfy { $0.severity == .warning },
                "\(file.lastPathComponent): \(conformance.filter { $0.severity != .warning }.map(\.code))")
            if !conformance.isEmpty { warned += 1 }
        }
        // The corpus has files that break MIAF rules (no miaf brand, no pixi, profile brands): they must be seen.
        #expect(warned >= 10, "\(warned) files with conformance warnings")
    }

    /// The four-character types of the top-level boxes of `bytes`.
    static func topLevelBoxes(_ bytes: [UInt8]) -> [String] {
        var out: [String] = []
        var i = 0
        while i + 8 <= bytes.count {
            let size = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            out.append(String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self))
            if size < 8 { break }
            i += size
        }
        return out
    }
}
