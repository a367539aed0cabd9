import Converter
import Digest
import Foundation

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

    public init(
        sources: [String], outputRoot: String, databasePath: String? = nil, options: ConvertOptions = .init(),
        jobs: Int? = nil, dryRun: Bool = false, removal: RemovalPermit? = nil, progress: ProgressStyle = .plain,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
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

    /// 0 all clean, 1 some kept/failed, 2 an I/O or store error stopped the run.
    public var exitStatus: Int32 {
        if fatalError != nil { return 2 }
        if kept > 0 || failed > 0 || removalRefused > 0 { return 1 }
        return 0
    }
}

/// The batch engine: plan, convert in parallel, read back and verify each output, then (only with a permit) remove
/// the verified originals in one step after all work has drained.
public final class BatchEngine: Sendable {
    let config: BatchConfiguration
    let converter: any ItemConverter
    let verifier: any OutputVerifier
    let out: @Sendable (String) -> Void
    let err: @Sendable (String) -> Void

    /// - Parameters:
    ///   - out: receives progress text exactly as it should be written (lines end in "\n").
    ///   - err: receives one error line at a time (no newline).
    public init(
        configuration: BatchConfiguration, converter: any ItemConverter, verifier: any OutputVerifier,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void
    ) {
        self.config = configuration
        self.converter = converter
        self.verifier = verifier
        self.out = out
        self.err = err
    }

    /// The default state database for an output folder.
    public static func defaultDatabasePath(outputRoot: String) -> String {
        (outputRoot as NSString).appendingPathComponent(".readback/state.db")
    }

