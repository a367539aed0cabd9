import Foundation

extension BatchEngine {
    /// `--dry-run`: the plan, made with the run's own rule (`Planner`), and an estimate from converting a small sample
    /// into a scratch folder. Touches nothing.
    func dryRun(
        found: Discovery.Result, outRoot: String, dbPath: String, progress: ProgressReporter,
        summary: inout BatchSummary
    ) async throws {
        for p in found.problems { err("readback convert: " + p) }
        for p in found.argumentProblems { err("readback convert: \(p) (converted and removed earlier?)") }
        var records: [String: ItemRecord] = [:]
        if (try FileOps.info(dbPath)) != nil {
            let ledger = try Ledger(
                path: dbPath, progress: ProgressReporter(style: .quiet, out: { _ in }, clock: { 0 }),
                exclusive: config.shard != nil)
            for r in try await ledger.allItems() { records[r.sourcePath] = r }
        }
        let plan = try await Planner.plan(found.files, retryFailed: config.retryFailed) { records[$0] }
        let convert = plan.filter { $0.why != nil }.map(\.file)
        let skip = plan.filter { $0.why == nil }.map(\.file)
        // With a permit, a run removes the originals of what it converts clean and of what verified earlier.
        let remove =
            config.removal == nil ? [] : plan.filter { $0.why != nil || $0.record?.state == .verified }.map(\.file)
        func line(_ s: String) { if config.progress != .json { out(s + "\n") } }
        func mb(_ b: Int64) -> String { String(format: "%.1f MB", Double(b) / 1_000_000) }
        for f in convert {
            line("would convert  \(f.relativePath) → \(String(f.outputPath.dropFirst(outRoot.count + 1)))")
        }
        for e in plan where e.why == nil {
            let why =
                e.notRetried.map { "failed: \($0); --retry-failed tries it again" } ?? "already converted, unchanged"
            line("would skip     \(e.file.relativePath) (\(why))")
        }
        for f in remove {
            line(
                "would remove   \(f.relativePath) (\(config.removal!.mode == .trash ? "to trash" : "delete"), once verified)"
            )
        }
        let convertBytes = convert.reduce(Int64(0)) { $0 + $1.size }
        let ratio = try await sampleRatio(convert)
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

    /// Output ÷ source bytes over a small sample (up to 3 files, spread over the list) converted in a scratch
    /// folder; nil when there is nothing to convert or no sample converted.
    private func sampleRatio(_ convert: [SourceFile]) async throws -> Double? {
        guard !convert.isEmpty else { return nil }
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
        return inB > 0 ? Double(outB) / Double(inB) : nil
    }
}
