import Batch
import Foundation
import Isolation
import Synchronization

/// The decoder workers of a run: `convert` and `audit` install a `WorkerPool` of `--jobs` workers for their
/// duration, so every LibRaw and libheif call on a file's bytes runs in a locked-down worker process
/// (docs/security.md). Only the `readback` binary itself can start workers: `main.swift` names it in `executable`;
/// the command line run in another process (the CLI tests) decodes in process.
public enum DecoderWorkers {
    /// The executable workers re-execute (`/proc/self/exe`, set by `main.swift` before any command runs); nil:
    /// decode in process.
    public static let executable = Mutex<String?>(nil)

    /// `--file-timeout SECONDS`, its help a sentence (convert's style) or not (audit's).
    static func option(sentence: Bool) -> OptionSpec {
        let text =
            "the time all of a file's decodes may take together, then decode.timeout (default: 30 s + 1 s per "
            + "million pixels)"
        return .value("file-timeout", "SECONDS", sentence ? text.prefix(1).uppercased() + text.dropFirst() + "." : text)
    }

    /// The run's decoders: a `WorkerPool` of `jobs` workers with `--file-timeout` from `args` (in process when this
    /// binary cannot start workers, or with `READBACK_DECODERS=in-process`, which `make bench` compares), and the
    /// function that ends the workers.
    /// With `READBACK_WORKER_STATS=1` the function prints, on `console`'s error stream, the workers started and the
    /// peak RSS of the parent and of the largest worker (`make bench`).
    /// With `prewarm`, the workers are started at once rather than at the first decode (a run that will decode).
    static func start(jobs: Int, args: ParsedArguments, console: Console, prewarm: Bool = false) throws(UsageError)
        -> (decoders: any Decoders, stop: () -> Void)
    {
        let environment = console.environment
        let timeout = try fileTimeout(args)
        var pool: WorkerPool?
        if let exe = executable.withLock({ $0 }), environment["READBACK_DECODERS"] != "in-process" {
            pool = WorkerPool(
                WorkerPool.Config(
                    executable: exe, size: jobs,
                    addressSpace: WorkerPool.addressSpace(perJob: BatchEngine.memoryPerJob),
                    timeout: WorkerPool.Timeout(fixed: timeout)))
            if prewarm { pool?.prewarm(jobs) }
        }
        let stats = environment["READBACK_WORKER_STATS"] == "1"
        let decoders: any Decoders = pool.map { WorkerDecoders(pool: $0) } ?? InProcessDecoders()
        return (
            decoders,
            { [pool] in
                pool?.shutdown()
                guard stats else { return }
                let rss = WorkerPool.peakRSS()
                let frames = pool?.rawFrames ?? (inPlace: 0, copied: 0)
                let grants = pool?.grants ?? (reused: 0, new: 0)
                console.error(
                    String(
                        format: "decoder workers: %d started; peak RSS: parent %.0f MB, largest worker %.0f MB; "
                            + "RAW frames: %d in place, %d copied; shared memory: %d kept grants reused, %d new",
                        pool?.started ?? 0, rss.parentMB, rss.largestWorkerMB, frames.inPlace, frames.copied,
                        grants.reused, grants.new))
            }
        )
    }

    static func fileTimeout(_ args: ParsedArguments) throws(UsageError) -> Double? {
        guard let raw = args.value("file-timeout") else { return nil }
        guard let s = Double(raw), s > 0, s <= 86_400 else {
            throw UsageError("--file-timeout takes seconds, more than 0 and at most 86400, not '\(raw)'")
        }
        return s
    }
}
