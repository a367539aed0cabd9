import Converter
import Digest
import FileFacts
import Foundation
import Isolation
import RenderIO

/// Converts, publishes, reads back and verifies one planned item; many run in parallel, the bookkeeping goes
/// through the ledger actor.
struct ItemWorker: Sendable {
    let converter: any ItemConverter
    let verifier: any OutputVerifier
    /// The run's decoders.
    let decoders: any Decoders
    let options: ConvertOptions
    /// The canonical output folder (output paths are shown relative to it).
    let outRoot: String
    let ledger: Ledger

    /// Converts, publishes, reads back and verifies one item. Returns its outcome and whether the error is fatal.
    func process(_ item: BatchEngine.Planned) async -> (BatchEngine.Planned, ItemOutcome, Bool) {
        let f = item.file
        var clock = ItemOutcomeMaker(file: f, outRoot: outRoot)
        var temp: String?
        // All of the file's decodes (the conversion's and the read-back audit's) share one --file-timeout.
        let decoders = self.decoders.forFile()
        do {
            guard let now = try FileOps.info(f.path), now.isRegular else {
                throw BatchError.refused(path: f.path, reason: "source vanished or is no longer a regular file")
            }
            // The source's times, mode, owner and xattrs, read before anything reads its bytes (which moves atime).
            let facts = Result { () throws(FileFactsError) in try FileFacts.read(path: f.path) }
            try await ledger.markConverting(id: item.id, size: now.size, mtimeNs: now.mtimeNs)
            // In flight: a crash of this process from here on counts one attempt against this file (CrashMarks).
            let mark = CrashMarks.claim(item: item.id, stage: .conversion)
            defer { mark.release() }
            CrashMarks.testCrash(file: f.path, stage: .conversion)
            // The source is read once (never through a symlink): the fingerprint, the conversion (LibRaw, exiv2) and
            // the read-back audit all work on these bytes.
            let bytes = try SHA256.source(f.path)
            // The source's fingerprint is taken while the converter runs (LibRaw's single-threaded decode leaves a
            // core idle); it is first needed when the written output is recorded.
            async let fingerprint = offload { SHA256.hex(ofSource: bytes) }
            try FileOps.makeDirectories((f.outputPath as NSString).deletingLastPathComponent)
            let t = FileOps.tempPath(for: f.outputPath)
            temp = t
            InFlight.add(t)
            defer { InFlight.remove(t) }
            let (result, reference) = try await convert(f, bytes: bytes, to: t, decoders: decoders)
            clock.merge(result.timings.filter { $0.key != "total" })
            guard try FileOps.info(t)?.isRegular == true else {
                throw BatchError.refused(path: f.path, reason: "the converter reported success but wrote no output")
            }
            // The library entry, not only the bytes: xattrs, owner, mode and times, before the name is published.
            let carried = FileFactsCarry(facts, to: t)
            guard let written = try FileOps.info(t), written.isRegular, written.size > 0 else {
                throw BatchError.refused(path: f.path, reason: "the converter reported success but wrote no output")
            }
            let hash = try await fingerprint
            clock.lap("hash")
            try FileOps.publish(temp: t, final: f.outputPath)
            temp = nil
            try await ledger.markWritten(id: item.id, hash: hash)
            mark.moved(to: .readBack)
            CrashMarks.testCrash(file: f.path, stage: .readBack)
            clock.lap("publish")

            // Read back and audit the file as it now is under its final name.
            let verdict = await verify(f, bytes: bytes, reference: reference, decoders: decoders)
            // Reading the output back moved its access time; stamp the source's again.
            if case .success(let facts) = facts { _ = facts.stampTimes(on: f.outputPath) }
            clock.lap("audit")
            var (o, summaryText) = try judge(
                verdict, file: f, before: now, written: written, knownLosses: result.knownLosses, clock: clock)
            o.fileFacts = carried.lines
            (o.quality, o.noiseSigma) = (result.qualityUsed, result.noiseSigma)
            if !result.sidecar.isEmpty { o.sidecar = result.sidecar }
            o.look = result.look?.reason
            o.clippedFraction = result.clippedFraction
            o.clippedByChannel = result.clippedByChannel
            try await ledger.finish(id: item.id, outcome: o, auditSummary: summaryText)
            return (item, o, false)
        } catch {
            if let temp { FileOps.removeIfPresent(temp) }
            let o = clock.outcome(.failed, error: error.oneLine)
            let fatal = error.isFatalForBatch
            do {
                let poisoned = (error as? ConvertError)?.code != nil
                try await ledger.finish(id: item.id, outcome: o, auditSummary: nil, poisoned: poisoned)
            } catch {
                return (item, o, true)
            }
            return (item, o, fatal)
        }
    }

