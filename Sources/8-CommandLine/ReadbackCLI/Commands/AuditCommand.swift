import Audit
import AuditHistory
import Converter
import FileKinds
import Findings
import Foundation
import ReportModel
import ReportWriting
import Synchronization

/// `readback audit`: read outputs of any converter back, diff them against their sources, gate on the findings.
struct AuditCommand: Subcommand {
    let name = "audit"
    let summary = "audit outputs of any converter against their sources; JSON, HTML, JUnit reports"
    let usage = """
        readback audit SRC OUT [options]
               readback audit OUT [options]
               readback audit --sources DIR --outputs DIR [options]
               readback audit --pairs FILE [options]
               readback audit --outputs DIR [options]
               readback audit --print-policy [--profile NAME] [--policy FILE]
        """
    let discussion = """
        Reads every output back and checks it: the HEIF container (codes container.*, truncation as
        container.truncated with its offset), the gain maps in four parts (description, metadata, data, colour
        space; codes gainmap.*), HDR signalling (signalling.nclx-missing, signalling.bit-depth-mismatch), decoding of
        the primary image and the gain map (decode.*), and, when the source is known, the metadata diff field by field
        with each tag's value rule (metadata.lost, metadata.changed, metadata.rounded, metadata.reencoded,
        metadata.known-loss, metadata.known-loss-not-happened), the orientation by reader model, confirmed from
        pixels (orientation.changed, orientation.inconsistent, orientation.double-rotation), a gain map the source
        had (gainmap.missing) and the size ratio. 'readback diff SRC OUT' shows the same judgement field by field.
        The output's pixels are compared with the source's own rendering (a RAW's embedded preview, a HEIF's
        thumbnail, a JPEG itself) in CIELAB: render.blank, render.orientation, render.cast, render.exposure;
        render.no-reference (info) when the source has none.
        An output that is not HEIF (a JPEG or RAW audited as one) is output.not-heif (warning); its
        metadata and orientation are still judged, and a JPEG's gain map (MPF with Ultra HDR hdrgm XMP, ISO
        21496-1 APP2 blocks or Apple's XMP) part by part. A source's gain map in any container that the output
        lacks is gainmap.missing; one carried in another form is gainmap.form-changed (info).

        Pairing: SRC OUT audits one pair; OUT alone (a .heic/.heif/.hif/.avif/.jpg/.jpeg, or what --formats names)
        audits one output without its source, as --outputs does each file. --sources DIR --outputs DIR pairs files by
        relative folder and stem (extensions compared case-insensitively); a source without an output is a finding
        (output.missing), outputs without a source are listed. --pairs FILE reads SOURCE<TAB>OUTPUT lines
        (relative to the file's folder). --outputs DIR alone audits every .heic/.heif/.hif/.avif with no source
        (container, gain map, signalling). A link to a file is audited where it is, as the file it points to;
        links to folders are not followed, and a folder with nothing to audit says why on stderr.
        --formats heic,avif,jpeg chooses the outputs' formats (jpeg: .jpg/.jpeg, judged for gain-map completeness).

        Every finding has a stable code, a severity (error, warning, known-loss, info), one line of text and its
        evidence. The gate: exit 1 when a finding reaches --fail-on (default error); with --baseline, exit 1 only on
        regressions against that earlier report.json. Every run is stored in the history database (see
        'readback history') unless --no-history. Each output's sha256 is recorded in the report and the history
        (--hash sha256, the default: it identifies the exact file, as the real-world expectations key on it);
        --hash none skips it, so --no-decode reads each file only for its checks. Baselines and merge match files
        by name and work either way.

        --shard K/N audits only shard K of N: the pairs whose source's path relative to --sources (with --outputs
        alone: the output's path) hashes (SHA-256 mod N) to K, so audit shard K checks exactly what 'convert
        --shard K/N' wrote. The report records run.shard and a fingerprint of the whole source list; 'readback
        merge' joins the N reports into one. --shard auto reads Slurm, Kubernetes or GitLab (docs/distributed.md).
        Policy: the built-in profile 'default' unless --profile names another ('convert' is what 'readback
        convert' applies to its own outputs), with --policy FILE on top. --print-policy prints the profile's
        full text (and the file's, when given) and exits 0 (docs/policy.md).
        Example: readback audit --sources raw/ --outputs heic/ --report Reports/ --jobs 2
        """
    let options: [OptionSpec] = [
        .value("sources", "DIR", "folder of source files (with --outputs)"),
        .value("outputs", "DIR", "folder of outputs (.heic, .heif, .hif, .avif); alone: audit without sources"),
        .value("pairs", "FILE", "explicit pairs, one SOURCE<TAB>OUTPUT per line"),
        .value("formats", "LIST", "output formats read under --outputs: heic, avif, jpeg (default heic,avif)"),
        .value("policy", "FILE", "policy file: severities, fields that matter, known losses (docs/policy.md)"),
        .value("profile", "NAME", "built-in policy profile the file applies to: default or convert (default: default)"),
        .flag("print-policy", "print the policy's full text (the profile, then --policy FILE) and exit"),
        .value("report", "DIR", "write report.json, report.html and junit.xml into DIR"),
        .flag("no-thumbnails", "with --report: write no thumbnails (report.html shows none)"),
        .flag("html-single-file", "with --report: one self-contained report.html (thumbnails and every row inline)"),
        .value("fail-on", "SEVERITY", "error|warning|known-loss|info: lowest severity that fails (default error)"),
        .value("baseline", "FILE", "an earlier report.json: fail only on regressions, list improvements"),
        .flag("no-decode", "fast mode: no pixel decoding (no decode.* checks, no thumbnails)"),
        .value("hash", "ALGO", "sha256|none: each output's digest in the report and history (default sha256)"),
        .value("jobs", "N", "files audited in parallel (default: the number of cores)"),
        .flag("quiet", "print only the summary and failing files, no progress"),
        .value("history-db", "PATH", "history database (default $XDG_STATE_HOME/readback/history.db)"),
        .flag("no-history", "do not record this run in the history database"),
        DecoderWorkers.option(sentence: false),
        ShardOption.spec("sources (with --outputs alone: outputs)"),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        if args.has("print-policy") { return try Self.printPolicy(args, console: console) }
        let failOn = try args.choice("fail-on", Severity.allCases.map(\.rawValue)).flatMap(Severity.init) ?? .error
        let jobs = try args.int("jobs", in: 1...256) ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
        if args.has("no-history"), args.value("history-db") != nil {
            throw UsageError("--no-history and --history-db contradict each other")
        }
        let shard = try ShardOption.parse(args, environment: console.environment)
        if shard != nil, (1...2).contains(args.positionals.count) {
            throw UsageError(
                "--shard splits a folder or a pairs file, not one \(args.positionals.count == 2 ? "pair" : "file")")
        }
        var (pairing, mode, roots) = try Self.pairing(args)
        var shardRecords: (shard: ShardRecord, sourceList: SourceListRecord)?
        if let shard {
            let restricted = pairing.restricted(to: shard)
            pairing = restricted.pairing
            shardRecords = (restricted.shard, restricted.sourceList)
        }

        let (policy, baseline) = try Self.policyAndBaseline(args)
        for w in policy.warnings { console.error("readback audit: warning: \(w)") }
        let reportDir = args.value("report").map { URL(fileURLWithPath: $0) }
        if reportDir == nil, let flag = ["no-thumbnails", "html-single-file"].first(where: { args.has($0) }) {
            throw UsageError("--\(flag) needs --report DIR")
        }
        // Thumbnails are files in DIR/thumbs, written as each file is audited; an earlier run's are removed first.
        let folder = reportDir.map { ThumbnailFolder(reportDirectory: $0) }
        do { try folder?.clear() } catch {
            throw IOFailure("\(folder!.url.path): cannot remove the earlier thumbnails (\(error.localizedDescription))")
        }
        let thumbnails = folder != nil && !args.has("no-decode") && !args.has("no-thumbnails")
        let hash = try args.choice("hash", ["sha256", "none"]) ?? "sha256"
        let options = AuditOptions(
            policy: policy, decode: !args.has("no-decode"), thumbnails: thumbnails, jobs: jobs, failOn: failOn,
            digest: hash == "sha256" && (reportDir != nil || !args.has("no-history")))

        let (decoders, stopWorkers) = try DecoderWorkers.start(
            jobs: jobs, args: args, console: console, prewarm: options.decode)
        defer { stopWorkers() }
        let quiet = args.has("quiet")
        let progress = Progress(console: console, quiet: quiet, failOn: failOn)
        let tool = ToolInfo(version: readbackVersion)
        let libraries = Readback.versionReport.filter { $0.0 != "readback" }.map {
            LibraryVersion(name: $0.0, version: $0.1)
        }
        // Every option is valid by now: the warning never precedes a usage error.
        if pairing.jobs.isEmpty, let why = Self.nothingFound(args) { console.error("readback audit: warning: \(why)") }
        var report = Auditor.run(
            pairing, options: options, mode: mode, roots: roots, tool: tool, libraries: libraries, decoders: decoders,
            thumbnails: thumbnails ? folder : nil, progress: { done, total, r in progress.update(done, total, r) })
        progress.finish()
        report.run.shard = shardRecords?.shard
        report.run.sourceList = shardRecords?.sourceList
        if let baseline, let b = args.value("baseline") {
            report.baseline = Baseline.compare(old: baseline, current: report, path: b)
        }

        if let reportDir {
            if let e = folder?.firstError {
                console.error("readback audit: warning: some thumbnails were not written: \(e.localizedDescription)")
            }
            let html: ReportFiles.HTMLThumbnails = args.has("html-single-file") ? .inlined : .linked
            do { try ReportFiles.write(report, to: reportDir, html: html) } catch {
                throw IOFailure("\(reportDir.path): cannot write the reports (\(error.localizedDescription))")
            }
        }
        if !args.has("no-history") {
            let path = args.value("history-db") ?? History.defaultPath(environment: console.environment)
            do { try History(path: path).record(report) } catch {
                console.error("readback audit: warning: history not recorded in \(path): \(error)")
            }
        }
        if let s = report.run.shard, let list = report.run.sourceList {
            console.print(
                "shard \(s.index)/\(s.count): \(s.sources) of \(list.files) source(s); merge the shards' reports")
        }
        printSummary(report, console: console)
        return report.gateFails ? .findings : .clean
    }

