import Audit
import Findings
import Foundation
import RenderIO
import ReportModel

/// Verifies an output with the `Audit` module: the file is read back, parsed, decoded and diffed against its source
/// under Readback's own-output policy (`Policy.readbackOutputs`).
public struct AuditVerifier: OutputVerifier {
    let auditor: FileAuditor

    public init(policy: Policy = .readbackOutputs) {
        auditor = FileAuditor(options: AuditOptions(policy: policy, decode: true, thumbnails: false, jobs: 1))
    }

    /// Findings that mean the output itself is unusable (not just incomplete). A blank frame (`render.blank`) is one:
    /// the file decodes, but shows nothing of the capture.
    static func isUnusable(_ f: Finding) -> Bool {
        f.code.hasPrefix("container.") || f.code.hasPrefix("input.") || f.code.hasPrefix("output.")
            || f.code == "decode.primary-failed" || f.code == "render.blank"
    }

    /// Render findings that keep the original even as warnings: a colour cast, a blank frame or turned pixels are
    /// the pixels going wrong while every tag is right. (An exposure warning alone is a different rendering.)
    static func vetoesAsWarning(_ code: String) -> Bool {
        code == "render.cast" || code == "render.blank" || code == "render.orientation"
    }

    /// Maps an audit result to a verdict: errors that make the file unusable → failed; any other error, or a
    /// warning about metadata, the gain map, orientation, the file facts (a lost xattr, the mtime), the sidecar's
    /// unapplied edits or the pixels (cast, blank, turned) → partial (the original is kept); known losses and info
    /// (`render.no-reference`, a dropped checksum xattr) → clean.
    public static func verdict(for r: FileResult) -> VerificationResult {
        let serious = r.findings.filter { f in
            f.severity == .error
                || (f.severity == .warning
                    && (f.code.hasPrefix("metadata.") || f.code.hasPrefix("gainmap.")
                        || f.code.hasPrefix("orientation.") || f.code.hasPrefix("file.")
                        || f.code.hasPrefix("sidecar.") || vetoesAsWarning(f.code)))
        }
        let summary = Self.summary(r)
        if let bad = serious.first(where: { isUnusable($0) && $0.severity == .error }) {
            return .failed(reason: "\(bad.code): \(Finding.oneLine(bad.message))")
        }
        if !serious.isEmpty {
            return .partial(reasons: serious.map { "\($0.code): \(Finding.oneLine($0.message))" }, summary: summary)
        }
        return .clean(summary: summary)
    }

    static func summary(_ r: FileResult) -> String {
        var counts: [Severity: Int] = [:]
        for f in r.findings { counts[f.severity, default: 0] += 1 }
        let parts = Severity.allCases.sorted(by: >).map { "\(counts[$0] ?? 0) \($0.rawValue)" }
        return "audit: " + parts.joined(separator: ", ")
    }

    public func verify(source: URL, output: URL) throws -> VerificationResult {
        let job = AuditJob(
            name: output.lastPathComponent, source: source, output: output, sourceDisplay: source.path,
            outputDisplay: output.path)
        return Self.verdict(for: auditor.audit(job))
    }

    /// Audits from the source's bytes as the conversion read them, reusing its reference render.
    public func verify(source: URL, sourceBytes: [UInt8], reference: ReferenceLookup?, output: URL) throws
        -> VerificationResult
    {
        let job = AuditJob(
            name: output.lastPathComponent, source: source, output: output, sourceDisplay: source.path,
            outputDisplay: output.path)
        return Self.verdict(for: auditor.audit(job, sourceBytes: sourceBytes, reference: reference))
    }
}