    /// Jobs from cores and available memory. Measured with the streaming tiled converter (docs/tiling.md): a 24 MP
    /// RAW peaks at 0.35 GB and a 50 MP RAW at 0.64 GB per job, read-back audit included; four 24 MP RAWs with two
    /// jobs peak at 0.87 GB for the process (the heap `readback` keeps for reuse, `AllocatorTuning`, included); 1 GB
    /// per job leaves room for 10-bit output and sensors up to about 80 MP.
    public static func defaultJobs(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        availableMemory: Int64? = BatchEngine.availableMemory()
    ) -> Int {
        let perJob: Int64 = 1_000_000_000
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
            ?? Self.defaultDatabasePath(outputRoot: outRoot)

        // 2. Discovery before anything is touched: a missing SRC is an I/O error.
        let found = try Discovery.discover(config.sources, outputRoot: outRoot)
        let style = config.progress
        let progress = ProgressReporter(style: style, out: out, clock: { Date().timeIntervalSince1970 })

        // An unusable SRC fails the run before anything is created. A missing one is accepted only when the store
        // already knows it as an original it converted and removed (checked once the store is open).
        let storeExists = (try FileOps.info(dbPath)) != nil
        if let bad = found.argumentProblems.first(where: { !$0.missing || !storeExists }) {
            for p in found.argumentProblems { err("readback convert: \(p)") }
            throw bad.missing
                ? BatchError.io(path: bad.argument, operation: "find source", errno: ENOENT)
                : BatchError.refused(path: bad.argument, reason: bad.reason)
        }

        if config.dryRun {
            try await dryRun(found: found, outRoot: outRoot, dbPath: dbPath, progress: progress, summary: &summary)
            return
        }

        // 3. One run per store: the lock, then the store (migrated once, at open).
        try FileOps.makeDirectories(outRoot)
        try FileOps.makeDirectories((dbPath as NSString).deletingLastPathComponent)
        let lock = try FileLock(path: dbPath + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let ledger = try Ledger(path: dbPath, progress: progress)

        // 4. A killed run's temp files go first.
        let leftovers = try FileOps.removeTempFiles(under: outRoot)
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
            outputRoot: outRoot, options: "quality=\(o.quality) depth=\(o.bitDepth) hdr=\(o.hdr.rawValue)",
            removal: config.removal?.mode)

        // 5. Plan: new, changed, interrupted and failed items are (re)done; finished unchanged ones are skipped.
        var work: [Planned] = []
        var removalCandidates: [Int64] = []
        var skipped = 0
        var keptEarlier = 0
        for f in found.files {
            let rec = try await ledger.item(sourcePath: f.path)
            if let why = try await needsWork(f, rec, ledger: ledger) {
                work.append(Planned(file: f, id: try await ledger.enqueue(f), why: why))
            } else {
                skipped += 1
                if rec?.state == .kept { keptEarlier += 1 }
                if rec?.state == .verified, config.removal != nil, let rec { removalCandidates.append(rec.id) }
            }
        }
        summary.skipped = skipped
        summary.total = found.files.count + found.problems.count

        // Verified items whose original is already gone (a run killed between the removal and its record).
        var alreadyGone: [ItemRecord] = []
        if config.removal != nil {
            for rec in try await ledger.items(in: .verified) where (try FileOps.info(rec.sourcePath)) == nil {
                if let o = try FileOps.info(rec.outputPath), o.isRegular, o.size == rec.outputSize {
                    alreadyGone.append(rec)
                }
            }
        }

        if work.isEmpty && removalCandidates.isEmpty && alreadyGone.isEmpty {
            summary.nothingToDo = true
            var text = "nothing to do: all \(found.files.count) file(s) are already converted and unchanged"
            if keptEarlier > 0 { text += "; \(keptEarlier) of them kept their original (see the store)" }
            await ledger.note(text + " (store \(dbPath))")
            try await ledger.finishBatch(status: "nothing-to-do", summary: "skipped \(skipped)")
            return
        }
        if skipped > 0 {
            await ledger.note("skipping \(skipped) file(s) already converted and unchanged")
        }

        // 6. Work, in parallel, bookkeeping in the ledger actor.
        await ledger.beginProgress(total: work.count)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 200_000_000)
                await ledger.tick()
            }
        }
        let jobs = max(1, config.jobs ?? Self.defaultJobs())
        var fatal: String?
        await withTaskGroup(of: (Planned, ItemOutcome, Bool).self) { group in
            var next = 0
            func addNext() {
                guard next < work.count else { return }
                let item = work[next]
                next += 1
                group.addTask { [self] in
                    await self.process(item, outRoot: outRoot, ledger: ledger)
                }
            }
            for _ in 0..<min(jobs, work.count) { addNext() }
            while let (_, outcome, isFatal) = await group.next() {
                switch outcome.verdict {
                case .clean:
                    summary.clean += 1
                    if config.removal != nil, let id = work.first(where: { $0.file.path == outcome.source })?.id {
                        removalCandidates.append(id)
                    }
                case .kept: summary.kept += 1
                case .failed: summary.failed += 1
                default: break
                }
                summary.sourceBytes += outcome.sourceBytes ?? 0
                summary.outputBytes += outcome.outputBytes ?? 0
                if isFatal, fatal == nil {
                    fatal = outcome.error ?? "fatal error"
                }
                if fatal == nil { addNext() }
            }
        }
        ticker.cancel()
        await ledger.endProgress()

        if let fatal {
            try? await ledger.finishBatch(status: "stopped", summary: fatal)
            throw BatchError.refused(
                path: outRoot, reason: "stopped: \(fatal); no original was removed; run again when fixed")
        }

        // 7. Only now, with every item drained, and only with the permit: remove verified originals in one step.
        if let permit = config.removal {
            for rec in alreadyGone {
                try await ledger.markRemoved(id: rec.id, how: nil, trashedTo: nil, note: "original already gone")
                summary.removed += 1
            }
            try await removeVerified(ids: removalCandidates, permit: permit, ledger: ledger, summary: &summary)
        }
        try await ledger.finishBatch(
            status: "done",
            summary: "clean \(summary.clean) kept \(summary.kept) failed \(summary.failed) skipped \(summary.skipped) "
                + "removed \(summary.removed)")
    }

    /// Why `file` needs (re)doing, or `nil` when its finished result still stands.
    private func needsWork(_ f: SourceFile, _ rec: ItemRecord?, ledger: Ledger) async throws -> String? {
        guard let rec else { return "new" }
        switch rec.state {
        case .pending, .converting, .written: return "interrupted"
        case .failed: return "failed before"
        case .verified, .kept, .removed:
            if rec.outputPath != f.outputPath { return "output path changed" }
            if rec.size != f.size { return "source changed" }
            if rec.mtimeNs != f.mtimeNs {
                let h = try await offload { try SHA256.hex(ofFileAt: f.path) }
                if h != rec.hash { return "source changed" }
                try await ledger.touchUnchanged(id: rec.id, mtimeNs: f.mtimeNs)
            }
            if rec.state != .removed {
                guard let o = try FileOps.info(rec.outputPath), o.isRegular else { return "output missing" }
                if let s = rec.outputSize, s != o.size { return "output changed" }
            }
            return nil
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

    /// Converts, publishes, reads back and verifies one item. Returns its outcome and whether the error is fatal.
    private func process(_ item: Planned, outRoot: String, ledger: Ledger) async -> (Planned, ItemOutcome, Bool) {
        let f = item.file
        let start = Date()
        let relOut = String(f.outputPath.dropFirst(outRoot.count + 1))
        func outcome(
            _ verdict: ItemOutcome.Verdict, _ state: ItemState, outputBytes: Int64? = nil, reasons: [String] = [],
            losses: [String] = [], error: String? = nil
        ) -> ItemOutcome {
            var o = ItemOutcome(
                source: f.path, relativeSource: f.relativePath, output: f.outputPath, relativeOutput: relOut,
                verdict: verdict, state: state, sourceBytes: f.size, outputBytes: outputBytes,
                seconds: Date().timeIntervalSince(start), reasons: reasons, knownLosses: losses, error: error)
            if !stages.isEmpty { o.stages = stages.mapValues { ($0 * 1000).rounded() / 1000 } }
            return o
        }
        var stages: [String: Double] = [:]
        var lapStart = DispatchTime.now().uptimeNanoseconds
        func lap(_ name: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            stages[name, default: 0] += Double(now - lapStart) / 1e9
            lapStart = now
        }
        var temp: String?
        do {
            guard let now = try FileOps.info(f.path), now.isRegular else {
                throw BatchError.refused(path: f.path, reason: "source vanished or is no longer a regular file")
            }
            try await ledger.markConverting(id: item.id, size: now.size, mtimeNs: now.mtimeNs)
            // The source's fingerprint is taken while the converter runs (LibRaw's single-threaded decode leaves a
            // core idle); it is first needed when the written output is recorded.
            async let fingerprint = offload { try SHA256.hex(ofFileAt: f.path) }
            try FileOps.makeDirectories((f.outputPath as NSString).deletingLastPathComponent)
            let t = FileOps.tempPath(for: f.outputPath)
            temp = t
            InFlight.add(t)
            defer { InFlight.remove(t) }
            let converter = self.converter
            let options = config.options
            let result = try await offload {
                try converter.convert(
                    source: URL(fileURLWithPath: f.path), to: URL(fileURLWithPath: t), options: options)
            }
            stages.merge(result.timings.filter { $0.key != "total" }) { a, _ in a }
            lapStart = DispatchTime.now().uptimeNanoseconds
            guard let written = try FileOps.info(t), written.isRegular, written.size > 0 else {
                throw BatchError.refused(path: f.path, reason: "the converter reported success but wrote no output")
            }
            let hash = try await fingerprint
            lap("hash")
            try FileOps.publish(temp: t, final: f.outputPath)
            temp = nil
            try await ledger.markWritten(id: item.id, hash: hash)
            lap("publish")

            // Read back and audit the file as it now is under its final name.
            let verifier = self.verifier
            let verdict: VerificationResult
            do {
                verdict = try await offload {
                    try verifier.verify(
                        source: URL(fileURLWithPath: f.path), output: URL(fileURLWithPath: f.outputPath))
                }
            } catch {
                verdict = .failed(reason: "audit could not run: \(error.oneLine)")
            }
            lap("audit")
            let after = try FileOps.info(f.path)
            let o: ItemOutcome
            let summaryText: String?
            if after?.size != now.size || after?.mtimeNs != now.mtimeNs {
                o = outcome(.kept, .kept, outputBytes: written.size, reasons: ["source changed during conversion"])
                summaryText = nil
            } else {
                switch verdict {
                case .clean(let s):
                    o = outcome(.clean, .verified, outputBytes: written.size, losses: result.knownLosses)
                    summaryText = s
                case .partial(let reasons, let s):
                    o = outcome(
                        .kept, .kept, outputBytes: written.size,
                        reasons: [
                            "original kept: " + (reasons.isEmpty ? "partial result" : reasons.joined(separator: "; "))
                        ],
                        losses: result.knownLosses)
                    summaryText = s
                case .failed(let reason):
                    // A broken output is not left under its final name.
                    FileOps.removeIfPresent(f.outputPath)
                    try? FileOps.fsyncDirectory((f.outputPath as NSString).deletingLastPathComponent)
                    o = outcome(.failed, .failed, error: "verification failed: \(reason)")
                    summaryText = nil
                }
            }
            try await ledger.finish(
                id: item.id, state: ItemState(rawValue: o.state) ?? .failed, outcome: o,
                auditSummary: summaryText)
            return (item, o, false)
        } catch {
            if let temp { FileOps.removeIfPresent(temp) }
            let o = outcome(.failed, .failed, error: error.oneLine)
            let fatal = error.isFatalForBatch
            do {
                try await ledger.finish(id: item.id, state: .failed, outcome: o, auditSummary: nil)
            } catch {
                return (item, o, true)
            }
            return (item, o, fatal)
        }
    }

    /// The single removal step: re-checks each verified item, then trashes or deletes its original.
    private func removeVerified(
        ids: [Int64], permit: RemovalPermit, ledger: Ledger, summary: inout BatchSummary
    ) async throws {
        let verified = try await ledger.items(in: .verified)
        let wanted = Set(ids)
        for rec in verified where wanted.contains(rec.id) {
            let display =
                (rec.sourcePath.hasPrefix(rec.sourceRoot + "/"))
                ? String(rec.sourcePath.dropFirst(rec.sourceRoot.count + 1)) : rec.sourcePath
            var refusal: String?
            if let s = try FileOps.info(rec.sourcePath), s.isRegular, !s.isSymlink {
                if s.size != rec.size || s.mtimeNs != rec.mtimeNs {
                    refusal = "source changed since it was converted"
                } else {
                    let h = try await offload { try SHA256.hex(ofFileAt: rec.sourcePath) }
                    if h != rec.hash { refusal = "source content changed since it was converted" }
                }
            } else {
                refusal = "source is no longer a regular file"
            }
            if refusal == nil {
                if let o = try FileOps.info(rec.outputPath), o.isRegular, o.size == rec.outputSize {
                } else {
                    refusal = "output missing or changed since it was verified"
                }
            }
            if let refusal {
                try await ledger.markKept(id: rec.id, reason: "original kept: \(refusal)")
                summary.removalRefused += 1
                await ledger.report(
                    ItemOutcome(
                        source: rec.sourcePath, relativeSource: display, output: rec.outputPath, relativeOutput: nil,
                        verdict: .kept, state: .kept, reasons: ["original kept: \(refusal)"]),
                    countsTowardsTotal: false)
                continue
            }
            do {
                let env = config.environment
                let r = try await offload {
                    try removeOriginal(path: rec.sourcePath, root: rec.sourceRoot, permit: permit, environment: env)
                }
                try await ledger.markRemoved(id: rec.id, how: r.how, trashedTo: r.trashedTo, note: nil)
                summary.removed += 1
                await ledger.report(
                    ItemOutcome(
                        source: rec.sourcePath, relativeSource: display, output: rec.outputPath, relativeOutput: nil,
                        verdict: .removed, state: .removed, trashedTo: r.trashedTo),
                    countsTowardsTotal: false)
            } catch {
                // The original is still in place (every removal path fails before touching it or leaves it); the
                // item stays verified so a later run retries.
                summary.removalRefused += 1
                err("readback convert: could not remove \(rec.sourcePath): \(error.oneLine); it stays in place")
            }
        }
    }

    /// `--dry-run`: the plan and an estimate from converting a small sample into a scratch folder.
    private func dryRun(
        found: Discovery.Result, outRoot: String, dbPath: String, progress: ProgressReporter,
        summary: inout BatchSummary
    ) async throws {
        for p in found.problems { err("readback convert: " + p) }
        for p in found.argumentProblems { err("readback convert: \(p) (converted and removed earlier?)") }
        var records: [String: ItemRecord] = [:]
        if (try FileOps.info(dbPath)) != nil {
            let ledger = try Ledger(
                path: dbPath, progress: ProgressReporter(style: .quiet, out: { _ in }, clock: { 0 }))
            for r in try await ledger.allItems() { records[r.sourcePath] = r }
        }
        var convert: [SourceFile] = []
        var skip: [SourceFile] = []
        var remove: [SourceFile] = []
        for f in found.files {
            let rec = records[f.path]
            var changed = true
            if let rec, [.verified, .kept, .removed].contains(rec.state), rec.size == f.size,
                rec.outputPath == f.outputPath
            {
                changed = rec.mtimeNs != f.mtimeNs ? (try SHA256.hex(ofFileAt: f.path)) != rec.hash : false
                if rec.state != .removed, (try FileOps.info(rec.outputPath)) == nil { changed = true }
            }
            if changed {
                convert.append(f)
                if config.removal != nil { remove.append(f) }
            } else {
                skip.append(f)
                if rec?.state == .verified, config.removal != nil { remove.append(f) }
            }
        }
        func line(_ s: String) { if config.progress != .json { out(s + "\n") } }
        func mb(_ b: Int64) -> String { String(format: "%.1f MB", Double(b) / 1_000_000) }
        for f in convert {
            line("would convert  \(f.relativePath) → \(String(f.outputPath.dropFirst(outRoot.count + 1)))")
        }
        for f in skip { line("would skip     \(f.relativePath) (already converted, unchanged)") }
        for f in remove {
            line(
                "would remove   \(f.relativePath) (\(config.removal!.mode == .trash ? "to trash" : "delete"), once verified)"
            )
        }
        // Estimate from a small sample (up to 3 files, spread over the list), converted in a scratch folder.
        let convertBytes = convert.reduce(Int64(0)) { $0 + $1.size }
        var ratio: Double?
        if !convert.isEmpty {
            let n = min(3, convert.count)
            let sample = (0..<n).map { convert[$0 * convert.count / n] }
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "readback-dryrun-\(UUID().uuidString)")
            try FileOps.makeDirectories(scratch.path)
            defer { try? FileManager.default.removeItem(at: scratch) }
            var inB: Int64 = 0
            var outB: Int64 = 0
            for (i, f) in sample.enumerated() {
                let target = scratch.appendingPathComponent("sample-\(i).heic")
                do {
                    let converter = self.converter
                    let options = config.options
                    _ = try await offload {
                        try converter.convert(source: URL(fileURLWithPath: f.path), to: target, options: options)
                    }
                    if let o = try FileOps.info(target.path) {
                        inB += f.size
                        outB += o.size
                    }
                } catch {
                    err("readback convert: sample \(f.relativePath) failed to convert: \(error.oneLine)")
                }
            }
            if inB > 0 { ratio = Double(outB) / Double(inB) }
        }
        let removeBytes = remove.reduce(Int64(0)) { $0 + $1.size }
        let estOut = ratio.map { Int64(Double(convertBytes) * $0) }
        summary.total = found.files.count + found.problems.count
        summary.skipped = skip.count
        summary.sourceBytes = convertBytes
        summary.outputBytes = estOut ?? 0
        line("")
        line(
            "dry run: \(convert.count) to convert (\(mb(convertBytes))), \(skip.count) to skip, "
                + "\(remove.count) original(s) to remove (\(mb(removeBytes))); nothing was touched")
        if let ratio, let estOut {
            let reclaimed = removeBytes - estOut
            line(
                String(
                    format: "estimate from a %d-file sample: outputs ≈ %.2f× the RAW size, ≈ %@ written",
                    min(3, convert.count), ratio, mb(estOut)))
            if config.removal != nil {
                line("space reclaimed after removing originals ≈ \(mb(max(0, reclaimed)))")
            } else {
                line("originals are kept (no --remove-originals): no space reclaimed")
            }
        } else if config.removal != nil {
            line("space reclaimed after removing originals ≈ \(mb(removeBytes)) (nothing to convert)")
        }
        struct Plan: Encodable, Sendable {
            var event = "dry-run"
            var convert: [String]
            var skip: [String]
            var remove: [String]
            var convertBytes: Int64
            var estimatedOutputBytes: Int64?
            var estimatedReclaimedBytes: Int64?
        }
        progress.jsonEvent(
            Plan(
                convert: convert.map(\.path), skip: skip.map(\.path), remove: remove.map(\.path),
                convertBytes: convertBytes, estimatedOutputBytes: estOut,
                estimatedReclaimedBytes: config.removal == nil ? 0 : estOut.map { max(0, removeBytes - $0) }))
    }
}

extension BatchEngine {
    /// Runs the batch from synchronous code (the CLI's `main`), blocking the calling thread until it ends.
    /// Call it from a plain thread, not from inside a Swift concurrency task.
    public func runBlocking() -> BatchSummary {
        final class Box: @unchecked Sendable { var value = BatchSummary() }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let err = self.err
        InFlight.installHandlers { err($0) }
        Task.detached {
            box.value = await self.run()
            done.signal()
        }
        done.wait()
        return box.value
    }
}