    /// The `--profile` (else `default`) with the `--policy` file on top, and the `--baseline` report, read before any
    /// file is audited.
    static func policyAndBaseline(_ args: ParsedArguments) throws -> (Policy, AuditReport?) {
        let policy = try Self.policy(args).policy
        var baseline: AuditReport? = nil
        if let b = args.value("baseline") {
            guard let data = FileManager.default.contents(atPath: b) else {
                throw IOFailure("\(b): cannot read the baseline")
            }
            do { baseline = try AuditReport.decode(data) } catch { throw IOFailure("\(b): \(error)") }
        }
        return (policy, baseline)
    }

    /// The policy of the command line: the `--profile` (else `default`) with the `--policy` file on top, and the
    /// profile's name.
    static func policy(_ args: ParsedArguments) throws -> (policy: Policy, profile: String) {
        let name = try args.choice("profile", Policy.profileNames) ?? "default"
        // profileNames lists exactly the names profile(_:) knows.
        var policy = Policy.profile(name) ?? .builtIn
        if let p = args.value("policy") {
            do { policy = try Policy.load(path: p, base: policy) } catch { throw IOFailure(error.description) }
        }
        return (policy, name)
    }

    /// `--print-policy`: the profile's full text, then the `--policy` file's (checked first), exit 0.
    static func printPolicy(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        let pairing = ["sources", "outputs", "pairs", "report", "baseline"].filter { args.value($0) != nil }
        guard args.positionals.isEmpty, pairing.isEmpty else {
            throw UsageError("--print-policy prints the policy and audits nothing: give no files or folders")
        }
        let (_, name) = try policy(args)
        var text = Policy.profileText(name) ?? Policy.builtInText
        if let p = args.value("policy"), let file = FileManager.default.contents(atPath: p) {
            text += "\n# --policy \(p), applied on top:\n" + String(decoding: file, as: UTF8.self)
        }
        console.print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        return .clean
    }

