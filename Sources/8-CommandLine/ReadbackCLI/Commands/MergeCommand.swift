import Audit
import AuditHistory
import Findings
import Foundation
import ReportModel
import ReportWriting

/// `readback merge`: joins the reports of `audit --shard K/N` into one, gates it and records it.
struct MergeCommand: Subcommand {
    let name = "merge"
    let summary = "merge the shard reports of a sharded audit into one report; gate and record it"
    let usage = "readback merge REPORT_DIR... --report OUT [options]"
    let discussion = """
        Joins the reports that 'readback audit --shard K/N' wrote, one REPORT_DIR per shard, into one report.json,
        report.html and junit.xml in OUT, in the order one unsharded audit would list the files (docs/distributed.md).

        The set is checked before anything is written. Every report records its shard (run.shard) and the
        fingerprint of the whole source list (run.sourceList). The merge refuses, naming the shards, a set with a
        shard missing, a shard given twice, or a foreign shard (another N, another source list, another mode); and
        a file that is not in the shard that reported it. Merging too early therefore produces nothing.

        Each shard report is read one file at a time and the merged files are written as they come, so memory does
        not grow with the number of files. The gate (--fail-on, --baseline) applies to the merged result, as in
        'readback audit'; the merged run is recorded in the history database unless --no-history.

        Exit status: 0 clean, 1 the gate failed, 2 the set was refused, or a usage or I/O error.
        Example: readback merge reports/0 reports/1 reports/2 reports/3 --report reports/merged
        """
    let options: [OptionSpec] = [
        .value("report", "DIR", "write the merged report.json, report.html and junit.xml into DIR. Required."),
        .value("fail-on", "SEVERITY", "error|warning|known-loss|info: lowest severity that fails (default error)"),
        .value("baseline", "FILE", "an earlier report.json: fail only on regressions, list improvements"),
        .flag("quiet", "print only the summary, not the failing files"),
        .value("history-db", "PATH", "history database (default $XDG_STATE_HOME/readback/history.db)"),
        .flag("no-history", "do not record the merged run in the history database"),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard !args.positionals.isEmpty else { throw UsageError("give the shard report folders to merge") }
        guard let out = args.value("report") else { throw UsageError("--report DIR is required") }
        let failOn = try args.choice("fail-on", Severity.allCases.map(\.rawValue)).flatMap(Severity.init) ?? .error
        if args.has("no-history"), args.value("history-db") != nil {
            throw UsageError("--no-history and --history-db contradict each other")
        }
        let outURL = URL(fileURLWithPath: out)
        if let same = args.positionals.first(where: { Self.sameFolder($0, out) }) {
            throw UsageError("--report \(out) is also given as a shard report folder (\(same))")
        }
        let set: ShardSet
        do { set = try ShardSet(folders: args.positionals) } catch let r as ShardSet.Refusal {
            for line in r.problems { console.error("readback merge: refused: \(line)") }
            console.error("readback merge: nothing was written")
            return .usageOrIO
        } catch { throw IOFailure("\(error)") }

        let baseline = args.value("baseline").map { (url: URL(fileURLWithPath: $0), path: $0) }
        let progress = Progress(console: console, quiet: true, failOn: failOn)
        let quiet = args.has("quiet")
        let header: AuditReport
        do {
            header = try ShardMerge.merge(
                set, into: outURL, options: ShardMerge.Options(failOn: failOn, baseline: baseline),
                onFile: { f in if !quiet { progress.update(0, 0, f) } })
        } catch let r as ShardSet.Refusal {
            for line in r.problems { console.error("readback merge: refused: \(line)") }
            console.error("readback merge: nothing was written")
            return .usageOrIO
        } catch { throw IOFailure("\(outURL.path): \(error)") }

        if !args.has("no-history") {
            let path = args.value("history-db") ?? History.defaultPath(environment: console.environment)
            do {
                let stream = try ReportStream(path: outURL.appendingPathComponent("report.json").path)
                try History(path: path).record(header, files: { try stream.nextFile() })
            } catch {
                console.error("readback merge: warning: history not recorded in \(path): \(error)")
            }
        }
        console.print(
            "merged \(set.count) shard(s): \(header.summary.files) file(s) of \(set.sourceList.files) source(s) "
                + "into \(out)")
        AuditCommand().printSummary(header, console: console)
        return header.gateFails ? .findings : .clean
    }

    /// True when two paths name one existing folder (or are the same text).
    static func sameFolder(_ a: String, _ b: String) -> Bool {
        let ra = URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath().path
        let rb = URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath().path
        return ra == rb
    }
}
