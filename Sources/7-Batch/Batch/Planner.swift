import Digest
import Foundation

/// The planning rule: which discovered files a run (re)does and which it skips. A run and `--dry-run` both plan with
/// it, so a dry run says exactly what a run would do.
enum Planner {
    /// What to do with one discovered file.
    enum Decision: Sendable, Equatable {
        /// (Re)convert it, for this reason.
        case redo(why: String)
        /// Its finished result stands. `newMtimeNs`: the source's mtime moved but its size and content did not; a
        /// run records the new mtime so the file is not hashed again next time.
        case skip(newMtimeNs: Int64?)
        /// Not tried again: a decoder or Readback itself crashed on it (`Ledger.processEndLimit`), and
        /// `--retry-failed` was not given. `reason` is the one recorded.
        case notRetried(reason: String)
    }

    /// One discovered file, its record in the store and the decision.
    struct Entry: Sendable {
        var file: SourceFile
        var record: ItemRecord?
        var decision: Decision

        /// The reason to (re)do the file, or nil when it is skipped.
        var why: String? {
            if case .redo(let why) = decision { return why }
            return nil
        }

        /// Why the file is not tried again, when it is a failed file held back.
        var notRetried: String? {
            if case .notRetried(let reason) = decision { return reason }
            return nil
        }
    }

    /// Decides every file, in discovery order.
    /// - Parameters:
    ///   - files: what discovery found.
    ///   - retryFailed: `--retry-failed`: files held back after a decoder or Readback crashed on them are
    ///     tried again.
    ///   - record: the store's record of a source path, if any.
    static func plan(
        _ files: [SourceFile], retryFailed: Bool = false, record: (String) async throws -> ItemRecord?
    ) async throws -> [Entry] {
        var entries: [Entry] = []
        for f in files {
            let rec = try await record(f.path)
            entries.append(Entry(file: f, record: rec, decision: try await decide(f, rec, retryFailed: retryFailed)))
        }
        return entries
    }

    /// The rule. New, changed, interrupted and failed items are (re)done; a finished item is skipped while its
    /// source is unchanged (same output path, size, and mtime or else SHA-256) and, unless its original was removed,
    /// its output is still the regular file of the size that was verified. A failed file whose attempts ended with
    /// a crash `Ledger.processEndLimit` times is held back while it is unchanged, unless `retryFailed`.
    static func decide(_ f: SourceFile, _ rec: ItemRecord?, retryFailed: Bool = false) async throws -> Decision {
        guard let rec else { return .redo(why: "new") }
        switch rec.state {
        case .pending, .converting, .written: return .redo(why: "interrupted")
        case .failed:
            guard rec.processEnds >= Ledger.processEndLimit else { return .redo(why: "failed before") }
            if retryFailed { return .redo(why: "failed before, retried (--retry-failed)") }
            if rec.size != f.size || rec.mtimeNs != f.mtimeNs || rec.outputPath != f.outputPath {
                return .redo(why: "source changed")
            }
            return .notRetried(reason: rec.error ?? Ledger.processEndReason(stage: "attempt"))
        case .verified, .kept, .removed:
            if rec.outputPath != f.outputPath { return .redo(why: "output path changed") }
            if rec.size != f.size { return .redo(why: "source changed") }
            var newMtimeNs: Int64?
            if rec.mtimeNs != f.mtimeNs {
                let h = try await offload { try SHA256.hex(ofFileAt: f.path) }
                if h != rec.hash { return .redo(why: "source changed") }
                newMtimeNs = f.mtimeNs
            }
            if rec.state != .removed {
                guard let o = try FileOps.info(rec.outputPath), o.isRegular else { return .redo(why: "output missing") }
                if let s = rec.outputSize, s != o.size { return .redo(why: "output changed") }
            }
            return .skip(newMtimeNs: newMtimeNs)
        }
    }
}