    /// What to audit, from the command line: the jobs, the mode's name and the roots as given.
    static func pairing(_ args: ParsedArguments) throws -> (Pairing, AuditMode, [String: String]) {
        let pairing: Pairing
        let mode: AuditMode
        var roots: [String: String] = [:]
        let pos = args.positionals
        let src = args.value("sources")
        let out = args.value("outputs")
        let pairs = args.value("pairs")
        switch (pos.count, src, out, pairs) {
        case (2, nil, nil, nil):
            mode = .pair
            roots = ["source": pos[0], "output": pos[1]]
            let o = URL(fileURLWithPath: pos[1])
            guard FileManager.default.fileExists(atPath: pos[0]) else { throw IOFailure("\(pos[0]): no such file") }
            if pos.allSatisfy(Self.isFolder) {
                throw UsageError(
                    "\(pos[0]) and \(pos[1]) are folders: audit them with --sources \(pos[0]) --outputs \(pos[1])")
            }
            if let folder = pos.first(where: Self.isFolder) {
                throw UsageError(
                    "\(folder) is a folder: SRC OUT are two files (--sources DIR --outputs DIR pair folders)")
            }
            let exists = FileManager.default.fileExists(atPath: o.path)
            pairing = Pairing(
                jobs: [
                    AuditJob(
                        name: pos[1], source: URL(fileURLWithPath: pos[0]), output: exists ? o : nil,
                        sourceDisplay: pos[0], outputDisplay: exists ? pos[1] : nil)
                ], unmatchedOutputs: [])
        case (0, let s?, let o?, nil):
            mode = .directories
            roots = ["sources": s, "outputs": o]
            let ext = try outputExtensions(args)
            do {
                pairing = try Pairing.directories(
                    sources: URL(fileURLWithPath: s), outputs: URL(fileURLWithPath: o), extensions: ext)
            } catch {
                throw IOFailure(error.message)
            }
        case (0, nil, let o?, nil):
            mode = .outputsOnly
            roots = ["outputs": o]
            let ext = try outputExtensions(args)
            do { pairing = try Pairing.outputsOnly(URL(fileURLWithPath: o), extensions: ext) } catch {
                throw IOFailure(error.message)
            }
        case (0, nil, nil, let p?):
            mode = .pairsFile
            roots = ["pairs": p]
            guard let data = FileManager.default.contents(atPath: p), let text = String(data: data, encoding: .utf8)
            else {
                throw IOFailure("\(p): cannot read the pairs file")
            }
            do {
                pairing = try Pairing.pairsFile(
                    text, base: URL(fileURLWithPath: p).deletingLastPathComponent(), name: p)
            } catch { throw IOFailure(error.message) }
        case (let n, _, _, _) where n > 0 && (src != nil || out != nil || pairs != nil):
            throw UsageError("give either SRC OUT or --sources/--outputs/--pairs, not both")
        case (1, nil, nil, nil):
            (pairing, mode) = (try singleOutput(pos[0], args), .output)
            roots = ["output": pos[0]]
        case (let n, _, _, _) where n > 2:
            throw UsageError("expected SRC OUT, got \(n) files; use --pairs FILE or --sources/--outputs for many")
        case (0, _?, nil, _):
            throw UsageError("--sources needs --outputs")
        case (0, _, _, _?):
            throw UsageError("--pairs cannot be combined with --sources or --outputs")
        default:
            throw UsageError(
                "nothing to audit: give SRC OUT, --sources DIR --outputs DIR, --pairs FILE or --outputs DIR")
        }
        return (pairing, mode, roots)
    }

