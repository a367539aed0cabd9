import Batch
import Foundation
import Isolation

/// The decoder workers of a run: `convert` and `audit` install a `WorkerPool` of `--jobs` workers for their
/// duration, so every LibRaw and libheif call on a file's bytes runs in a locked-down worker process
/// (docs/security.md). Only the `readback` binary itself can start workers: `main.swift` names it in `executable`;
/// the command line run in another process (the CLI tests) decodes in process.
public enum DecoderWorkers {
    /// The executable workers re-execute (`/proc/self/exe` from `main.swift`); nil: decode in process.
    nonisolated(unsafe) public static var executable: String?

    /// `--file-timeout SECONDS`.
    static let option = OptionSpec.value(
        "file-timeout", "SECONDS",
        "A decode running longer is killed: decode.timeout (default: 30 s + 1 s per million pixels).")

    /// Installs the pool for `jobs` workers, with `--file-timeout` from `args`; returns the function that removes it.
    /// `READBACK_DECODERS=in-process` keeps the decoders in this process (`make bench` compares the two).
    static func start(jobs: Int, args: ParsedArguments, environment: [String: String]) throws(UsageError) -> () -> Void
    {
        let timeout = try fileTimeout(args)
        guard let exe = executable, environment["READBACK_DECODERS"] != "in-process" else { return {} }
        let perJob = BatchEngine.memoryPerJob
        WorkerPool.shared = WorkerPool(
            WorkerPool.Config(
                executable: exe, size: jobs, addressSpace: WorkerPool.addressSpace(perJob: perJob),
                timeout: WorkerPool.Timeout(fixed: timeout)))
        return { WorkerPool.shared = nil }
    }

    static func fileTimeout(_ args: ParsedArguments) throws(UsageError) -> Double? {
        guard let raw = args.value("file-timeout") else { return nil }
        guard let s = Double(raw), s > 0, s <= 86_400 else {
            throw UsageError("--file-timeout takes seconds, more than 0 and at most 86400, not '\(raw)'")
        }
        return s
    }
}
