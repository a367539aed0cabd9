import Findings
import Foundation
import ReportModel

/// Writes report.json, junit.xml and report.html of a merge whose files stream past: each entry goes to scratch
/// files in the report folder at once (``Spool``), and the three files are assembled when the counts are known, so
/// memory does not grow with the number of files. The texts equal what ``Auditor/writeReports(_:to:html:)`` writes
/// for the same report.
final class MergedReportWriter {
    private let folder: URL
    private let gate: Severity
    private let json: ReportJSONSpool
    private let junit: Spool
    private let rows: Spool
    private let details: Spool
    /// The counts over the files appended so far (their verdicts as given).
    private(set) var summary = Summary()
    /// How many files were appended: the index of the next one.
    private(set) var count = 0

    init(folder: URL, gate: Severity) throws {
        self.folder = folder
        self.gate = gate
        func scratch(_ name: String) -> URL { folder.appendingPathComponent(".merge-\(name).part") }
        json = try ReportJSONSpool(scratch: scratch("files"))
        junit = try Spool(url: scratch("testcases"))
        rows = try Spool(url: scratch("rows"))
        details = try Spool(url: scratch("details"))
    }

    /// Appends one file (its verdict already set against the gate) and its thumbnails' links.
    func append(_ f: FileResult, thumbnails: ThumbnailLinks) throws {
        try json.append(f)
        try junit.append(JUnitRenderer.testcase(f, gate: gate))
        try rows.append(HTMLRenderer.row(f, index: count))
        try details.append(HTMLRenderer.detail(f, index: count, gate: gate, thumbnails: thumbnails))
        summary.add(f)
        count += 1
    }

    /// Writes the three files around what was appended; `header` gives everything but the files.
    func finish(header: AuditReport) throws {
        try json.finish(header: header, into: folder.appendingPathComponent("report.json"))
        try Spool.write(
            [
                .text(HTMLRenderer.head(header) + HTMLRenderer.tableHead), .spool(rows),
                .text(HTMLRenderer.tableTail(unmatchedOutputs: header.unmatchedOutputs)), .spool(details),
                .text(HTMLRenderer.foot),
            ], into: folder.appendingPathComponent("report.html"))
        try junit.finish(
            head: JUnitRenderer.head(header), tail: JUnitRenderer.tail,
            into: folder.appendingPathComponent("junit.xml"))
    }

    /// Removes the scratch files (a merge that stopped).
    func discard() {
        json.discard()
        for s in [junit, rows, details] { s.discard() }
    }
}
