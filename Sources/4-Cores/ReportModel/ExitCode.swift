/// Exit codes, documented in README.md: 0 clean, 1 findings over the gate, 2 usage or I/O error. The one exit
/// status: every command returns one, and a batch run's summary gives its own (`BatchSummary.exitStatus`).
public enum ExitCode: Int32, Sendable {
    case clean = 0
    case findings = 1
    case usageOrIO = 2
}
