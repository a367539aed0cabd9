import Foundation
import Store

/// The life of an item: pending → converting → written → verified → removed / kept / failed. The store keeps these
/// names in `items.state`; a finished item's state follows from its verdict (`ItemOutcome.Verdict.state`).
public enum ItemState: String, Sendable, Codable, CaseIterable {
    case pending, converting, written, verified, removed, kept, failed

    /// States a run leaves items in; the others mean a run was interrupted.
    public var isFinished: Bool { [.verified, .removed, .kept, .failed].contains(self) }
}

/// The state database's schema, one migration per version (Store applies each exactly once).
enum Schema {
    static let migrations: [String] = [
        """
        CREATE TABLE batches (
            id INTEGER PRIMARY KEY,
            started_at REAL NOT NULL,
            finished_at REAL,
            output_root TEXT NOT NULL,
            options TEXT NOT NULL,
            removal TEXT,
            status TEXT NOT NULL DEFAULT 'running',
            summary TEXT
        );
        CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            source_path TEXT NOT NULL UNIQUE,
            source_root TEXT NOT NULL,
            output_path TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            hash TEXT,
            state TEXT NOT NULL CHECK (state IN
                ('pending','converting','written','verified','removed','kept','failed')),
            error TEXT,
            batch_id INTEGER REFERENCES batches(id),
            attempts INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL
        );
        CREATE INDEX items_state ON items(state);
        CREATE TABLE outcomes (
            item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
            batch_id INTEGER REFERENCES batches(id),
            output_path TEXT NOT NULL,
            source_size INTEGER NOT NULL,
            output_size INTEGER NOT NULL,
            seconds REAL NOT NULL,
            verdict TEXT NOT NULL,
            audit_summary TEXT,
            reasons TEXT,
            known_losses TEXT,
            removal TEXT,
            trashed_to TEXT
        );
        """,
        // How many attempts in a row Readback itself crashed during (see `Ledger.recordAttemptsEndedByExit`).
        """
        ALTER TABLE items ADD COLUMN process_ends INTEGER NOT NULL DEFAULT 0;
        """,
    ]
}

/// One row of `items` (with its outcome when there is one).
public struct ItemRecord: Sendable, Equatable {
    public var id: Int64
    public var sourcePath: String
    public var sourceRoot: String
    public var outputPath: String
    public var size: Int64
    public var mtimeNs: Int64
    public var hash: String?
    public var state: ItemState
    public var error: String?
    public var outputSize: Int64?
    public var auditSummary: String?
    /// Attempts in a row during which Readback itself crashed (its crash marks), or the limit for a decoder crash.
    public var processEnds: Int

    init(_ r: Row) {
        id = r.int64("id") ?? 0
        sourcePath = r.string("source_path") ?? ""
        sourceRoot = r.string("source_root") ?? ""
        outputPath = r.string("output_path") ?? ""
        size = r.int64("size") ?? 0
        mtimeNs = r.int64("mtime_ns") ?? 0
        hash = r.string("hash")
        state = ItemState(rawValue: r.string("state") ?? "") ?? .pending
        error = r.string("error")
        outputSize = r.int64("output_size")
        auditSummary = r.string("audit_summary")
        processEnds = r.int("process_ends") ?? 0
    }
}

/// How one item ended, for the store, the progress line and `--json`.
public struct ItemOutcome: Sendable, Equatable, Codable {
    /// How an item ended: the one verdict, which the verifier answers with (`VerificationResult.verdict`), the
    /// progress line and `--json` print, and the store keeps (`outcomes.verdict`; `items.state` from `state`).
    public enum Verdict: String, Sendable, Codable, CaseIterable {
        case clean, kept, failed, removed