    static func isFolder(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// One output alone (`readback audit OUT`): judged as `--outputs` judges each file (container, gain map,
    /// signalling, decode).
    /// A file named alone is an output in any format `--formats` knows (a JPEG or AVIF share too), unless
    /// `--formats` narrows it; a folder's default stays the HEIF family and AVIF (its JPEGs may be sources).
    static func singleOutput(_ path: String, _ args: ParsedArguments) throws -> Pairing {
        let ext =
            args.value("formats") == nil ? FileKinds.anyOutput : try outputExtensions(args)
        guard ext.contains(Pairing.ext(path).lowercased()) else {
            throw UsageError(
                "a single file is audited alone only when it is an output (\(ext.sorted().joined(separator: ", "))"
                    + "); a source needs its output: SRC OUT")
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw IOFailure("\(path): no such file")
        }
        if isDir.boolValue { throw UsageError("\(path) is a folder: audit it with --outputs \(path)") }
        let name = (path as NSString).lastPathComponent
        return Pairing(
            jobs: [AuditJob(name: name, source: nil, output: URL(fileURLWithPath: path), outputDisplay: path)],
            unmatchedOutputs: [])
    }

    /// Why a folder run found nothing to audit, for a warning (nil when it is not a folder run): the folder's other
    /// files and what the scan left out, so an empty folder, a wrong `--formats` and a folder of links to folders
    /// are told apart instead of "0 files" passing in silence.
    static func nothingFound(_ args: ParsedArguments) -> String? {
        guard let o = args.value("outputs"), let scan = try? Pairing.scan(URL(fileURLWithPath: o)) else { return nil }
        let ext = (try? outputExtensions(args)) ?? Pairing.outputExtensions
        var why = "\(o) holds no output to audit (.\(ext.sorted().joined(separator: ", .")))"
        var parts: [String] = []
        if !scan.files.isEmpty { parts.append("\(scan.files.count) other file(s), e.g. \(scan.files[0])") }
        if !scan.skipped.isEmpty {
            parts.append(
                "\(scan.skipped.count) entr\(scan.skipped.count == 1 ? "y" : "ies") left out (links to folders or to"
                    + " nothing, devices, sockets), e.g. \(scan.skipped[0])")
        }
        if parts.isEmpty { parts.append("the folder is empty") }
        why += ": " + parts.joined(separator: "; ")
        if !scan.files.isEmpty && args.value("formats") == nil { why += "; --formats chooses other outputs" }
        return why
    }

    /// The output extensions `--formats` asks for (default: the HEIF family and AVIF).
    static func outputExtensions(_ args: ParsedArguments) throws -> Set<String> {
        guard let list = args.value("formats") else { return Pairing.outputExtensions }
        do { return try Pairing.extensions(formats: list) } catch { throw UsageError(error.message) }
    }

    func printSummary(_ r: AuditReport, console: Console) {
        let s = r.summary
        for name in r.unmatchedOutputs { console.print("output without source: \(name)") }
        var sev = Severity.allCases.compactMap { v -> String? in
            let n = s.findingsBySeverity[v.rawValue] ?? 0
            return n > 0 ? "\(n) \(v.rawValue)" : nil
        }.joined(separator: ", ")
        if sev.isEmpty { sev = "no findings" }
        let failed = s.failed > 0 ? console.color("\(s.failed) failed", "31") : "0 failed"
        console.print(
            "audited \(s.files) file(s): \(s.passed) passed, \(failed) (gate: \(r.run.failOn.rawValue)); \(sev)")
        if let b = r.baseline {
            console.print(
                "against baseline \(b.path): \(b.regressions.count) regression(s), \(b.improvements.count) improvement(s)"
            )
            for c in b.regressions { console.print("  regression: \(c.file): \(c.kind) \(c.subject)") }
            for c in b.improvements { console.print("  improvement: \(c.file): \(c.kind) \(c.subject)") }
        }
    }
}

/// An I/O problem reported as one line, exit 2.
struct IOFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Progress like `convert`: on a terminal one line redrawn in place; otherwise one plain line per file.
/// Failing files are always printed (also with --quiet), with their failing findings.
final class Progress: Sendable {
    let console: Console
    let quiet: Bool
    let failOn: Severity
    /// Whether a redrawn line is on the terminal, to be cleared at the end.
    private let drewLine = Mutex(false)

