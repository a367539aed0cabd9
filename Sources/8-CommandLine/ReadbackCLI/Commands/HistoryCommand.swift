import AuditHistory
import Foundation
import ReportModel

/// `readback history`: recent audit runs and what changed between the last two.
struct HistoryCommand: Subcommand {
    let name = "history"
    let summary = "recent audit runs and what changed between them"
    let usage = "readback history [--limit N] [--history-db PATH]"
    let discussion = """
        Lists the most recent runs of 'readback audit' (newest first: id, start time, mode, files, passed, failed,
        errors, warnings, roots), then what changed between the last two runs: findings that are new, and findings
        that were fixed (matched by file name, code and field or item).

        The history is a SQLite database with tables runs, files and findings (docs/report-schema.md), at
        $XDG_STATE_HOME/readback/history.db, else ~/.local/state/readback/history.db. Query it directly, e.g.
          sqlite3 ~/.local/state/readback/history.db 'SELECT code, count(*) FROM findings GROUP BY code'
        Example: readback history --limit 5
        """
    let options: [OptionSpec] = [
        .value("limit", "N", "how many runs to list (default 10)"),
        .value("history-db", "PATH", "the history database (default $XDG_STATE_HOME/readback/history.db)"),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let limit = try args.int("limit", in: 1...10000) ?? 10
        let path = args.value("history-db") ?? History.defaultPath(environment: console.environment)
        guard FileManager.default.fileExists(atPath: path) else {
            console.print("no audit runs recorded yet (\(path) does not exist)")
            return .clean
        }
        let history: History
        let runs: [History.RunRow]
        do {
            history = try History(path: path)
            runs = try history.recentRuns(limit: max(limit, 2))
        } catch { throw IOFailure("\(path): \(error)") }
        if runs.isEmpty {
            console.print("no audit runs recorded yet in \(path)")
            return .clean
        }
        console.print("run  started               mode          files  passed  failed  errors  warnings  roots")
        for r in runs.prefix(limit) {
            console.print(
                pad(String(r.id), 4) + " " + pad(r.startedAt, 21) + " " + pad(r.mode, 13) + " " + lpad(r.files, 5) + " "
                    + lpad(r.passed, 7) + " " + lpad(r.failed, 7) + " " + lpad(r.errors, 7) + " " + lpad(r.warnings, 9)
                    + "  " + r.roots)
        }
        guard runs.count >= 2 else {
            console.print("")
            console.print("only one run recorded: nothing to compare yet")
            return .clean
        }
        let newer = runs[0]
        let older = runs[1]
        let changes: (new: [History.FindingKey], fixed: [History.FindingKey])
        do { changes = try history.changes(from: older.id, to: newer.id) } catch {
            throw IOFailure("\(path): \(error)")
        }
        console.print("")
        console.print(
            "changes from run \(older.id) to run \(newer.id): \(changes.new.count) new finding(s), \(changes.fixed.count) fixed"
        )
        for k in changes.new {
            console.print("  new    \(k.severity) \(k.code)  \(k.file)\(k.subject.isEmpty ? "" : "  \(k.subject)")")
        }
        for k in changes.fixed {
            console.print("  fixed  \(k.severity) \(k.code)  \(k.file)\(k.subject.isEmpty ? "" : "  \(k.subject)")")
        }
        return .clean
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s.padding(toLength: n, withPad: " ", startingAt: 0)
    }
    private func lpad(_ v: Int, _ n: Int) -> String {
        let s = String(v)
        return s.count >= n ? s : String(repeating: " ", count: n - s.count) + s
    }
}
