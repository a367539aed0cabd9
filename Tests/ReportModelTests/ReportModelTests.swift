import Findings
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
    #expect(r.files[0].findings.map(\.code) == [.gainmapMissing, .metadataLost, .metadataKnownLoss])
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

/// Schema 4 renamed the camelCase container codes: a version-3 report (an earlier `--baseline`) reads with the new
/// names, so its findings compare with today's. A code is read through the catalogue, so an old name in any version
/// reads as the current code, and writing the report again spells it the current way.
@Test func aVersionThreeReportReadsWithTheRenamedCodes() throws {
    let r = FixedReport.make()
    let current = r.jsonText()
    #expect(current.contains("\"code\" : \"container.truncated\""))
    let v3 = current.replacingOccurrences(
        of: "\"schemaVersion\" : \(AuditReport.currentSchemaVersion),", with: "\"schemaVersion\" : 3,"
    ).replacingOccurrences(
        of: "\"code\" : \"container.truncated\"", with: "\"code\" : \"container.iloc.extentPastEOF\"")
    #expect(v3.contains("container.iloc.extentPastEOF"))
    let read = try AuditReport.decode(Data(v3.utf8))
    let codes = read.files.flatMap(\.findings).map(\.code)
    #expect(codes.contains(.containerIlocExtentPastEof))
    let written = read.jsonText()
    #expect(written.contains("\"code\" : \"container.iloc.extent-past-eof\""))
    #expect(!written.contains("extentPastEOF"))
    let v4 = current.replacingOccurrences(
        of: "\"code\" : \"container.truncated\"", with: "\"code\" : \"container.iloc.extentPastEOF\"")
    #expect(
        try AuditReport.decode(Data(v4.utf8)).files.flatMap(\.findings).map(\.code).contains(
            .containerIlocExtentPastEof))
}

/// A code this build's catalogue does not list (a report or baseline written by a newer Readback) is refused with
/// an error naming the code and where it is, by the whole-report reader (`--baseline`) and by the streaming one
/// (`readback merge`, history); it is never read as another code or dropped.
@Test func aReportWithAnUnknownCodeIsRefusedNamingTheCode() throws {
    let current = FixedReport.make().jsonText()
    let future = current.replacingOccurrences(
        of: "\"code\" : \"container.truncated\"", with: "\"code\" : \"container.from-the-future\"")
    #expect(future != current)
    do {
        _ = try AuditReport.decode(Data(future.utf8))
        Issue.record("a report with an unknown code was read")
    } catch let e as FindingCode.Unknown {
        #expect(e.code == "container.from-the-future")
        #expect(e.path.hasPrefix("files[") && e.path.hasSuffix("].code"), "\(e.path)")
        let text = "\(e)"
        #expect(text.contains("unknown finding code 'container.from-the-future'"), "\(text)")
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("future-\(UUID().uuidString).json")
    try Data(future.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let stream = try ReportStream(path: url.path)
    var message = ""
    do {
        while try stream.nextFile() != nil {}
    } catch {
        message = error.description
    }
    #expect(message.contains("unknown finding code 'container.from-the-future'"), "\(message)")
}

/// The run's mode and a decode row's target and status are enums whose JSON is the strings reports always had.
@Test func modesTargetsAndStatusesAreWrittenAsTheirStrings() throws {
    #expect(AuditMode.allCases.map(\.rawValue) == ["pair", "directories", "pairs-file", "outputs-only", "output"])
    #expect(DecodeResult.Target.allCases.map(\.rawValue) == ["primary", "gainmap"])
    #expect(DecodeResult.Status.allCases.map(\.rawValue) == ["ok", "failed", "skipped"])
    let e = JSONEncoder()
    e.outputFormatting = .sortedKeys
    let row = String(decoding: try e.encode(DecodeResult(target: .gainmap, status: .skipped)), as: UTF8.self)
    #expect(row == #"{"status":"skipped","target":"gainmap"}"#)
    let run = String(decoding: try e.encode(RunParameters(mode: .pairsFile, startedAt: "t")), as: UTF8.self)
    #expect(run.contains(#""mode":"pairs-file""#), "\(run)")
}
