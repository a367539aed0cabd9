import Findings
import Foundation
import HEIF
import Isolation
import Metadata
import MetadataIO
import ReportModel

/// The one judgement of a source/output pair's metadata and orientation, shared by `readback audit` (the metadata
/// and orientation checks) and `readback diff`, so both say the same thing about the same pair.
///
/// Metadata's `Diff.compare` compares the fields value by value under each tag's rule and judges the orientation by
/// reader model; this layer adds what only the audit can know (the coded data and decoded pixels, ``PixelOrientation``)
/// and the audit policy's field choices: ignored fields are left out. The policy's known losses go into the diff
/// itself (``Policy/metadataPolicy``), so each field's class and its finding come from the diff's one judgement: a
/// known loss is class `known-loss` with finding `metadata.known-loss` in the table, the report and the findings
/// alike.
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

        /// The side of a file already read; its container counts when its ftyp names a HEIF-family brand.
        init(_ file: InputFile) {
            self.init(file: file, heif: file.bytes.map(Brands.isHEIF) == true ? file.heif : nil)
        }
    }

    /// Judges a pair of files.
    /// - Parameters:
    ///   - source: the original.
    ///   - output: the converted or rewritten file.
    ///   - policy: the audit policy (fields compared, known losses).
    ///   - decode: decode pixels to confirm the orientation (false: coded data, sizes and tags only).
    ///   - decoders: the decoders the pair's bytes go through.
    /// - Returns: the diff, its rows and the findings.
    public static func judge(
        source: URL, output: URL, policy: Policy = .builtIn, decode: Bool = true, decoders: any Decoders
    ) -> Result {
        judge(
            source: InputFile(reading: source, decoders: decoders),
            output: InputFile(reading: output, decoders: decoders),
            policy: policy, decode: decode)
    }

    /// Judges a pair of files already read and parsed (each read once, by the caller).
    public static func judge(source: InputFile, output: InputFile, policy: Policy = .builtIn, decode: Bool = true)
        -> Result
    {
        judge(Side(source), Side(output), policy: policy, decode: decode)
    }

    /// Judges a pair whose metadata the caller has already read (`readback diff` reads it to refuse an unreadable
    /// file with exit 2): nothing is decoded twice.
    public static func judge(
        source: InputFile, _ src: MetadataSet, output: InputFile, _ out: MetadataSet, policy: Policy = .builtIn,
        decode: Bool = true
    ) -> Result {
        compare(Side(source), src, Side(output), out, policy: policy, decode: decode)
    }

    static func judge(_ s: Side, _ o: Side, policy: Policy, decode: Bool) -> Result {
        let src: MetadataSet
        let out: MetadataSet
        do { src = try MetadataReader.read(s.file) } catch {
            if let f = error.workerFailure { return died(f, "the source's metadata") }
            if let bytes = s.bytes, MetadataAbsence.holdsNone(bytes, readError: error.reason) {
                return Result(
                    diff: nil, rows: [],
                    findings: [
                        Finding(
                            .metadataNone,
                            message: "the source holds no Exif, XMP or MakerNote container: nothing to carry")
                    ])
            }
            return unreadable(.warning, "the source's metadata cannot be read: \(error)")
        }
        do { out = try MetadataReader.read(o.file) } catch {
            if let f = error.workerFailure { return died(f, "the output's metadata") }
            return unreadable(.error, "the output's metadata cannot be read: \(error)")
        }
        return compare(s, src, o, out, policy: policy, decode: decode)
    }

    static func compare(_ s: Side, _ src: MetadataSet, _ o: Side, _ out: MetadataSet, policy: Policy, decode: Bool)
        -> Result
    {
        let evidence = PixelOrientation.evidence(
            source: s.heif, sourceBytes: s.bytes, output: o.heif, outputBytes: o.bytes, decode: decode,
            decoders: o.file.decoders)
        let diff = Diff.compare(source: src, output: out, policy: policy.metadataPolicy, evidence: evidence)
        return apply(policy, to: diff)
    }

    /// A decoder worker that died, hung or ran out of memory reading `what`: that `decode.*` verdict (error).
    static func died(_ failure: WorkerFailure, _ what: String) -> Result {
        Result(
            diff: nil, rows: [],
            findings: [
                Finding(FindingCode(failure), message: "\(what) cannot be read: \(failure)")
            ])
    }

    static func unreadable(_ severity: Severity, _ message: String) -> Result {
        Result(
            diff: nil, rows: [], findings: [Finding(code: .metadataUnreadable, severity: severity, message: message)])
    }

    /// The policy's field choices on a diff: rows and findings for the fields it compares. Classes and codes are the
    /// diff's (one judgement per field); informational additions are left out of the findings as noise.
    static func apply(_ policy: Policy, to diff: MetadataDiff) -> Result {
        var rows: [DiffRow] = []
        var criticality: [String: Criticality] = [:]
        for e in diff.entries {
            let field = e.key.description
            guard policy.matters(field) else { continue }
            criticality[field] = e.criticality
            rows.append(
                DiffRow(
                    field: field, status: e.diffClass.reportStatus, source: Diff.text(e.source),
                    output: Diff.text(e.output), note: note(e)))
        }
        let findings = diff.findings.filter { f in
            guard let field = f.evidence?.field else { return true }
            guard policy.matters(field) else { return false }
            return !(f.code == .metadataAdded && criticality[field] == .informational)
        }
        return Result(diff: diff, rows: rows, findings: findings)
    }

    static func note(_ e: DiffEntry) -> String? {
        switch e.diffClass {
        case .reencoded: e.note ?? "re-encoded, same value"
        case .rounded: "rounded: " + (e.note ?? "within the source's printed precision")
        default: e.note
        }
    }
}
