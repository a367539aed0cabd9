import Findings
import Foundation
import ReportModel
import Store

/// The audit history: every run stored in SQLite (tables `runs`, `files`, `findings`; docs/report-schema.md).
public final class History {
    let db: Database

    /// The schema, one step per `user_version`.
    public static let migrations: [String] = [
        """
        CREATE TABLE runs (
          id INTEGER PRIMARY KEY,
          started_at TEXT NOT NULL,
          tool_version TEXT NOT NULL,
          schema_version INTEGER NOT NULL,
          mode TEXT NOT NULL,
          fail_on TEXT NOT NULL,
          decode INTEGER NOT NULL,
          policy TEXT NOT NULL,
          roots TEXT NOT NULL,
          files INTEGER NOT NULL,
          passed INTEGER NOT NULL,
          failed INTEGER NOT NULL,
          errors INTEGER NOT NULL,
          warnings INTEGER NOT NULL,
          duration_seconds REAL NOT NULL
        );
        CREATE TABLE files (
          id INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          source TEXT,
          output TEXT,
          sha256 TEXT,
          source_bytes INTEGER,
          output_bytes INTEGER,
          size_ratio REAL,
          verdict TEXT NOT NULL,
          worst_severity TEXT,
          gainmaps_complete TEXT NOT NULL
        );
        CREATE INDEX files_run ON files(run_id, name);
        CREATE TABLE findings (
          id INTEGER PRIMARY KEY,
          file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
          run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          code TEXT NOT NULL,
          severity TEXT NOT NULL,
          message TEXT NOT NULL,
          field TEXT,
          item INTEGER,
          offset INTEGER,
          expected TEXT,
          actual TEXT
        );
        CREATE INDEX findings_run ON findings(run_id, code);
        """
    ]

