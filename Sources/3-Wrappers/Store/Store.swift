internal import CSQLite

/// Safe Swift face over SQLite. Every sqlite3 call of the project goes through this module.
public enum SQLite {
    /// SQLite's version, read from the library at run time (`sqlite3_libversion()`).
    public static var version: String { String(cString: sqlite3_libversion()) }
}

/// The one error type of Store: the SQLite result code, the library's message and the SQL that failed.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The (extended) SQLite result code, e.g. 19 = SQLITE_CONSTRAINT, 5 = SQLITE_BUSY.
    public let code: Int32
    /// `sqlite3_errmsg()` at the time of the failure, or Store's own text.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xFF }
    /// True for SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock.
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }
    /// True for a violated UNIQUE / NOT NULL / CHECK / FOREIGN KEY constraint.
    public var isConstraint: Bool { primaryCode == 19 }

    public var description: String {
        var s = "SQLite error \(code): \(message)"
        if let sql { s += " (in: \(sql))" }
        return s
    }

    /// Store's code for "this database was written by a newer schema than this program knows".
    public static let newerSchemaCode: Int32 = 1  // SQLITE_ERROR
}

/// A value in or out of SQLite.
public enum SQLiteValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return "'\(v)'"
        case .blob(let v): return "blob(\(v.count))"
        }
    }
}

/// Something that can be bound as a statement parameter.
public protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}
extension Int: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self) } }
extension Int32: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Bool: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Double: SQLiteBindable { public var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { public var sqliteValue: SQLiteValue { .text(self) } }
extension Array: SQLiteBindable where Element == UInt8 { public var sqliteValue: SQLiteValue { .blob(self) } }
extension SQLiteValue: SQLiteBindable { public var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

/// One result row, values by column index or name.
public struct Row: Sendable, Equatable {
    public let columns: [String]
    public let values: [SQLiteValue]

    /// The value of column `name`, `.null` when there is no such column.
    public subscript(_ name: String) -> SQLiteValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }
    /// The value at `index`, `.null` out of range.
    public subscript(_ index: Int) -> SQLiteValue {
        values.indices.contains(index) ? values[index] : .null
    }
    /// Column `name` as an integer (`nil` for NULL or a non-number).
    public func int(_ name: String) -> Int? {
        switch self[name] {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(exactly: v.rounded(.towardZero))
        default: return nil
        }
    }
    public func int64(_ name: String) -> Int64? {
        if case .integer(let v) = self[name] { return v }
        return nil
    }
    public func double(_ name: String) -> Double? {
        switch self[name] {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }
    public func string(_ name: String) -> String? {
        if case .text(let v) = self[name] { return v }
        return nil
    }
    public func blob(_ name: String) -> [UInt8]? {
        if case .blob(let v) = self[name] { return v }
        return nil
    }
}

/// SQLITE_TRANSIENT: SQLite copies bound text/blob before the bind call returns.
private let transient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)

/// A SQLite connection: opened with WAL (file databases), a busy timeout and foreign keys on; migrated by
/// `PRAGMA user_version` exactly once in `init`, before any other access; closed in `deinit`.
///
/// Not thread-safe by itself: own it from one actor or one thread.
public final class Database {
    fileprivate let handle: OpaquePointer
    /// Where it lives; `nil` for an in-memory database.
    public let path: String?
    /// Called with every SQL text sent through this connection (tests, debugging).
    public var onSQL: ((String) -> Void)?

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// - Parameters:
    ///   - path: a file path; `nil` opens a private in-memory database.
    ///   - migrations: schema steps; step *i* (0-based) moves `user_version` from *i* to *i+1*. Steps already applied
    ///     are skipped; each pending one runs once, all in one transaction.
    ///   - busyTimeoutMilliseconds: how long to wait for another connection's lock before SQLITE_BUSY.
    ///   - exclusive: open in `locking_mode = EXCLUSIVE`, set before WAL: the connection takes the file lock once
    ///     and keeps it, and SQLite never creates the shared-memory WAL index (`-shm`), which needs one host's
    ///     memory map and so does not work on a network file system. Only for a database one process uses at a
    ///     time (a shard's store, guarded by its own lock file); no other connection can read it meanwhile.
    /// - Throws: `SQLiteError` when the file cannot be opened, a migration fails, or the database's
    ///   `user_version` is newer than `migrations.count` (written by a newer program).
    public init(
        path: String?, migrations: [String] = [], busyTimeoutMilliseconds: Int32 = 10_000, exclusive: Bool = false
    ) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path ?? ":memory:", &db, flags | (path == nil ? SQLITE_OPEN_MEMORY : 0), nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open \(path ?? ":memory:"): \(msg)")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        try exec("PRAGMA foreign_keys = ON")
        if path != nil {
            if exclusive { try exec("PRAGMA locking_mode = EXCLUSIVE") }
            let mode = try Self.retryingBusy(for: busyTimeoutMilliseconds) {
                () throws(SQLiteError) in try query("PRAGMA journal_mode = WAL").first?.string("journal_mode")
            }
            if mode?.lowercased() != "wal" {
                throw SQLiteError(
                    code: SQLITE_ERROR, message: "could not switch to WAL (journal_mode is \(mode ?? "?"))")
            }
            try exec("PRAGMA synchronous = FULL")
        }
        try migrate(migrations)
    }

