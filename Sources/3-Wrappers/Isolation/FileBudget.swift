import Synchronization

/// The time one file's decodes may take together (`--file-timeout`): every worker request made for the file (the
/// RAW's decode, the previews, the metadata, the read-back audit's primary, gain-map and reference decodes) draws on
/// the same allowance, so a file with many decodes cannot take the allowance many times over. Time spent between
/// requests (the parent's own rendering and encoding) and waiting for a free worker is not counted.
///
/// `WorkerDecoders.forFile()` makes one per file. The allowance is `--file-timeout`, or the default rule (30 s + 1 s per million pixels) for the largest pixel
/// count any of the file's requests reported so far.
public final class FileBudget: Sendable {
    private struct State {
        var spent: Double = 0
        var pixels: Int?
    }

    let timeout: WorkerPool.Timeout
    private let state = Mutex(State())

    init(timeout: WorkerPool.Timeout) { self.timeout = timeout }

    /// The whole file's allowance, seconds, given a request's pixel count (nil: not known).
    func allowance(pixels: Int?) -> Double {
        state.withLock { s in
            if let p = pixels { s.pixels = max(s.pixels ?? 0, p) }
            return timeout.seconds(pixels: s.pixels)
        }
    }

    /// Counts `seconds` of a request against the file.
    func charge(_ seconds: Double) {
        state.withLock { $0.spent += max(0, seconds) }
    }

    /// Seconds counted so far.
    var spent: Double { state.withLock { $0.spent } }
}