    /// The default database: `$XDG_STATE_HOME/readback/history.db`, else `~/.local/state/readback/history.db`.
    /// - Parameter environment: the process environment (injected for tests).
    public static func defaultPath(environment: [String: String]) -> String {
        if let x = environment["XDG_STATE_HOME"], x.hasPrefix("/") { return x + "/readback/history.db" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/state/readback/history.db"
    }

    /// Opens (creating the folder and the database if needed) the history at `path`.
    /// - Throws: `SQLiteError`, or a `CocoaError` when the folder cannot be created.
    public init(path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        db = try Database(path: path, migrations: Self.migrations)
    }

    /// An in-memory history (tests).
    public init(inMemory: Void = ()) throws {
        db = try Database.inMemory(migrations: Self.migrations)
    }

    /// Stores one run; returns its id.
    @discardableResult
    public func record(_ report: AuditReport) throws(SQLiteError) -> Int64 {
        try db.transaction { () throws(SQLiteError) -> Int64 in
            let runID = try insertRun(report)
            let files = try FileRows(db)
            for f in report.files { try files.insert(f, runID: runID) }
            return runID
        }
    }

    /// Stores one run whose files stream past one at a time (`readback merge` records a merged report read back
    /// entry by entry), in one transaction; returns its id.
    /// - Parameters:
    ///   - header: the report without its files; its summary is the whole run's.
    ///   - next: the next file, nil after the last.
    /// - Throws: what `next` throws, or `SQLiteError`; nothing is stored then.
    @discardableResult
    public func record(_ header: AuditReport, files next: () throws -> FileResult?) throws -> Int64 {
        try db.exec("BEGIN IMMEDIATE")
        do {
            let runID = try insertRun(header)
            let files = try FileRows(db)
            while let f = try next() { try files.insert(f, runID: runID) }
            try db.exec("COMMIT")
            return runID
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }

    /// Inserts the run's row (its counts from `report.summary`); returns its id.
    private func insertRun(_ report: AuditReport) throws(SQLiteError) -> Int64 {
        let s = report.summary
        let rootsJSON = report.run.roots.keys.sorted().map { "\"\($0)\": \"\(report.run.roots[$0]!)\"" }
        try db.run(
            """
            INSERT INTO runs (started_at, tool_version, schema_version, mode, fail_on, decode, policy, roots, files,
              passed, failed, errors, warnings, duration_seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """,
            [
                report.run.startedAt, report.tool.version, report.schemaVersion, report.run.mode.rawValue,
                report.run.failOn.rawValue, report.run.decode, report.run.policy,
                "{" + rootsJSON.joined(separator: ", ") + "}", s.files, s.passed, s.failed,
                s.findingsBySeverity["error"] ?? 0, s.findingsBySeverity["warning"] ?? 0,
                report.run.durationSeconds,
            ])
        return db.lastInsertRowID
    }

    /// The prepared inserts of one file and its findings.
    private struct FileRows {
        let db: Database
        let file: Statement
        let finding: Statement

        init(_ db: Database) throws(SQLiteError) {
            self.db = db
            file = try db.prepare(
                """
                INSERT INTO files (run_id, name, source, output, sha256, source_bytes, output_bytes, size_ratio, verdict,
                  worst_severity, gainmaps_complete) VALUES (?,?,?,?,?,?,?,?,?,?,?)
                """)
            finding = try db.prepare(
                """
                INSERT INTO findings (file_id, run_id, code, severity, message, field, item, offset, expected, actual)
                VALUES (?,?,?,?,?,?,?,?,?,?)
                """)
        }

        func insert(_ f: FileResult, runID: Int64) throws(SQLiteError) {
            file.reset(clearBindings: true)
            try file.bind([
                runID, f.name, f.source, f.output, f.sha256, f.sourceBytes.map { Int64($0) },
                f.outputBytes.map { Int64($0) }, f.sizeRatio, f.verdict.rawValue, f.worstSeverity?.rawValue,
                f.gainMaps.filter(\.isComplete).map(\.kind).joined(separator: ","),
            ])
            while try file.step() {}
            let fileID = db.lastInsertRowID
            for x in f.findings {
                finding.reset(clearBindings: true)
                try finding.bind([
                    fileID, runID, x.code.rawValue, x.severity.rawValue, x.message, x.evidence?.field,
                    x.evidence?.item.map { Int64($0) }, x.evidence?.offset.map { Int64(clamping: $0) },
                    x.evidence?.expected, x.evidence?.actual,
                ])
                while try finding.step() {}
            }
        }
    }

    /// One stored run, as `readback history` lists it.
    public struct RunRow: Equatable, Sendable {
        public let id: Int64
        public let startedAt: String
        public let mode: String
        public let files: Int
        public let passed: Int
        public let failed: Int
        public let errors: Int
        public let warnings: Int
        public let roots: String
    }

    /// The most recent runs, newest first.
    public func recentRuns(limit: Int) throws(SQLiteError) -> [RunRow] {
        try db.query(
            "SELECT id, started_at, mode, files, passed, failed, errors, warnings, roots FROM runs ORDER BY id DESC LIMIT ?",
            [limit]
        ).map {
            RunRow(
                id: $0.int64("id") ?? 0, startedAt: $0.string("started_at") ?? "", mode: $0.string("mode") ?? "",
                files: $0.int("files") ?? 0, passed: $0.int("passed") ?? 0, failed: $0.int("failed") ?? 0,
                errors: $0.int("errors") ?? 0, warnings: $0.int("warnings") ?? 0, roots: $0.string("roots") ?? "")
        }
    }

    /// A finding identified across runs: the file's name, the code, and the field or item it is about.
    public struct FindingKey: Hashable, Comparable, Sendable {
        public let file: String
        public let code: String
        public let severity: String
        public let subject: String
        public static func < (a: FindingKey, b: FindingKey) -> Bool {
            (a.file, a.code, a.subject) < (b.file, b.code, b.subject)
        }
    }

    /// The findings of one run, codes in their current spelling (a run recorded before a code was renamed compares
    /// with one after it; `FindingCode.aliases`).
    public func findings(run: Int64) throws(SQLiteError) -> Set<FindingKey> {
        let rows = try db.query(
            """
            SELECT f.name AS name, x.code AS code, x.severity AS severity, x.field AS field, x.item AS item
            FROM findings x JOIN files f ON f.id = x.file_id WHERE x.run_id = ?
            """, [run])
        return Set(
            rows.map {
                FindingKey(
                    file: $0.string("name") ?? "", code: FindingCode.current($0.string("code") ?? ""),
                    severity: $0.string("severity") ?? "",
                    subject: $0.string("field") ?? $0.int("item").map { "item \($0)" } ?? "")
            })
    }

    /// What changed between two runs: findings new in `newer`, and findings of `older` gone in `newer`.
    public func changes(from older: Int64, to newer: Int64) throws(SQLiteError) -> (
        new: [FindingKey], fixed: [FindingKey]
    ) {
        let a = try findings(run: older)
        let b = try findings(run: newer)
        return (b.subtracting(a).sorted(), a.subtracting(b).sorted())
    }
}
