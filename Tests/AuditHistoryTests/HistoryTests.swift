import Findings
import ReportModel
import TestSupport
import Testing

@testable import AuditHistory

/// The audit history (the AuditHistory target, SQLite through Store) over the fixed report.
@Test func historyStoresRunsAndDiffsTheLastTwo() throws {
    let h = try History()
    let r1 = FixedReport.make()
    var r2 = r1
    r2.files[0].findings.removeAll { $0.code == .metadataLost }
    r2.files[1].findings.append(
        Finding(code: .decodeGainmapFailed, severity: .error, message: "x", evidence: Evidence(item: 5)))
    r2.recomputeSummary()
    let id1 = try h.record(r1)
    let id2 = try h.record(r2)
    #expect(id2 > id1)
    let runs = try h.recentRuns(limit: 10)
    #expect(runs.map(\.id) == [id2, id1])
    #expect(runs[1].files == 4 && runs[1].failed == 3 && runs[1].errors == 4)
    #expect(runs[1].roots == "{\"outputs\": \"out\", \"sources\": \"src\"}")
    let ch = try h.changes(from: id1, to: id2)
    #expect(ch.new.map(\.code) == ["decode.gainmap-failed"])
    #expect(ch.new.first?.subject == "item 5")
    #expect(ch.fixed.map(\.code) == ["metadata.lost"])
    #expect(ch.fixed.first?.subject == "GPS:GPSLatitude")
}

/// A run recorded before a code was renamed (report schema 3) compares with one after it: the old name is read as
/// the new one, so the rename is neither a new finding nor a fixed one. A finding can no longer carry an old name,
/// so the older run's row is given it in the database, as an earlier build wrote it.
@Test func historyComparesRenamedCodesByTheirCurrentName() throws {
    let h = try History()
    var report = FixedReport.make()
    report.files[0].findings.append(
        Finding(code: .containerIpmaUnknownItem, severity: .warning, message: "ipma lists item 9"))
    let id1 = try h.record(report)
    let id2 = try h.record(report)
    let renamed = try h.db.run(
        "UPDATE findings SET code = ? WHERE run_id = ? AND code = ?",
        ["container.ipma.unknownItem", id1, "container.ipma.unknown-item"])
    #expect(renamed == 1)
    let ch = try h.changes(from: id1, to: id2)
    #expect(ch.new.isEmpty && ch.fixed.isEmpty, "\(ch)")
    #expect(try h.findings(run: id1).contains { $0.code == "container.ipma.unknown-item" })
}