    /// Converts the source's `bytes` into `temp`, off the cooperative pool, through the file's `decoders`.
    private func convert(_ f: SourceFile, bytes: [UInt8], to temp: String, decoders: any Decoders) async throws
        -> (ConversionResult, ReferenceLookup?)
    {
        let (converter, options) = (self.converter, self.options)
        return try await offload {
            try converter.convert(
                source: URL(fileURLWithPath: f.path), bytes: bytes, to: URL(fileURLWithPath: temp), options: options,
                decoders: decoders)
        }
    }

    /// Reads the published output back and audits it against its source, through the file's `decoders` (one
    /// `--file-timeout` with its conversion); an audit that cannot run is a failure.
    private func verify(_ f: SourceFile, bytes: [UInt8], reference: ReferenceLookup?, decoders: any Decoders) async
        -> VerificationResult
    {
        let verifier = self.verifier
        do {
            return try await offload {
                try verifier.verify(
                    source: URL(fileURLWithPath: f.path), sourceBytes: bytes, reference: reference,
                    output: URL(fileURLWithPath: f.outputPath), decoders: decoders)
            }
        } catch {
            return .failed(reason: "audit could not run: \(error.oneLine)")
        }
    }

    /// The item's outcome from the verdict, and the audit summary to store. A source that changed while it was
    /// converted keeps its original whatever the verdict; a failed output does not stay under its final name.
    private func judge(
        _ verdict: VerificationResult, file f: SourceFile, before now: FileInfo, written: FileInfo,
        knownLosses: [String], clock: ItemOutcomeMaker
    ) throws -> (ItemOutcome, String?) {
        let after = try FileOps.info(f.path)
        if after?.size != now.size || after?.mtimeNs != now.mtimeNs {
            return (
                clock.outcome(.kept, outputBytes: written.size, reasons: ["source changed during conversion"]),
                nil
            )
        }
        switch verdict {
        case .clean(let s):
            return (clock.outcome(.clean, outputBytes: written.size, losses: knownLosses), s)
        case .kept(let reasons, let s):
            let o = clock.outcome(
                .kept, outputBytes: written.size,
                reasons: ["original kept: " + (reasons.isEmpty ? "partial result" : reasons.joined(separator: "; "))],
                losses: knownLosses)
            return (o, s)
        case .failed(let reason):
            // A broken output is not left under its final name.
            FileOps.removeIfPresent(f.outputPath)
            try? FileOps.fsyncDirectory((f.outputPath as NSString).deletingLastPathComponent)
            return (clock.outcome(.failed, error: "verification failed: \(reason)"), nil)
        }
    }
}

/// What carrying a source's file facts to its output did, as lines for the item's outcome.
struct FileFactsCarry {
    let lines: [String]

    init(_ facts: Result<FileFacts, FileFactsError>, to path: String) {
        switch facts {
        case .failure(let error):
            chmod(path, 0o600)
            lines = ["file facts not read, so not carried (the output stays private, mode 600): \(error)"]
        case .success(let facts):
            let report = facts.carry(to: path)
            var summary = "carried mode \(String(facts.outputMode, radix: 8)), mtime and atime"
            if !report.carried.isEmpty { summary += ", xattrs \(report.carried.joined(separator: ", "))" }
            if geteuid() == 0 { summary += ", owner \(facts.uid):\(facts.gid)" }
            lines =
                [summary]
                + report.dropped.map { "xattr \($0) dropped: a checksum of the source's bytes, untrue of the output's" }
                + report.lines
        }
    }
}

/// One item's outcome from its clock: the converter's `Stopwatch`, which takes the converter's stages and goes on
/// timing Batch's own (hash, publish, audit); its elapsed time is the item's seconds.
struct ItemOutcomeMaker {
    let file: SourceFile
    let relativeOutput: String
    private var watch = Stopwatch()

    init(file: SourceFile, outRoot: String) {
        self.file = file
        relativeOutput = String(file.outputPath.dropFirst(outRoot.count + 1))
    }

    /// Adds the converter's stages and starts Batch's own next lap now.
    mutating func merge(_ converterStages: [String: Double]) { watch.merge(converterStages) }

    /// Ends the current lap as stage `name`.
    mutating func lap(_ name: String) { watch.lap(name) }

    func outcome(
        _ verdict: ItemOutcome.Verdict, outputBytes: Int64? = nil, reasons: [String] = [],
        losses: [String] = [], error: String? = nil
    ) -> ItemOutcome {
        var o = ItemOutcome(
            source: file.path, relativeSource: file.relativePath, output: file.outputPath,
            relativeOutput: relativeOutput, verdict: verdict, sourceBytes: file.size,
            outputBytes: outputBytes, seconds: watch.elapsed, reasons: reasons, knownLosses: losses, error: error)
        if !watch.laps.isEmpty { o.stages = watch.laps.mapValues { ($0 * 1000).rounded() / 1000 } }
        return o
    }
}
