import Converter
import Findings
import Foundation
import Isolation
import ReportModel
import Sharding
import Synchronization

/// Everything a batch run needs, decoded from `readback convert`'s arguments.
public struct BatchConfiguration: Sendable {
    /// SRC arguments: files or folders.
    public var sources: [String]
    /// The output folder (`--out`).
    public var outputRoot: String
    /// The state database (`--db`); default `<out>/.readback/state.db`.
    public var databasePath: String?
    /// The converter's options, passed to every conversion.
    public var options: ConvertOptions
    /// Parallel jobs (`--jobs`); default from cores and free memory.
    public var jobs: Int?
    public var dryRun: Bool
    /// Present only when `--remove-originals` was given.
    public var removal: RemovalPermit?
    public var progress: ProgressStyle
    /// For the Trash location (`XDG_DATA_HOME`, `HOME`).
    public var environment: [String: String]
    /// `--shard K/N`: only the files of that shard, with the shard's own store and lock (docs/distributed.md).
    public var shard: Shard?
    /// `--retry-failed`: try again the files held back because a decoder or Readback itself crashed on them.
    public var retryFailed: Bool

    public init(
        sources: [String], outputRoot: String, databasePath: String? = nil, options: ConvertOptions = .init(),
        jobs: Int? = nil, dryRun: Bool = false, removal: RemovalPermit? = nil, progress: ProgressStyle = .plain,
        environment: [String: String] = ProcessInfo.processInfo.environment, shard: Shard? = nil,
        retryFailed: Bool = false
    ) {
        self.shard = shard
        self.retryFailed = retryFailed
        self.sources = sources
        self.outputRoot = outputRoot
        self.databasePath = databasePath
        self.options = options
        self.jobs = jobs
        self.dryRun = dryRun
        self.removal = removal
        self.progress = progress
        self.environment = environment
    }
}

/// What a run did.
public struct BatchSummary: Sendable, Equatable, Codable {
    public var event = "summary"
    public var total = 0
    public var clean = 0
    public var kept = 0
    public var failed = 0
    public var skipped = 0
    public var removed = 0
    /// Verified items whose original stayed because a check before removal failed.
    public var removalRefused = 0
    public var leftoverTempFilesRemoved = 0
    public var sourceBytes: Int64 = 0
    public var outputBytes: Int64 = 0
    public var seconds = 0.0
    /// Set when the run stopped early (disk full, store busy, unreadable source folder).
    public var fatalError: String?
    public var nothingToDo = false
    public var dryRun = false
    /// Failed files not tried again (counted in `failed`): a decoder crashed on them, or Readback did too often.
    public var notRetried: [NotRetried] = []

    /// A failed file held back, and the reason recorded for it.
    public struct NotRetried: Sendable, Equatable, Codable {
        public var source: String
        public var reason: String
    }

    /// Clean (0) all clean, findings (1) some kept/failed, usage or I/O (2) an I/O or store error stopped the run.
    public var exitStatus: ExitCode {
        if fatalError != nil { return .usageOrIO }
        if kept > 0 || failed > 0 || removalRefused > 0 || !notRetried.isEmpty { return .findings }
        return .clean
    }
}

/// The batch engine: plan, convert in parallel, read back and verify each output, then (only with a permit) remove
/// the verified originals in one step after all work has drained.
public final class BatchEngine: Sendable {
    let config: BatchConfiguration
    let converter: any ItemConverter
    let verifier: any OutputVerifier
    /// The run's decoders; each item gets its own (`forFile()`).
    let decoders: any Decoders
    let out: @Sendable (String) -> Void
    let err: @Sendable (String) -> Void

    /// - Parameters:
    ///   - out: receives progress text exactly as it should be written (lines end in "\n").
    ///   - err: receives one error line at a time (no newline).
    ///   - decoders: the run's decoders (the CLI's: in workers).
    public init(
        configuration: BatchConfiguration, converter: any ItemConverter, verifier: any OutputVerifier,
        decoders: any Decoders, out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void
    ) {
        self.config = configuration
        self.converter = converter
        self.verifier = verifier
        self.decoders = decoders
        self.out = out
        self.err = err
    }

