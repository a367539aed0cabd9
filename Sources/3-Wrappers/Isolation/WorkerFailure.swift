import Findings
import Foundation

/// How a decode in a worker process ended without an answer: the worker died (`crashed`), ran past its deadline
/// (`timeout`) or ran out of its address space (`outOfMemory`). The run goes on: the file gets a verdict and the pool
/// starts another worker. A `Decoders` call throws it as `DecodeFailure.worker`.
public struct WorkerFailure: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Killed by `signal`; `sandbox` when the seccomp filter stopped it (SIGSYS: a forbidden system call).
        case crashed(signal: Int32, sandbox: Bool)
        /// Exited on its own with `status` before answering.
        case exited(status: Int32)
        /// Still running after `seconds` (killed), or out of its CPU-time budget.
        case timeout(seconds: Double)
        /// Died at its address-space cap (`cap` bytes), or was killed by the kernel's out-of-memory killer.
        case outOfMemory(cap: UInt64)
    }

    public var kind: Kind
    /// The library call that was running, as the worker last reported it ("LibRaw unpack", "libheif decode item 1").
    public var stage: String
    /// A timeout of the file's whole budget (all its decodes together), not of one request.
    public var wholeFile: Bool

    public init(kind: Kind, stage: String, wholeFile: Bool = false) {
        self.kind = kind
        self.stage = stage
        self.wholeFile = wholeFile
    }

    public var description: String {
        switch kind {
        case .crashed(let signal, true):
            return "the decoder was stopped by its sandbox (\(Self.signalName(signal)): a forbidden system call, "
                + "a network socket, a new program or a file opened for writing) during \(stage)"
        case .crashed(let signal, false):
            return "the decoder crashed (\(Self.signalName(signal))) during \(stage)"
        case .exited(WorkerMain.lockdownFailed):
            return "the decoder's worker could not lock itself down (no_new_privs, rlimits or seccomp refused), "
                + "so nothing was decoded (docs/security.md)"
        case .exited(let status):
            return "the decoder's worker exited with status \(status) during \(stage)"
        case .timeout(let seconds) where wholeFile:
            return "the file's decodes took more than \(Self.seconds(seconds)) in all (--file-timeout); the last was "
                + "stopped during \(stage)"
        case .timeout(let seconds):
            return "the decoder did not finish within \(Self.seconds(seconds)) during \(stage) (--file-timeout)"
        case .outOfMemory(let cap):
            let gib = String(format: "%.1f GiB", Double(cap) / Double(1 << 30))
            return "the decoder ran out of memory (its \(gib) address-space cap) during \(stage)"
        }
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
    }

    /// SIGSEGV, SIGABRT… by number (Linux numbering).
    public static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[s] ?? "signal \(s)"
    }
}

extension FindingCode {
    /// The finding a decoder worker's failure is, in the converter's and the auditor's reports alike.
    public init(_ failure: WorkerFailure) {
        switch failure.kind {
        case .crashed, .exited: self = .decodeCrashed
        case .timeout: self = .decodeTimeout
        case .outOfMemory: self = .decodeOutOfMemory
        }
    }
}