    init(console: Console, quiet: Bool, failOn: Severity) {
        self.console = console
        self.quiet = quiet
        self.failOn = failOn
    }

    func update(_ done: Int, _ total: Int, _ r: FileResult) {
        let failing = r.failures(failOn: failOn)
        if console.isTTY && !quiet {
            if !failing.isEmpty {
                console.write("\r\u{1B}[K")
                printFailure(r, failing)
            }
            console.write("\r\u{1B}[K[\(done)/\(total)] \(r.name)")
            drewLine.withLock { $0 = true }
            return
        }
        if !failing.isEmpty {
            printFailure(r, failing)
        } else if !quiet {
            console.print(
                "[\(done)/\(total)] \(r.name): pass\(r.findings.isEmpty ? "" : " (\(r.findings.count) finding(s) below the gate)")"
            )
        }
    }

    private func printFailure(_ r: FileResult, _ failing: [Finding]) {
        console.print("\(r.name): \(console.color("FAIL", "31"))")
        for f in failing {
            var line = "  \(f.severity.rawValue) \(f.code): \(f.message)"
            if let e = f.evidence { line += " (\(EvidenceText.describe(e)))" }
            console.print(line)
        }
    }

    func finish() {
        if drewLine.withLock({ $0 }) { console.write("\r\u{1B}[K") }
    }
}
