import AVIFCodec
import Converter
import Exiv2Bridge
import Foundation
import HeifCodec
import Isolation
import RawDecoder
import ReportModel
import Store

/// The `readback` command line: `run(arguments:console:)` is what `main.swift` and the tests call.
public enum Readback {
    /// Every subcommand, in the order `--help` lists them.
    public static let commands: [any Subcommand] = [
        ConvertCommand(), AuditCommand(), MergeCommand(), InspectCommand(), DiffCommand(), HistoryCommand(),
        CorpusCommand(), CodesCommand(), CamerasCommand(),
    ]

    /// The versions of Readback and of each library, read from the libraries at run time.
    public static var versionReport: [(String, String)] {
        [
            ("readback", readbackVersion), ("libheif", Heif.version),
            ("LibRaw", "\(LibRaw.version) (\(LibRaw.cameras.count) cameras)"), ("exiv2", Exiv2.version),
            ("SQLite", SQLite.version), ("libavif", AVIFDecoder.shortVersion),
        ]
    }

    /// What Readback does, in one line: `--help`'s first line and the man page's NAME.
    static let tagline =
        "convert camera RAW to HEIC without losing anything, and prove it by reading every output back."
    /// The top-level usage lines (`--help` and the man page's SYNOPSIS).
    static let topUsage = ["readback <command> [options]", "readback <command> --help", "readback --version"]
    /// The notes that close `--help` (also in the man page).
    static let topNotes = [
        "Exit codes: 0 clean, 1 findings over the gate, 2 usage or I/O error.",
        "Colour is used only on a terminal and never when NO_COLOR is set.",
    ]

    static var topHelp: String {
        var lines = ["readback — " + tagline, ""]
        lines += topUsage.enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + $0.element }
        lines += ["", "Commands:"]
        let width = commands.map(\.name.count).max() ?? 0
        for c in commands {
            lines.append("  " + c.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + c.summary)
        }
        lines += [""] + topNotes
        return lines.joined(separator: "\n")
    }

    /// Runs one invocation. `arguments` excludes the program name.
    public static func run(arguments: [String], console: Console) -> ExitCode {
        guard let first = arguments.first else {
            console.error(topHelp)
            return .usageOrIO
        }
        switch first {
        case "help" where arguments.dropFirst().first == "--man":
            // Hidden: the man page, generated from the same tables as --help (`make install`, `make deb`).
            console.write(ManPage.render())
            return .clean
        case WorkerMain.argument:
            // Hidden: a decoder worker, started only by the worker pool (docs/security.md); never returns to here.
            exit(WorkerMain.run(Array(arguments.dropFirst())))
        case "completions":
            // Hidden: `readback completions bash|zsh` prints a completion script made from the option tables.
            return Completions.run(Array(arguments.dropFirst()), console: console)
        case "-h", "--help", "help":
            if first == "help", arguments.count > 1, let c = commands.first(where: { $0.name == arguments[1] }) {
                console.print(c.helpText)
            } else {
                console.print(topHelp)
            }
            return .clean
        case "--version", "version":
            for (name, v) in versionReport {
                console.print(name.padding(toLength: 9, withPad: " ", startingAt: 0) + v)
            }
            return .clean
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let what = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            console.error("readback: \(what)")
            console.error("Usage: readback <command> [options]. Run 'readback --help' for the commands.")
            return .usageOrIO
        }
        do {
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), specs: command.options)
            if parsed.helpRequested {
                console.print(command.helpText)
                return .clean
            }
            return try command.run(parsed, console: console)
        } catch let e as UsageError {
            console.error("readback \(command.name): \(e.message)")
            console.error("Usage: \(command.usage)")
            console.error("Run 'readback \(command.name) --help' for more.")
            return .usageOrIO
        } catch {
            console.error("readback \(command.name): \(describe(error))")
            return .usageOrIO
        }
    }

    /// One line for an error that is not a usage mistake.
    static func describe(_ error: any Error) -> String {
        "\(error)"
    }
}