    /// Runs `body` again while it fails with SQLITE_BUSY, for at most `milliseconds`. SQLite does not call the busy
    /// handler for every lock: switching the journal mode while another process opens or closes the same file (a
    /// script reading the state, the last connection's checkpoint) can fail at once, and a run would stop at its start.
    static func retryingBusy<T>(for milliseconds: Int32, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        var waited: Int32 = 0
        while true {
            do { return try body() } catch {
                guard error.code & 0xFF == SQLITE_BUSY, waited < milliseconds else { throw error }
                sqlite3_sleep(20)
                waited += 20
            }
        }
    }

    /// Opens a private in-memory database (tests, scratch work).
    public static func inMemory(migrations: [String] = []) throws(SQLiteError) -> Database {
        try Database(path: nil, migrations: migrations)
    }

    /// Set by `close()`: the handle is gone and no further call may be made.
    private var closed = false

    /// Closes the connection now, releasing its file lock, rather than whenever the last reference goes (which
    /// under a busy task pool can be seconds later, while the next run waits for an exclusive store). No call may
    /// follow; every statement must already be finalized.
    public func close() {
        guard !closed else { return }
        closed = true
        sqlite3_close_v2(handle)
    }

    deinit {
        // close_v2 defers the close until every statement is finalized; statements hold a reference to us, so by
        // the time this runs they are gone.
        if !closed { sqlite3_close_v2(handle) }
    }

    /// The schema version (`PRAGMA user_version`).
    public var userVersion: Int {
        get throws(SQLiteError) { try query("PRAGMA user_version").first?.int("user_version") ?? 0 }
    }

    private func migrate(_ migrations: [String]) throws(SQLiteError) {
        let known = migrations.count
        let before = try userVersion
        if before > known {
            throw SQLiteError(
                code: SQLiteError.newerSchemaCode,
                message: "database \(path ?? ":memory:") has schema version \(before), newer than this program's "
                    + "\(known); use a newer Readback or another --db")
        }
        if before == known { return }
        // IMMEDIATE: take the write lock, then re-read, so two processes opening at once migrate once.
        try transaction { () throws(SQLiteError) in
            let current = try userVersion
            if current > known {
                throw SQLiteError(
                    code: SQLiteError.newerSchemaCode,
                    message:
                        "database \(path ?? ":memory:") has schema version \(current), newer than this program's \(known)"
                )
            }
            for v in current..<known {
                try exec(migrations[v])
                try exec("PRAGMA user_version = \(v + 1)")
            }
        }
    }

