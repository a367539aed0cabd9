import Findings
import Foundation
import Isolation
import ReportModel
import ReportWriting

/// Runs a whole audit and assembles its report.
public enum Auditor {
    /// Audits every job of a pairing and returns the report.
    /// - Parameters:
    ///   - pairing: the jobs and the unmatched outputs.
    ///   - options: policy, decoding, workers, gate.
    ///   - mode: `pair`, `directories`, `pairs-file` or `outputs-only`.
    ///   - roots: the roots as given on the command line (recorded as is).
    ///   - tool: Readback's name and version.
    ///   - libraries: library versions.
    ///   - decoders: the run's decoders (each pair gets its own `forFile()`).
    ///   - clock: the time source (injected so goldens are stable).
    ///   - thumbnails: where each file's thumbnails are written as soon as it is audited (with
    ///     `options.thumbnails`); nil keeps none.
    ///   - progress: called after each file, serialised.
    /// - Returns: the report, summary computed.
    public static func run(
        _ pairing: Pairing, options: AuditOptions, mode: AuditMode, roots: [String: String], tool: ToolInfo,
        libraries: [LibraryVersion], decoders: any Decoders, clock: @escaping @Sendable () -> Date = { Date() },
        thumbnails: ThumbnailFolder? = nil,
        progress: @escaping @Sendable (Int, Int, FileResult) -> Void = { _, _, _ in }
    ) -> AuditReport {
        let start = clock()
        let auditor = FileAuditor(options: options, decoders: decoders)
        let files = AuditRunner.run(
            pairing.jobs, workers: options.jobs,
            indexedAudit: { i, job in
                guard let thumbnails else { return auditor.audit(job) }
                let (result, pngs) = auditor.auditWithThumbnails(job)
                thumbnails.write(pngs, index: i)
                return result
            }, progress: progress)
        let duration = clock().timeIntervalSince(start)
        let run = RunParameters(
            mode: mode, startedAt: iso8601(start), durationSeconds: (duration * 1000).rounded() / 1000,
            failOn: options.failOn, decode: options.decode, jobs: options.jobs, policy: options.policy.name,
            roots: roots)
        return AuditReport(
            tool: tool, libraries: libraries, run: run, files: files, unmatchedOutputs: pairing.unmatchedOutputs)
    }

    /// `2026-11-30T21:00:00Z`.
    public static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: d)
    }
}