    /// The default state database for an output folder: `.readback/state.db`, or for shard K of N its own
    /// `.readback/shard-K-of-N/state.db`, so shards writing into one folder never share a store or a lock.
    public static func defaultDatabasePath(outputRoot: String, shard: Shard? = nil) -> String {
        let folder = shard.map { ".readback/\($0.folderName)" } ?? ".readback"
        return (outputRoot as NSString).appendingPathComponent(folder + "/state.db")
    }

    /// The memory one job is planned with (bytes): `defaultJobs` divides the available memory by it, and a decoder
    /// worker's address-space cap derives from it.
    public static let memoryPerJob: Int64 = 1_000_000_000

    /// Jobs from cores and available memory, about 1 GB per job: room for a 50 MP RAW with its read-back audit, 10-bit
    /// output and sensors up to about 80 MP (measurements: docs/tiling.md).
    public static func defaultJobs(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        availableMemory: Int64? = BatchEngine.availableMemory()
    ) -> Int {
        let perJob = memoryPerJob
        let byMemory = availableMemory.map { Int(max(1, $0 / perJob)) } ?? cores
        return max(1, min(cores, byMemory))
    }

    /// `MemAvailable` from /proc/meminfo, in bytes.
    public static func availableMemory(meminfo: String? = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))
        -> Int64?
    {
        guard let meminfo else { return nil }
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int64(parts[1]) { return kb * 1024 }
        }
        return nil
    }

    /// Runs the batch to the end. Never throws: a fatal problem is in `fatalError` (exit 2).
    public func run() async -> BatchSummary {
        let t0 = Date()
        var summary = BatchSummary()
        summary.dryRun = config.dryRun
        do {
            try await runThrowing(&summary)
        } catch {
            summary.fatalError = error.oneLine
            err("readback convert: " + error.oneLine)
        }
        summary.seconds = (Date().timeIntervalSince(t0) * 100).rounded() / 100
        return summary
    }

    /// A planned unit of work.
    struct Planned: Sendable {
        var file: SourceFile
        var id: Int64
        var why: String
    }

    private func runThrowing(_ summary: inout BatchSummary) async throws {
        // 1. Output folder and store location; nothing is created in a dry run.
        let (outRoot, dbPath) = try locations()

        // 2. Discovery before anything is touched: a missing SRC is an I/O error. A shard discovers everything,
        //    then keeps its own part.
        let everything = try Discovery.discover(config.sources, outputRoot: outRoot)
        let found = config.shard.map { everything.restricted(to: $0) } ?? everything
        let style = config.progress
        let progress = ProgressReporter(style: style, out: out, clock: { Date().timeIntervalSince1970 })
        if let shard = config.shard {
            progress.note(
                "shard \(shard): \(found.files.count) of \(everything.files.count) file(s) (store \(dbPath))")
        }

        try refuseUnusableSources(found, dbPath: dbPath)
        warnSkippedSymlinks(found)

        if config.dryRun {
            try await dryRun(found: found, outRoot: outRoot, dbPath: dbPath, progress: progress, summary: &summary)
            return
        }

        // 3. One run per store: the lock, then the store (migrated once, at open).
        try FileOps.makeDirectories(outRoot)
        try FileOps.makeDirectories((dbPath as NSString).deletingLastPathComponent)
        let lock = try FileLock(path: dbPath + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let ledger = try Ledger(path: dbPath, progress: progress, exclusive: config.shard != nil)
        defer { CrashMarks.uninstall(CrashMarks.path(forStore: dbPath)) }

        // 4. A killed run's temp files go first (a shard's own only); sources gone since an earlier run are
        //    accounted for.
        try await begin(found, outRoot: outRoot, ledger: ledger, summary: &summary)
        // 5. Plan: new, changed, interrupted and failed items are (re)done; finished unchanged ones are skipped,
        //    and so are failed ones a decoder or Readback itself crashed on (unless --retry-failed).
        let (plan, work) = try await planAndSchedule(found.files, dbPath: dbPath, ledger: ledger, summary: &summary)
        var removalCandidates: [Int64] = []
        if config.removal != nil {
            removalCandidates = plan.compactMap { $0.why == nil && $0.record?.state == .verified ? $0.record?.id : nil }
        }
        summary.skipped = plan.count - work.count - summary.notRetried.count
        summary.total = found.files.count + found.problems.count

        // Verified items whose original is already gone (a run killed between the removal and its record).
        let alreadyGone = config.removal != nil ? try await originalsAlreadyGone(ledger: ledger) : []

        if work.isEmpty && removalCandidates.isEmpty && alreadyGone.isEmpty {
            summary.nothingToDo = true
            let text = Self.nothingToDo(
                files: found.files.count, plan: plan, notRetried: summary.notRetried.count,
                sharded: config.shard != nil)
            await ledger.note(text + " (store \(dbPath))")
            try await ledger.finishBatch(status: "nothing-to-do", summary: "skipped \(summary.skipped)")
            return
        }
        if summary.skipped > 0 {
            await ledger.note("skipping \(summary.skipped) file(s) already converted and unchanged")
        }

        // 6. Work, in parallel, bookkeeping in the ledger actor.
        if let fatal = await runWork(
            work, outRoot: outRoot, ledger: ledger, removalCandidates: &removalCandidates, summary: &summary)
        {
            try? await ledger.finishBatch(status: "stopped", summary: fatal)
            throw BatchError.refused(
                path: outRoot, reason: "stopped: \(fatal); no original was removed; run again when fixed")
        }

        // 7. Only now, with every item drained, and only with the permit: remove verified originals in one step.
        if let permit = config.removal {
            try await removeOriginals(
                permit: permit, alreadyGone: alreadyGone, candidates: removalCandidates, ledger: ledger,
                summary: &summary)
        }
        try await ledger.finishBatch(
            status: "done",
            summary: "clean \(summary.clean) kept \(summary.kept) failed \(summary.failed) skipped \(summary.skipped) "
                + "removed \(summary.removed)")
    }

    /// The canonical output folder and the store's path. Refuses an `--out` that exists and is not a folder (or a
    /// symlink to one).
    private func locations() throws -> (outRoot: String, dbPath: String) {
        let outAbs =
            config.outputRoot.hasPrefix("/")
            ? config.outputRoot : FileManager.default.currentDirectoryPath + "/" + config.outputRoot
        if let i = try FileOps.info(outAbs), i.isSymlink || !i.isDirectory {
            if !(i.isSymlink && FileOps.realPath(outAbs).flatMap { try? FileOps.info($0) }?.isDirectory == true) {
                throw BatchError.refused(path: outAbs, reason: "--out exists and is not a folder")
            }
        }
        let outRoot = FileOps.canonicalPath(outAbs)
        let dbPath =
            config.databasePath.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
            ?? Self.defaultDatabasePath(outputRoot: outRoot, shard: config.shard)
        return (outRoot, dbPath)
    }

    /// Names the symlinks discovery left alone: never silent, or a folder of links reads as "nothing to do".
    private func warnSkippedSymlinks(_ found: Discovery.Result) {
        guard let first = found.skippedSymlinks.first else { return }
        let n = found.skippedSymlinks.count
        err(
            "readback convert: warning: \(n) symlink\(n == 1 ? "" : "s") to RAW files left alone, e.g. \(first):"
                + " Readback never follows symlinks (it may remove originals); give the folder they point to")
    }

    /// An unusable SRC fails the run before anything is created. A missing one is accepted only when the store
    /// already knows it as an original it converted and removed (checked once the store is open).
    private func refuseUnusableSources(_ found: Discovery.Result, dbPath: String) throws {
        let storeExists = (try FileOps.info(dbPath)) != nil
        if let bad = found.argumentProblems.first(where: { !$0.missing || !storeExists }) {
            for p in found.argumentProblems { err("readback convert: \(p)") }
            throw bad.missing
                ? BatchError.io(path: bad.argument, operation: "find source", errno: ENOENT)
                : BatchError.refused(path: bad.argument, reason: bad.reason)
        }
    }

    /// Removes a killed run's temp files, accepts the missing sources the store removed earlier (any other missing
    /// source stops the run), reports discovery's problems as failures and opens the batch's record.
    private func begin(
        _ found: Discovery.Result, outRoot: String, ledger: Ledger, summary: inout BatchSummary
    ) async throws {
        let mine = config.shard.map { _ in Set(found.files.map(\.outputPath)) }
        let leftovers = try FileOps.removeTempFiles(under: outRoot, outputs: mine)
        summary.leftoverTempFilesRemoved = leftovers.count
        if !leftovers.isEmpty {
            await ledger.note("removed \(leftovers.count) temp file(s) left by an interrupted run")
        }

        for p in found.argumentProblems {
            guard try await ledger.item(sourcePath: p.path)?.state == .removed else {
                err("readback convert: \(p)")
                throw BatchError.io(path: p.argument, operation: "find source", errno: ENOENT)
            }
            await ledger.note("\(p.argument): already converted and removed by an earlier run")
        }
        for p in found.problems { err("readback convert: " + p) }
        summary.failed += found.problems.count

        let o = config.options
        try await ledger.beginBatch(
            outputRoot: outRoot,
            options: "quality=\(o.quality) depth=\(o.bitDepth) hdr=\(o.hdr.rawValue)",
            removal: config.removal?.mode)
    }

    /// Queues the files the plan (re)does, in plan order, and records the new mtime of unchanged sources.
    private func schedule(_ plan: [Planner.Entry], ledger: Ledger) async throws -> [Planned] {
        var work: [Planned] = []
        for e in plan {
            switch e.decision {
            case .redo(let why):
                work.append(Planned(file: e.file, id: try await ledger.enqueue(e.file), why: why))
            case .skip(let newMtimeNs):
                if let newMtimeNs, let rec = e.record {
                    try await ledger.touchUnchanged(id: rec.id, mtimeNs: newMtimeNs)
                }
            case .notRetried:
                break
            }
        }
        return work
    }

    /// Counts the attempts an earlier process left unfinished (an item still mid-attempt; too many and it is failed
    /// and held back), plans, queues the work and reports the held-back files.
    private func planAndSchedule(
        _ files: [SourceFile], dbPath: String, ledger: Ledger, summary: inout BatchSummary
    ) async throws -> (plan: [Planner.Entry], work: [Planned]) {
        // The crash marks an earlier process left are read before they are emptied for this run.
        let marks = CrashMarks.path(forStore: dbPath)
        try await ledger.recordAttemptsEndedByExit(crashed: CrashMarks.read(marks))
        try CrashMarks.install(marks)
        InFlight.setStore(path: dbPath, batchID: await ledger.batchID)
        let plan = try await Planner.plan(files, retryFailed: config.retryFailed) {
            try await ledger.item(sourcePath: $0)
        }
        let work = try await schedule(plan, ledger: ledger)
        await reportNotRetried(plan, ledger: ledger, summary: &summary)
        return (plan, work)
    }

    /// The line of a run with nothing to do: how many files stand, how many of them kept their original, and how
    /// many failed ones are held back.
    static func nothingToDo(files: Int, plan: [Planner.Entry], notRetried: Int, sharded: Bool = false) -> String {
        if files == 0 {
            return sharded
                ? "nothing to do: no RAW file of the sources falls in this shard"
                : "nothing to do: no RAW file was found in the sources"
        }
        var text =
            notRetried == 0
            ? "nothing to do: all \(files) file(s) are already converted and unchanged"
            : "nothing to do: \(files - notRetried) file(s) are already converted and unchanged"
        let keptEarlier = plan.filter { $0.why == nil && $0.record?.state == .kept }.count
        if keptEarlier > 0 { text += "; \(keptEarlier) of them kept their original (see the store)" }
        if notRetried > 0 { text += "; \(notRetried) failed file(s) not tried again (--retry-failed tries them)" }
        return text
    }

    /// Reports each failed file held back (one failed item line, or `--json` item event, with the reason) and counts
    /// it into `summary`.
    private func reportNotRetried(_ plan: [Planner.Entry], ledger: Ledger, summary: inout BatchSummary) async {
        for e in plan {
            guard let reason = e.notRetried else { continue }
            // A decoder's worker that died on the file is reason enough; the process's own ends are counted.
            let decoderDied = [FindingCode.decodeCrashed, .decodeTimeout, .decodeOutOfMemory].contains {
                reason.contains("\($0.code): ")
            }
            let count = decoderDied ? "" : ", \(Ledger.processEndLimit) attempts in a row"
            let why = "not tried again: \(reason)\(count); --retry-failed tries it again"
            summary.notRetried.append(.init(source: e.file.path, reason: why))
            summary.failed += 1
            await ledger.report(
                ItemOutcome(
                    source: e.file.path, relativeSource: e.file.relativePath, output: nil, relativeOutput: nil,
                    verdict: .failed, sourceBytes: e.file.size, error: why),
                countsTowardsTotal: false)
        }
    }

    /// Runs the planned items, `jobs` at a time, counting verdicts into `summary`; items that verify clean become
    /// removal candidates (with a permit). Returns the first fatal error, after which no further item starts.
    private func runWork(
        _ work: [Planned], outRoot: String, ledger: Ledger, removalCandidates: inout [Int64],
        summary: inout BatchSummary
    ) async -> String? {
        await ledger.beginProgress(total: work.count)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 200_000_000)
                await ledger.tick()
            }
        }
        let jobs = max(1, config.jobs ?? Self.defaultJobs())
        let worker = ItemWorker(
            converter: converter, verifier: verifier, decoders: decoders, options: config.options, outRoot: outRoot,
            ledger: ledger)
        var fatal: String?
        await withTaskGroup(of: (Planned, ItemOutcome, Bool).self) { group in
            var next = 0
            func addNext() {
                guard next < work.count else { return }
                let item = work[next]
                next += 1
                group.addTask { await worker.process(item) }
            }
            for _ in 0..<min(jobs, work.count) { addNext() }
            while let (item, outcome, isFatal) = await group.next() {
                Self.tally(
                    item, outcome, removal: config.removal != nil, summary: &summary,
                    removalCandidates: &removalCandidates)
                if isFatal, fatal == nil {
                    fatal = outcome.error ?? "fatal error"
                }
                if fatal == nil { addNext() }
            }
        }
        ticker.cancel()
        await ledger.endProgress()
        return fatal
    }
}