    /// Runs one or more SQL statements without parameters or results.
    /// - Throws: `SQLiteError` carrying the failing SQL.
    public func exec(_ sql: String) throws(SQLiteError) {
        onSQL?(sql)
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(err)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: msg, sql: sql)
        }
    }

    /// Compiles one statement (`sqlite3_prepare_v2`).
    /// - Throws: `SQLiteError` carrying the SQL when it does not compile.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        onSQL?(sql)
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: lastMessage, sql: sql)
        }
        return Statement(database: self, handle: stmt, sql: sql)
    }

    /// Runs one statement with parameters, ignoring any rows; returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(SQLiteError) -> Int {
        let s = try prepare(sql)
        try s.bind(parameters)
        while try s.step() {}
        return changes
    }

    /// Runs one statement with parameters and returns every row.
    public func query(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(SQLiteError) -> [Row] {
        let s = try prepare(sql)
        try s.bind(parameters)
        var rows: [Row] = []
        while try s.step() { rows.append(s.row()) }
        return rows
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` (the write lock taken up front); rolls back if it throws.
    /// - Throws: what `body` throws, or `SQLiteError` from BEGIN/COMMIT.
    @discardableResult
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try exec("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let v = try body()
            try exec("COMMIT")
            return v
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? exec("ROLLBACK") }
            throw error
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the most recent INSERT/UPDATE/DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// True when not inside a transaction.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    fileprivate var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A compiled statement; finalized in `deinit`. Keeps its database open while it lives.
public final class Statement {
    private let database: Database
    private let handle: OpaquePointer
    /// The SQL it was compiled from.
    public let sql: String

    fileprivate init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    private func check(_ rc: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK {
            throw SQLiteError(code: sqlite3_extended_errcode(database.handle), message: database.lastMessage, sql: sql)
        }
    }

    /// The number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds `value` to the 1-based parameter `index` (`sqlite3_bind_*`).
    public func bind(_ value: SQLiteValue, at index: Int) throws(SQLiteError) {
        let i = Int32(index)
        switch value {
        case .null: try check(sqlite3_bind_null(handle, i))
        case .integer(let v): try check(sqlite3_bind_int64(handle, i, v))
        case .real(let v): try check(sqlite3_bind_double(handle, i, v))
        case .text(let v):
            // Explicit byte length: text may contain NUL, which a -1 length would cut at.
            var copy = v
            try check(
                copy.withUTF8 { u in
                    u.withMemoryRebound(to: CChar.self) { c in
                        guard let base = c.baseAddress else { return sqlite3_bind_text(handle, i, "", 0, transient) }
                        return sqlite3_bind_text(handle, i, base, Int32(c.count), transient)
                    }
                })
        case .blob(let v):
            try check(
                v.withUnsafeBytes { raw in
                    // A zero-length blob must still be a blob, not NULL: bind_zeroblob for empty.
                    raw.count == 0
                        ? sqlite3_bind_zeroblob(handle, i, 0)
                        : sqlite3_bind_blob(handle, i, raw.baseAddress, Int32(raw.count), transient)
                })
        }
    }
    public func bind(_ value: Int, at index: Int) throws(SQLiteError) { try bind(.integer(Int64(value)), at: index) }
    public func bind(_ value: Double, at index: Int) throws(SQLiteError) { try bind(.real(value), at: index) }
    public func bind(_ value: String, at index: Int) throws(SQLiteError) { try bind(.text(value), at: index) }
    public func bind(_ value: [UInt8], at index: Int) throws(SQLiteError) { try bind(.blob(value), at: index) }
    public func bindNull(at index: Int) throws(SQLiteError) { try bind(.null, at: index) }

    /// Binds every parameter in order; the count must match.
    public func bind(_ values: [any SQLiteBindable]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "statement takes \(parameterCount) parameters, \(values.count) given",
                sql: sql)
        }
        for (i, v) in values.enumerated() { try bind(v.sqliteValue, at: i + 1) }
    }

    /// Advances (`sqlite3_step`). Returns true when a row is available, false when done.
    /// - Throws: `SQLiteError` with the statement's SQL (constraint violations, SQLITE_BUSY, I/O errors).
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let code = sqlite3_extended_errcode(database.handle)
            let msg = database.lastMessage
            sqlite3_reset(handle)
            throw SQLiteError(code: code, message: msg, sql: sql)
        }
    }

    /// Resets to run again; bindings are kept unless `clearBindings`.
    public func reset(clearBindings: Bool = false) {
        sqlite3_reset(handle)
        if clearBindings { sqlite3_clear_bindings(handle) }
    }

    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// The name of result column `index`.
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }
    /// True when column `index` of the current row is NULL.
    public func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
    public func int(_ index: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(index))) }
    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    public func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }
    /// Column `index` as text; `nil` when NULL.
    public func string(_ index: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
    /// Column `index` as bytes; `nil` when NULL.
    public func blob(_ index: Int) -> [UInt8]? {
        if isNull(index) { return nil }
        let p = sqlite3_column_blob(handle, Int32(index))
        let n = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard let p, n > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
    /// Column `index` as a typed value.
    public func value(_ index: Int) -> SQLiteValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index) ?? "")
        case SQLITE_BLOB: return .blob(blob(index) ?? [])
        default: return .null
        }
    }
    /// The current row.
    public func row() -> Row {
        let n = columnCount
        return Row(columns: (0..<n).map(columnName), values: (0..<n).map(value))
    }
}
