import Findings
import Foundation
import ReportModel
import Synchronization

/// Options of one audit run.
public struct AuditOptions: Sendable {
    public var policy: Policy
    /// False with `--no-decode`: no pixel decoding, no thumbnails.
    public var decode: Bool
    /// Thumbnails for the HTML report (only when decoding); they are files beside it, never in report.json.
    public var thumbnails: Bool
    /// Worker threads.
    public var jobs: Int
    public var failOn: Severity
    /// Whether each output's sha256 is computed (for reports, the history and expectations); skipped when nothing
    /// will record it, since hashing is most of the cost of an audit without decoding.
    public var digest: Bool

    public init(
        policy: Policy = .builtIn, decode: Bool = true, thumbnails: Bool = false, jobs: Int = 1,
        failOn: Severity = .error, digest: Bool = true
    ) {
        self.digest = digest
        self.policy = policy
        self.decode = decode
        self.thumbnails = thumbnails
        self.jobs = max(1, jobs)
        self.failOn = failOn
    }
}

/// Runs a per-file audit over many jobs on a fixed number of worker threads, results in job order.
///
/// Each worker holds one file at a time, so memory is bounded by `jobs` × (one file + its decoded images).
public enum AuditRunner {
    /// Audits every job.
    /// - Parameters:
    ///   - jobs: the work, in report order.
    ///   - workers: threads to use (≥ 1).
    ///   - audit: the per-file audit.
    ///   - progress: called after each file with (done, total, result), serialised.
    /// - Returns: one result per job, in the jobs' order.
    public static func run(
        _ jobs: [AuditJob], workers: Int, audit: @escaping @Sendable (AuditJob) -> FileResult,
        progress: @escaping @Sendable (Int, Int, FileResult) -> Void
    ) -> [FileResult] {
        run(jobs, workers: workers, indexedAudit: { audit($1) }, progress: progress)
    }

    /// Audits every job, telling the per-file audit each job's index (its place in the report).
    /// - Parameters:
    ///   - jobs: the work, in report order.
    ///   - workers: threads to use (≥ 1).
    ///   - indexedAudit: the per-file audit, given (index, job).
    ///   - progress: called after each file with (done, total, result), serialised.
    /// - Returns: one result per job, in the jobs' order.
    public static func run(
        _ jobs: [AuditJob], workers: Int, indexedAudit audit: @escaping @Sendable (Int, AuditJob) -> FileResult,
        progress: @escaping @Sendable (Int, Int, FileResult) -> Void
    ) -> [FileResult] {
        struct Progress {
            var next = 0
            var done = 0
            var results: [FileResult?]
        }
        final class State: Sendable {
            let value: Mutex<Progress>
            init(_ n: Int) { value = Mutex(Progress(results: Array(repeating: nil, count: n))) }
        }
        let state = State(jobs.count)
        let n = max(1, min(workers, jobs.count))
        let group = DispatchGroup()
        for _ in 0..<n {
            group.enter()
            let t = Thread {
                while true {
                    let i: Int? = state.value.withLock { s in
                        guard s.next < jobs.count else { return nil }
                        defer { s.next += 1 }
                        return s.next
                    }
                    guard let i else { break }
                    let r = autoreleasepool { audit(i, jobs[i]) }
                    state.value.withLock { s in
                        s.results[i] = r
                        s.done += 1
                        progress(s.done, jobs.count, r)
                    }
                }
                group.leave()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        group.wait()
        return state.value.withLock { $0.results }.enumerated().map { i, r in r ?? FileResult(name: jobs[i].name) }
    }
}

#if !canImport(ObjectiveC)
    @inline(__always) func autoreleasepool<T>(_ body: () -> T) -> T { body() }
#endif