        /// The state an item with this verdict is stored in: a clean item is `verified`, the others keep the name.
        public var state: ItemState {
            switch self {
            case .clean: return .verified
            case .kept: return .kept
            case .failed: return .failed
            case .removed: return .removed
            }
        }
    }
    public var event = "item"
    public var source: String
    public var output: String?
    /// The source relative to its root, and the output relative to the output folder (for display).
    public var relativeSource: String?
    public var relativeOutput: String?
    public var verdict: Verdict
    /// The item's state in the store, from `verdict`.
    public var state: ItemState
    public var sourceBytes: Int64?
    public var outputBytes: Int64?
    public var ratio: Double?
    public var seconds: Double?
    public var reasons: [String]
    public var knownLosses: [String]
    public var error: String?
    public var trashedTo: String?
    /// Where the time went, seconds per stage, rounded to ms (converted items only): the converter's stages
    /// (decode, render, encode, gainmap, metadata, assemble, write) and Batch's own (hash: waiting for the source's
    /// SHA-256 after the converter finished; publish: fsync + rename; audit: the read-back audit).
    public var stages: [String: Double]?
    /// What the file facts carry did (mode, times, owner, xattrs; dropped checksums; anything not carried).
    public var fileFacts: [String]?
    /// Where the XMP sidecar's properties went, one line per destination.
    public var sidecar: [String]?
    /// The quality the primary was encoded at, and the frame's noise σ when the quality was chosen by it.
    public var quality: Int?
    public var noiseSigma: Double?
    /// The camera look step: the curve fitted on the RAW's embedded preview, or why the neutral render was kept.
    public var look: String?
    /// Share of the RAW's samples at or above its white level: an overexposed frame's clipped highlights.
    public var clippedFraction: Double?
    /// That share per CFA channel ("R", "G", "B", "G2"): which channels the camera clipped.
    public var clippedByChannel: [String: Double]?

    public init(
        source: String, relativeSource: String?, output: String?, relativeOutput: String?, verdict: Verdict,
        sourceBytes: Int64? = nil, outputBytes: Int64? = nil, seconds: Double? = nil,
        reasons: [String] = [], knownLosses: [String] = [], error: String? = nil, trashedTo: String? = nil
    ) {
        self.source = source
        self.relativeSource = relativeSource
        self.output = output
        self.relativeOutput = relativeOutput
        self.verdict = verdict
        self.state = verdict.state
        self.sourceBytes = sourceBytes
        self.outputBytes = outputBytes
        if let a = sourceBytes, let b = outputBytes, a > 0 { ratio = (Double(b) / Double(a) * 1000).rounded() / 1000 }
        self.seconds = seconds.map { ($0 * 100).rounded() / 100 }
        self.reasons = reasons
        self.knownLosses = knownLosses
        self.error = error
        self.trashedTo = trashedTo
    }
}

