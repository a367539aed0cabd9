import Foundation
import ReportModel
import TestSupport
import Testing

@Test func reportSummaryCountsAndVerdicts() {
    let r = FixedReport.make()
    #expect(r.summary.files == 4)
    #expect(r.summary.failed == 3)
    #expect(r.summary.passed == 1)
    #expect(r.summary.findingsBySeverity == ["error": 4, "warning": 1, "known-loss": 1, "info": 1])
    #expect(r.summary.gainMapsComplete == 1)
    #expect(r.files.map(\.verdict) == [.fail, .pass, .fail, .fail])
    #expect(r.files[0].sizeRatio == 0.125)
    // Findings sorted most severe first, then by code.
    #expect(r.files[0].findings.map(\.code) == ["gainmap.missing", "metadata.lost", "metadata.known-loss"])
    #expect(r.gateFails)
    var w = r
    w.run.failOn = .info
    w.recomputeSummary()
    #expect(w.summary.failed == 4)
}

@Test func jsonRoundTripsAndPutsSchemaVersionFirst() throws {
    let r = FixedReport.make()
    let text = r.jsonText()
    let lines = text.split(separator: "\n")
    #expect(lines[1] == "  \"schemaVersion\" : \(AuditReport.currentSchemaVersion),")
    let back = try AuditReport.decode(Data(text.utf8))
    #expect(back == r)
    #expect(Golden.check(text, named: "report.json") == nil)
}

@Test func readersRefuseAnotherSchemaVersion() {
    let r = FixedReport.make()
    let text = r.jsonText().replacingOccurrences(
        of: "\"schemaVersion\" : \(AuditReport.currentSchemaVersion),", with: "\"schemaVersion\" : 99,")
    #expect(throws: AuditReport.UnsupportedSchema.self) { try AuditReport.decode(Data(text.utf8)) }
    #expect(throws: AuditReport.UnsupportedSchema.self) { try AuditReport.decode(Data("{\"files\": []}".utf8)) }
}

/// Schema 2 only dropped `files[].thumbnails`: a version-1 report (an earlier `--baseline`) still reads, as the
/// same report without its thumbnails.
@Test func readersReadAVersionOneReportWithItsThumbnails() throws {
    let r = FixedReport.make()
    var v1 = r.jsonText().replacingOccurrences(
        of: "\"schemaVersion\" : \(AuditReport.currentSchemaVersion),", with: "\"schemaVersion\" : 1,")
    #expect(v1.contains("\"schemaVersion\" : 1,"))
    v1 = v1.replacingOccurrences(
        of: "      \"sha256\" : \"\(String(repeating: "ab", count: 32))\",",
        with: "      \"sha256\" : \"\(String(repeating: "ab", count: 32))\",\n"
            + "      \"thumbnails\" : { \"primary\" : \"data:image/png;base64,iVBORw0KGgo=\" },")
    #expect(v1.contains("\"thumbnails\""))
    #expect(try AuditReport.decode(Data(v1.utf8)) == r)
    #expect(!r.jsonText().contains("thumbnails"))
}
