import Audit
import Findings
import Foundation
import Isolation
import RenderIO
import ReportModel

/// Verifies an output with the `Audit` module: the file is read back, parsed, decoded and diffed against its source
/// under Readback's own-output policy, the built-in `convert` profile (`Policy.convert`), whose `verdict` lines
/// grade the findings (docs/policy.md "Profiles and conversion verdicts").
public struct AuditVerifier: OutputVerifier {
    let auditor: FileAuditor
    let policy: Policy

    /// - Parameter decoders: the run's decoders.
    public init(policy: Policy = .readbackOutputs, decoders: any Decoders) {
        self.policy = policy
        auditor = FileAuditor(
            options: AuditOptions(policy: policy, decode: true, thumbnails: false, jobs: 1), decoders: decoders)
    }

    /// Maps an audit result to a verdict under the `convert` profile: see ``verdict(for:policy:)``.
    public static func verdict(for r: FileResult) -> VerificationResult { verdict(for: r, policy: .convert) }

    /// Maps an audit result to a verdict by the policy's `verdict` lines (``Policy/conversionAction(for:)``): a
    /// finding that fails the conversion → failed (the first one is the reason); else any that keeps the original
    /// → kept, with every such finding as a reason; else clean.
    public static func verdict(for r: FileResult, policy: Policy) -> VerificationResult {
        let graded = r.findings.map { ($0, policy.conversionAction(for: $0)) }
        let summary = Self.summary(r)
        if let (bad, _) = graded.first(where: { $0.1 == .fail }) {
            return .failed(reason: "\(bad.code): \(Finding.oneLine(bad.message))")
        }
        let kept = graded.filter { $0.1 == .keep }.map(\.0)
        if !kept.isEmpty {
            return .kept(reasons: kept.map { "\($0.code): \(Finding.oneLine($0.message))" }, summary: summary)
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
        return Self.verdict(for: auditor.audit(job), policy: policy)
    }

    /// Audits from the source's bytes as the conversion read them, reusing its reference render.
    public func verify(
        source: URL, sourceBytes: [UInt8], reference: ReferenceLookup?, output: URL, decoders: any Decoders
    ) throws -> VerificationResult {
        let job = AuditJob(
            name: output.lastPathComponent, source: source, output: output, sourceDisplay: source.path,
            outputDisplay: output.path)
        return Self.verdict(for: auditor.audit(job, sourceBytes: sourceBytes, reference: reference, decoders: decoders))
    }
}
