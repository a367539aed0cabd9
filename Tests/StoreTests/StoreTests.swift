import Foundation
import Store
import TestSupport
import Testing

@Test func storeRoundTripsEveryValueType() throws {
    let db = try Database.inMemory()
    try db.exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)")
    let blob: [UInt8] = [0, 1, 2, 255, 0]
    try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64.max, 0.1, "héllo ✓ \u{0}x", blob, Optional<String>.none])
    #expect(db.lastInsertRowID == 1)
    let rows = try db.query("SELECT * FROM t")
    #expect(rows.count == 1)
    let r = try #require(rows.first)
    #expect(r.int64("i") == Int64.max)
    #expect(r.double("d") == 0.1)
    #expect(r.string("s") == "héllo ✓ \u{0}x")
    #expect(r.blob("b") == blob)
    #expect(r["n"] == .null)
    #expect(r.columns == ["i", "d", "s", "b", "n"])

    // Statement-level getters and re-use with reset.
    let st = try db.prepare("SELECT ?1 + 1, ?2, ?3, ?4")
    try st.bind(41, at: 1)
    try st.bind("", at: 2)
    try st.bind([UInt8](), at: 3)
    try st.bindNull(at: 4)
    #expect(try st.step())
    #expect(st.int(0) == 42)
    #expect(st.string(1) == "")
    #expect(st.value(1) == .text(""))
    #expect(st.blob(2) == [])
    #expect(st.isNull(3))
    #expect(st.string(3) == nil)
    #expect(try st.step() == false)
    st.reset()
    try st.bind(1.5, at: 1)
    #expect(try st.step())
    #expect(st.double(0) == 2.5)
}

@Test func storeErrorsCarryCodeMessageAndSQL() throws {
    let db = try Database.inMemory()
    let bad = "SELEC nonsense"
    do {
        _ = try db.query(bad)
        Issue.record("bad SQL did not throw")
    } catch {
        #expect(error.sql == bad)
        #expect(error.primaryCode == 1)
        #expect(error.message.contains("syntax error"))
        #expect(error.description.contains(bad))
    }
    try db.exec("CREATE TABLE u (k TEXT PRIMARY KEY NOT NULL)")
    try db.run("INSERT INTO u VALUES (?)", ["a"])
    do {
        try db.run("INSERT INTO u VALUES (?)", ["a"])
        Issue.record("duplicate key did not throw")
    } catch {
        #expect(error.isConstraint)
        #expect(error.code == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error.sql == "INSERT INTO u VALUES (?)")
    }
    #expect(throws: SQLiteError.self) { try db.run("INSERT INTO u VALUES (?)", ["a", "b"]) }
}

@Test func storeTransactionsCommitAndRollBack() throws {
    let db = try Database.inMemory()
    try db.exec("CREATE TABLE t (v INTEGER)")
    try db.transaction { () throws(SQLiteError) in try db.run("INSERT INTO t VALUES (1)") }
    do {
        try db.transaction { () throws(SQLiteError) in
            try db.run("INSERT INTO t VALUES (2)")
            try db.run("INSERT INTO nowhere VALUES (3)")
        }
        Issue.record("transaction with a failing statement did not throw")
    } catch {
        #expect(error.sql == "INSERT INTO nowhere VALUES (3)")
    }
    #expect(db.isAutocommit)
    #expect(try db.query("SELECT v FROM t").map { $0.int("v") } == [1])
}

@Test func storeMigratesExactlyOnceAndRefusesNewerSchemas() throws {
    let dir = Repo.temporaryDirectory("readback-store")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("s.db").path
    let v1 = ["CREATE TABLE a (x INTEGER)"]
    let v2 = v1 + ["ALTER TABLE a ADD COLUMN y TEXT"]

    var seen: [String] = []
    do {
        let db = try Database(path: path, migrations: v1)
        #expect(try db.userVersion == 1)
        let mode = try db.query("PRAGMA journal_mode").first?.string("journal_mode")
        #expect(mode == "wal")
        try db.run("INSERT INTO a (x) VALUES (7)")
    }
    do {
        // Only the second step runs; the first is not replayed (it would fail: table exists).
        let db = try Database(path: path, migrations: v2)
        #expect(try db.userVersion == 2)
        try db.run("UPDATE a SET y = 'z'")
        #expect(try db.query("SELECT x, y FROM a").first?.string("y") == "z")
    }
    do {
        // Up to date: no migration SQL is sent at all.
        let probe = try Database(path: path, migrations: v2)
        probe.onSQL = { seen.append($0) }
        _ = try probe.userVersion
        #expect(!seen.contains { $0.contains("ALTER") || $0.contains("CREATE") })
    }
    do {
        _ = try Database(path: path, migrations: v1)
        Issue.record("opening a newer database with an older schema did not throw")
    } catch {
        #expect(error.code == SQLiteError.newerSchemaCode)
        #expect(error.message.contains("schema version 2, newer than this program's 1"))
    }
}

@Test func storeSecondWriterGetsBusy() throws {
    let dir = Repo.temporaryDirectory("readback-store")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("s.db").path
    let a = try Database(path: path, migrations: ["CREATE TABLE t (v)"])
    let b = try Database(path: path, migrations: ["CREATE TABLE t (v)"], busyTimeoutMilliseconds: 10)
    try a.exec("BEGIN IMMEDIATE")
    do {
        try b.exec("BEGIN IMMEDIATE")
        Issue.record("second writer got the lock")
    } catch {
        #expect(error.isBusy)
    }
    try a.exec("COMMIT")
    try b.exec("BEGIN IMMEDIATE")
    try b.exec("COMMIT")
}

@Test func storeOpenFailureNamesThePath() throws {
    do {
        _ = try Database(path: "/nonexistent-dir-readback/x.db")
        Issue.record("opening under a missing folder did not throw")
    } catch {
        #expect(error.message.contains("/nonexistent-dir-readback/x.db"))
        #expect(error.primaryCode == 14)  // SQLITE_CANTOPEN
    }
}