extension BatchEngine {
    /// Counts one finished item into `summary`; a clean one becomes a removal candidate when `removal` is on. Each
    /// task hands back the planned item it ran with its outcome, so the item's id is at hand: no search of the work
    /// list by path per item (which made a run quadratic in its files).
    static func tally(
        _ item: Planned, _ outcome: ItemOutcome, removal: Bool, summary: inout BatchSummary,
        removalCandidates: inout [Int64]
    ) {
        switch outcome.verdict {
        case .clean:
            summary.clean += 1
            if removal { removalCandidates.append(item.id) }
        case .kept: summary.kept += 1
        case .failed: summary.failed += 1
        case .removed: break
        }
        summary.sourceBytes += outcome.sourceBytes ?? 0
        summary.outputBytes += outcome.outputBytes ?? 0
    }
}

/// Runs blocking work on a plain thread so the cooperative pool (and the ledger actor) never starves.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        DispatchQueue.global(qos: .userInitiated).async {
            cont.resume(with: Result { try body() })
        }
    }
}

extension BatchEngine {
    /// Runs the batch from synchronous code (the CLI's `main`), blocking the calling thread until it ends.
    /// Call it from a plain thread, not from inside a Swift concurrency task.
    public func runBlocking() -> BatchSummary {
        final class Box: Sendable { let value = Mutex(BatchSummary()) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let err = self.err
        InFlight.installHandlers { err($0) }
        Task.detached {
            let summary = await self.run()
            box.value.withLock { $0 = summary }
            done.signal()
        }
        done.wait()
        return box.value.withLock { $0 }
    }
}