/// The one place that writes the state database: item transitions, outcomes, batch rows. An actor, so every write
/// is serialised.
actor Ledger {
    private let db: Database
    private(set) var batchID: Int64 = 0
    /// Progress output, serialised with the database writes.
    let progress: ProgressReporter

    /// Opens (and migrates) the store at `path`; `exclusive` for a shard's store (`Database`'s exclusive locking
    /// mode: no shared-memory WAL index, so it works on a network file system).
    init(path: String, progress: ProgressReporter, exclusive: Bool = false) throws {
        self.progress = progress
        do {
            db = try Database(path: path, migrations: Schema.migrations, exclusive: exclusive)
        } catch {
            throw BatchError.store(error)
        }
    }

    @discardableResult
    private func w<T>(_ body: () throws(SQLiteError) -> T) throws -> T {
        do { return try body() } catch { throw BatchError.store(error) }
    }

    private static var now: Double { Date().timeIntervalSince1970 }

    func beginBatch(outputRoot: String, options: String, removal: RemovalMode?) throws {
        batchID = try w { () throws(SQLiteError) in
            try db.run(
                "INSERT INTO batches (started_at, output_root, options, removal) VALUES (?, ?, ?, ?)",
                [Self.now, outputRoot, options, removal?.rawValue])
            return db.lastInsertRowID
        }
    }

    /// Records how the run ended and closes the store (its lock is free for the next run at once); nothing may
    /// follow.
    func finishBatch(status: String, summary: String) throws {
        defer { db.close() }
        try w { () throws(SQLiteError) in
            try db.run(
                "UPDATE batches SET finished_at = ?, status = ?, summary = ? WHERE id = ?",
                [Self.now, status, summary, batchID])
        }
    }

    private static let selectItem = """
        SELECT items.*, outcomes.output_size AS output_size, outcomes.audit_summary AS audit_summary
        FROM items LEFT JOIN outcomes ON outcomes.item_id = items.id
        """

    func item(sourcePath: String) throws -> ItemRecord? {
        try w { () throws(SQLiteError) in
            try db.query(Self.selectItem + " WHERE source_path = ?", [sourcePath]).first.map(ItemRecord.init)
        }
    }

    func items(in state: ItemState) throws -> [ItemRecord] {
        try w { () throws(SQLiteError) in
            try db.query(Self.selectItem + " WHERE state = ? ORDER BY source_path", [state.rawValue]).map(
                ItemRecord.init)
        }
    }

    func allItems() throws -> [ItemRecord] {
        try w { () throws(SQLiteError) in
            try db.query(Self.selectItem + " ORDER BY source_path").map(ItemRecord.init)
        }
    }

    /// Queues `file` as pending (new, changed or interrupted), forgetting any earlier outcome.
    func enqueue(_ file: SourceFile) throws -> Int64 {
        try w { () throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                try db.run(
                    """
                    INSERT INTO items (source_path, source_root, output_path, size, mtime_ns, hash, state, error,
                                       batch_id, updated_at)
                    VALUES (?, ?, ?, ?, ?, NULL, 'pending', NULL, ?, ?)
                    ON CONFLICT (source_path) DO UPDATE SET
                        source_root = excluded.source_root, output_path = excluded.output_path,
                        process_ends = CASE WHEN items.size = excluded.size AND items.mtime_ns = excluded.mtime_ns
                            THEN items.process_ends ELSE 0 END,
                        size = excluded.size, mtime_ns = excluded.mtime_ns, hash = NULL, state = 'pending',
                        error = NULL, batch_id = excluded.batch_id, updated_at = excluded.updated_at
                    """,
                    [file.path, file.root, file.outputPath, file.size, file.mtimeNs, batchID, Self.now])
                let id = try db.query("SELECT id FROM items WHERE source_path = ?", [file.path]).first?.int64("id") ?? 0
                try db.run("DELETE FROM outcomes WHERE item_id = ?", [id])
                return id
            }
        }
    }

    /// Records a new mtime for an unchanged source (same size and hash), so it is not hashed again next time.
    func touchUnchanged(id: Int64, mtimeNs: Int64) throws {
        try w { () throws(SQLiteError) in
            try db.run("UPDATE items SET mtime_ns = ?, updated_at = ? WHERE id = ?", [mtimeNs, Self.now, id])
        }
    }

    /// Starts an attempt: the source's size and mtime now; its hash is cleared until `markWritten` records it.
    func markConverting(id: Int64, size: Int64, mtimeNs: Int64) throws {
        try w { () throws(SQLiteError) in
            try db.run(
                """
                UPDATE items SET state = 'converting', size = ?, mtime_ns = ?, hash = NULL, attempts = attempts + 1,
                    batch_id = ?, updated_at = ? WHERE id = ?
                """, [size, mtimeNs, batchID, Self.now, id])
        }
    }

    /// How many attempts in a row during which Readback itself crashed make a file `failed`, not tried again without
    /// `--retry-failed`.
    static let processEndLimit = 2

    /// The reason recorded for an attempt during which Readback itself crashed (`signal`: "SIGSEGV", when known).
    static func processEndReason(stage: String, signal: String? = nil) -> String {
        "Readback crashed" + (signal.map { " (\($0))" } ?? "") + " during this file's \(stage)"
    }

    /// Items still `converting` or `written` when a run starts were being worked on when the process ended (an
    /// interrupt resets its items first). Those `crashed` names (the crash marks: in flight when Readback itself died
    /// of a fatal signal) count that attempt, with the stage and signal, and after `processEndLimit` such attempts
    /// in a row become `failed`. The others go back to `pending`, uncounted: a SIGKILL, an OOM kill, a power loss or
    /// a preempted job says nothing about the file.
    func recordAttemptsEndedByExit(crashed: [Int64: CrashMarks.Mark]) throws {
        try w { () throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                for (id, mark) in crashed.sorted(by: { $0.key < $1.key }) {
                    let reason = Self.processEndReason(stage: mark.stage.name, signal: mark.signalName)
                    try db.run(
                        """
                        UPDATE items SET process_ends = process_ends + 1, error = ?,
                            state = CASE WHEN process_ends + 1 >= ? THEN 'failed' ELSE 'pending' END, updated_at = ?
                        WHERE id = ? AND state IN ('converting', 'written')
                        """, [reason, Self.processEndLimit, Self.now, id])
                }
                try db.run(
                    "UPDATE items SET state = 'pending', updated_at = ? WHERE state IN ('converting', 'written')",
                    [Self.now])
            }
        }
    }

    /// The output is published under its final name; `hash` is the source's SHA-256 taken during the conversion.
    func markWritten(id: Int64, hash: String) throws {
        try w { () throws(SQLiteError) in
            try db.run(
                "UPDATE items SET state = 'written', hash = ?, error = NULL, updated_at = ? WHERE id = ?",
                [hash, Self.now, id])
        }
    }

    private func set(id: Int64, state: ItemState, error: String?) throws {
        try w { () throws(SQLiteError) in
            try db.run(
                "UPDATE items SET state = ?, error = ?, updated_at = ? WHERE id = ?",
                [state.rawValue, error, Self.now, id])
        }
    }

    /// Records how an item ended (verified, kept or failed: the outcome's state) with its outcome row, in one
    /// transaction. `poisoned`: a decoder's worker died, hung or ran out of memory on the file, which then counts as
    /// `processEndLimit` crashed attempts: not tried again while unchanged, unless asked.
    func finish(id: Int64, outcome: ItemOutcome, auditSummary: String?, poisoned: Bool = false) throws {
        try w { () throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                try db.run(
                    "UPDATE items SET state = ?, error = ?, process_ends = ?, updated_at = ? WHERE id = ?",
                    [
                        outcome.state.rawValue,
                        outcome.error ?? (outcome.reasons.isEmpty ? nil : outcome.reasons.joined(separator: "; ")),
                        poisoned ? Self.processEndLimit : 0, Self.now, id,
                    ])
                try db.run(
                    """
                    INSERT OR REPLACE INTO outcomes (item_id, batch_id, output_path, source_size, output_size, seconds,
                        verdict, audit_summary, reasons, known_losses)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        id, batchID, outcome.output ?? "", outcome.sourceBytes ?? 0, outcome.outputBytes ?? 0,
                        outcome.seconds ?? 0, outcome.verdict.rawValue, auditSummary,
                        outcome.reasons.joined(separator: "\n"), outcome.knownLosses.joined(separator: "\n"),
                    ])
            }
        }
        progress.item(outcome)
    }

    /// Reports an item that needed no work or a removal, without a state change of its own.
    func report(_ outcome: ItemOutcome, countsTowardsTotal: Bool) {
        progress.item(outcome, countsTowardsTotal: countsTowardsTotal)
    }

    func note(_ s: String) { progress.note(s) }
    func beginProgress(total: Int) { progress.begin(total: total) }
    func tick() { progress.tick() }
    func endProgress() { progress.end() }
    func jsonEvent<T: Encodable & Sendable>(_ value: T) { progress.jsonEvent(value) }

    /// A verified item whose original is gone: removed (by this run or, before a crash, an earlier one).
    func markRemoved(id: Int64, how: RemovalMode?, trashedTo: String?, note: String?) throws {
        try w { () throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                try db.run(
                    "UPDATE items SET state = 'removed', error = ?, updated_at = ? WHERE id = ?", [note, Self.now, id])
                try db.run(
                    "UPDATE outcomes SET removal = ?, trashed_to = ? WHERE item_id = ?",
                    [how?.rawValue ?? "already-gone", trashedTo, id])
            }
        }
    }

    /// A verified item whose original must stay: the removal check failed.
    func markKept(id: Int64, reason: String) throws {
        try set(id: id, state: .kept, error: reason)
    }

    func counts() throws -> [ItemState: Int] {
        try w { () throws(SQLiteError) in
            var out: [ItemState: Int] = [:]
            for r in try db.query("SELECT state, COUNT(*) AS n FROM items GROUP BY state") {
                if let s = ItemState(rawValue: r.string("state") ?? "") { out[s] = r.int("n") ?? 0 }
            }
            return out
        }
    }
}
