import Findings
import Foundation
import HEIF
import Metadata
import MetadataIO
import ReportModel

/// The one judgement of a source/output pair's metadata and orientation, shared by `readback audit` (the metadata
/// and orientation checks) and `readback diff`, so both say the same thing about the same pair.
///
/// Metadata's `Diff.compare` compares the fields value by value under each tag's rule and judges the orientation by
/// reader model; this layer adds what only the audit can know (the coded data and decoded pixels, ``PixelOrientation``)
/// and the audit policy's field choices: ignored fields are left out, a lost field the policy lists as a known loss
/// becomes `metadata.known-loss`, and one that survived `metadata.known-loss-not-happened`.
public enum PairJudgement {
    /// What the judgement found.
    public struct Result: Sendable {
        /// The full diff, nil when a side's metadata could not be read.
        public let diff: MetadataDiff?
        /// One row per field the policy compares.
        public let rows: [DiffRow]
        /// Findings with the judgement's own severities; the caller applies the policy's (`Policy.apply`).
        public let findings: [Finding]
    }

    /// One side of the pair: the file, read and parsed once, and its container when it is a HEIF file.
    struct Side {
        let file: InputFile
        let heif: HEIFFile?
        var bytes: [UInt8]? { file.bytes }

        init(file: InputFile, heif: HEIFFile?) {
            self.file = file
            self.heif = heif
        }

        /// The side of a file already read; its container counts when its major brand is of the HEIF family.
        init(_ file: InputFile) {
            self.init(file: file, heif: file.bytes.map(Source.isHEIF) == true ? file.heif : nil)
        }
    }

    /// Judges a pair of files.
    /// - Parameters:
    ///   - source: the original.
    ///   - output: the converted or rewritten file.
    ///   - policy: the audit policy (fields compared, known losses).
    ///   - decode: decode pixels to confirm the orientation (false: coded data, sizes and tags only).
    /// - Returns: the diff, its rows and the findings.
    public static func judge(source: URL, output: URL, policy: Policy = .builtIn, decode: Bool = true) -> Result {
        judge(source: InputFile(reading: source), output: InputFile(reading: output), policy: policy, decode: decode)
    }

    /// Judges a pair of files already read and parsed (each read once, by the caller).
    public static func judge(source: InputFile, output: InputFile, policy: Policy = .builtIn, decode: Bool = true)
        -> Result
    {
        judge(Side(source), Side(output), policy: policy, decode: decode)
    }

    static func judge(_ s: Side, _ o: Side, policy: Policy, decode: Bool) -> Result {
        let src: MetadataSet
        let out: MetadataSet
        do { src = try MetadataReader.read(s.file) } catch {
            return unreadable(.warning, "the source's metadata cannot be read: \(error)")
        }
        do { out = try MetadataReader.read(o.file) } catch {
            return unreadable(.error, "the output's metadata cannot be read: \(error)")
        }
        let evidence = PixelOrientation.evidence(
            source: s.heif, sourceBytes: s.bytes, output: o.heif, outputBytes: o.bytes, decode: decode)
        var mp = MetadataPolicy.standard
        // Known losses are the audit policy's business (docs/policy.md), not the diff's.
        mp.knownLosses = []
        mp.knownLossGroups = []
        let diff = Diff.compare(source: src, output: out, policy: mp, evidence: evidence)
        return apply(policy, to: diff)
    }

    static func unreadable(_ severity: Severity, _ message: String) -> Result {
        Result(
            diff: nil, rows: [], findings: [Finding(code: "metadata.unreadable", severity: severity, message: message)])
    }

    /// The policy's field choices on a diff: rows for the fields it compares, known losses, and the findings.
    static func apply(_ policy: Policy, to diff: MetadataDiff) -> Result {
        var rows: [DiffRow] = []
        var findings: [Finding] = []
        var criticality: [String: Criticality] = [:]
        for e in diff.entries {
            let field = e.key.description
            guard policy.matters(field) else { continue }
            criticality[field] = e.criticality
            let known = policy.isKnownLoss(field)
            rows.append(
                DiffRow(
                    field: field, status: status(e.diffClass, known: known), source: Diff.text(e.source),
                    output: Diff.text(e.output), note: note(e)))
            if known && [.kept, .reencoded, .rounded].contains(e.diffClass) {
                findings.append(
                    Finding(
                        code: MetadataFindingCode.knownLossNotHappened.rawValue, severity: .info,
                        message: "\(field) survived although the policy lists it as a known loss",
                        evidence: Evidence(expected: Diff.text(e.source), actual: Diff.text(e.output), field: field)))
            }
        }
        for f in diff.findings {
            guard let field = f.evidence?.field else {
                findings.append(f)
                continue
            }
            guard policy.matters(field) else { continue }
            switch f.metadataCode {
            case .lost? where policy.isKnownLoss(field):
                var k = f
                k.code = MetadataFindingCode.knownLoss.rawValue
                k.severity = .knownLoss
                k.message = "\(field) was lost (a known loss under the policy)"
                findings.append(k)
            case .added? where criticality[field] == .informational, .knownLossNotHappened?:
                // Informational additions are noise; known losses are the audit policy's, handled above.
                continue
            default:
                findings.append(f)
            }
        }
        return Result(diff: diff, rows: rows, findings: findings)
    }

    /// The report's status for a diff class (a same-value rewrite is kept, a rounding is a change with a note).
    static func status(_ c: DiffClass, known: Bool) -> DiffStatus {
        switch c {
        case .kept, .reencoded: .kept
        case .rounded, .changed: .changed
        case .lost: known ? .knownLoss : .lost
        case .added: .added
        case .expectedChange: .expected
        case .knownLoss: .knownLoss
        }
    }

    static func note(_ e: DiffEntry) -> String? {
        switch e.diffClass {
        case .reencoded: e.note ?? "re-encoded, same value"
        case .rounded: "rounded: " + (e.note ?? "within the source's printed precision")
        default: e.note
        }
    }
}
