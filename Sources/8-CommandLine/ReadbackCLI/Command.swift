import Foundation
import ReportModel
import Synchronization

/// Where a command writes. Injected so tests run commands in-process and read exact output.
public final class Console: Sendable {
    /// The two streams, written one call at a time.
    private let sinks: Mutex<(out: (String) -> Void, err: (String) -> Void)>
    /// True when standard output is a terminal (progress bars, colour).
    public let isTTY: Bool
    /// Colour is used only on a TTY and never when `NO_COLOR` is set.
    public let useColor: Bool
    public let environment: [String: String]

    public init(
        isTTY: Bool, environment: [String: String],
        out: sending @escaping (String) -> Void, err: sending @escaping (String) -> Void
    ) {
        self.isTTY = isTTY
        self.environment = environment
        self.useColor = isTTY && environment["NO_COLOR"] == nil
        sinks = Mutex((out, err))
    }

    /// The process's real standard output and error.
    public static func standard() -> Console {
        let env = ProcessInfo.processInfo.environment
        return Console(
            isTTY: isatty(STDOUT_FILENO) == 1, environment: env,
            out: { s in FileHandle.standardOutput.write(Data(s.utf8)) },
            err: { s in FileHandle.standardError.write(Data(s.utf8)) })
    }

    /// Writes a line (a newline is added) to standard output.
    public func print(_ s: String = "") { sinks.withLock { $0.out(s + "\n") } }
    /// Writes raw text to standard output, no newline added (progress redraws).
    public func write(_ s: String) { sinks.withLock { $0.out(s) } }
    /// Writes a line to standard error.
    public func error(_ s: String) { sinks.withLock { $0.err(s + "\n") } }

    /// Wraps `s` in an ANSI colour when colour is on.
    public func color(_ s: String, _ code: String) -> String {
        useColor ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}

/// A subcommand: one file each under Commands/.
public protocol Subcommand: Sendable {
    /// The word after `readback`.
    var name: String { get }
    /// One line for `readback --help`.
    var summary: String { get }
    /// The usage line(s), without the leading "Usage: ".
    var usage: String { get }
    /// A paragraph or two explaining what the command does, for `readback <command> --help`.
    var discussion: String { get }
    /// The options this command accepts.
    var options: [OptionSpec] { get }
    /// Runs the command with parsed arguments. Throw `UsageError` for usage mistakes.
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode
}

extension Subcommand {
    /// The full `--help` text.
    public var helpText: String {
        var lines = ["readback \(name) — \(summary)", "", "Usage: \(usage)", ""]
        lines.append(discussion)
        if !options.isEmpty {
            lines.append("")
            lines.append("Options:")
            let rendered =
                options.map { spec -> (String, String) in
                    switch spec.kind {
                    case .flag: return ("--\(spec.name)", spec.help)
                    case .value(let p): return ("--\(spec.name) \(p)", spec.help)
                    }
                } + [("-h, --help", "Show this help.")]
            let width = min(28, rendered.map(\.0.count).max() ?? 0)
            for (left, help) in rendered {
                if left.count > width {
                    lines.append("  \(left)")
                    lines.append("  " + String(repeating: " ", count: width) + "  \(help)")
                } else {
                    lines.append("  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(help)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
