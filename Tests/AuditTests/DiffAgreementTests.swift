import Findings
import Foundation
import TestSupport
import Testing

@testable import Audit

/// The source/output pairs of the generated corpus (Corpus/MANIFEST): a converter output with the DNG it was made
/// from, and each mutation of that output with both the output it mutates and the DNG.
private func corpusPairs() throws -> [(source: URL, output: URL)] {
    let corpus = Repo.root.appendingPathComponent("Corpus")
    let text = try String(contentsOf: corpus.appendingPathComponent("MANIFEST"), encoding: .utf8)
    var originOf: [String: String] = [:]
    var pairs: [(String, String)] = []
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard c.count == 6, c[5] != "-" else { continue }
        if let r = c[1].range(of: "Converter output of ") {
            let dng = String(c[1][r.upperBound...].prefix { $0 != ";" })
            originOf[c[0]] = dng
            pairs.append((dng, c[0]))
        } else if let r = c[1].range(of: "mutation of ") {
            let base = String(c[1][r.upperBound...])
            pairs.append((base, c[0]))
            if let dng = originOf[base] { pairs.append((dng, c[0])) }
        }
    }
    return pairs.map { (corpus.appendingPathComponent($0.0), corpus.appendingPathComponent($0.1)) }
}

/// The rows a judgement shows for the fields its policy compares, `Group:Tag` → class.
func judgedRows(_ r: PairJudgement.Result, policy: Policy) -> [String: FieldClass] {
    var rows: [String: FieldClass] = [:]
    for e in r.diff?.entries ?? [] where policy.matters(e.key.description) { rows[e.key.description] = e.diffClass }
    return rows
}

/// Over every source/output pair of the generated corpus, each field's diff class (the table of
/// `readback diff`, the report's rows) and its findings agree, field by field.
@Test func diffClassesAndFindingsAgreeOnEveryCorpusPair() throws {
    let pairs = try corpusPairs()
    #expect(pairs.count >= 19, "expected the converter output and its mutations, found \(pairs.count)")
    var judgedFields = 0
    for p in pairs {
        let r = PairJudgement.judge(
            source: p.source, output: p.output, policy: .builtIn, decode: false, decoders: .inProcess)
        let rows = judgedRows(r, policy: .builtIn)
        judgedFields += rows.count
        let name = "\(p.source.lastPathComponent) → \(p.output.lastPathComponent)"
        #expect(r.diff != nil, "\(name): \(r.findings)")
        #expect(DiffAgreement.disagreements(rows: rows, findings: r.findings) == [], "\(name)")
    }
    #expect(judgedFields > 100)
}

/// The agreement check itself fails on a table that contradicts its findings (the bug this check guards against: a MakerNote
/// listed as lost while its finding says known-loss), and on a silent loss.
@Test func theAgreementCheckCatchesAContradiction() {
    func finding(_ code: FindingCode, _ field: String) -> Finding {
        Finding(code: code, severity: .info, message: "m", evidence: Evidence(field: field))
    }
    let field = "MakerNotes:MakerNote"
    #expect(
        DiffAgreement.disagreements(rows: [field: .knownLoss], findings: [finding(.metadataKnownLoss, field)]) == [])
    #expect(
        DiffAgreement.disagreements(rows: [field: .lost], findings: [finding(.metadataKnownLoss, field)]).count == 2)
    #expect(DiffAgreement.disagreements(rows: ["GPS:GPSLatitude": .lost], findings: []).count == 1)
    // A metadata code the mapping does not list is a disagreement too.
    #expect(DiffAgreement.disagreements(rows: [:], findings: [finding(.metadataNone, field)]).count == 1)
}

/// A known loss is one thing everywhere: under a policy that lists GPS as a known loss, the GPS the mutation removed
/// is class known-loss in the table and in the report's rows, and metadata.known-loss in the findings.
@Test func aKnownLossIsTheClassAndTheFinding() throws {
    let corpus = Repo.root.appendingPathComponent("Corpus/heic")
    let policy = try Policy.parse("known-loss GPS:*", name: "gps.policy")
    let r = PairJudgement.judge(
        source: corpus.appendingPathComponent("good.heic"),
        output: corpus.appendingPathComponent("mutations/metadata.lost.heic"), policy: policy, decode: false,
        decoders: .inProcess)
    let lat = try #require(r.diff?.entries.first { $0.key.description == "GPS:GPSLatitude" })
    #expect(lat.diffClass == .knownLoss)
    #expect(r.rows.first { $0.field == "GPS:GPSLatitude" }?.status == .knownLoss)
    #expect(r.findings.filter { $0.evidence?.field == "GPS:GPSLatitude" }.map(\.code) == [.metadataKnownLoss])
    #expect(DiffAgreement.disagreements(rows: judgedRows(r, policy: policy), findings: r.findings) == [])
}
