import Synchronization

/// The time one file's decodes may take together (`--file-timeout`): every worker request made for the file (the
/// RAW's decode, the previews, the metadata, the read-back audit's primary, gain-map and reference decodes) draws on
/// the same allowance, so a file with many decodes cannot take the allowance many times over. Time spent between
/// requests (the parent's own rendering and encoding) and waiting for a free worker is not counted.
///
/// The allowance is `--file-timeout`, or the default rule (30 s + 1 s per million pixels) for the largest pixel
/// count any of the file's requests reported so far.
public final class FileBudget: Sendable {
    private struct State {
        var spent: Double = 0
        var pixels: Int?
    }

    let timeout: WorkerPool.Timeout
    private let state = Mutex(State())

    public init(timeout: WorkerPool.Timeout) { self.timeout = timeout }

    /// The budget of the file being worked on by this thread or task; nil: each request has its own deadline.
    @TaskLocal public static var current: FileBudget?

    /// Runs `body` as the work on one file: its worker requests share one budget from the installed pool's timeout
    /// (with no pool, decodes run in process and `body` simply runs).
    public static func perFile<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let pool = WorkerPool.shared else { return try body() }
        return try perFile(FileBudget(timeout: pool.config.timeout), body)
    }

    /// Runs `body` with `budget` as the current file's (a file whose work runs on several threads passes its budget
    /// to each).
    public static func perFile<T, E: Error>(_ budget: FileBudget?, _ body: () throws(E) -> T) throws(E) -> T {
        var result: Result<T, E>!
        $current.withValue(budget) {
            do throws(E) { result = .success(try body()) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// A budget for one file from the installed pool's timeout; nil with no pool.
    public static func forFile() -> FileBudget? { WorkerPool.shared.map { FileBudget(timeout: $0.config.timeout) } }

    /// The whole file's allowance, seconds, given a request's pixel count (nil: not known).
    func allowance(pixels: Int?) -> Double {
        state.withLock { s in
            if let p = pixels { s.pixels = max(s.pixels ?? 0, p) }
            return timeout.seconds(pixels: s.pixels)
        }
    }

    /// What is left of the allowance for a request reporting `pixels`, seconds (≤ 0: spent).
    func remaining(pixels: Int?) -> Double {
        let all = allowance(pixels: pixels)
        return state.withLock { all - $0.spent }
    }

    /// Counts `seconds` of a request against the file.
    func charge(_ seconds: Double) {
        state.withLock { $0.spent += max(0, seconds) }
    }

    /// Seconds counted so far.
    public var spent: Double { state.withLock { $0.spent } }
}
