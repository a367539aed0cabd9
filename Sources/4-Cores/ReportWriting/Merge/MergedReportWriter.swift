import Findings
import Foundation
import ReportModel

/// Writes report.json, junit.xml and report.html while the files stream past: each entry goes to scratch files in
/// the report folder at once (``Spool``), and the three files are assembled when the counts are known, so memory
/// does not grow with the number of files. A merge feeds it from the shards' reports; ``ReportFiles/write(_:to:html:)``
/// from the audit's report, so no text of the whole report is ever built in memory. The texts equal
/// ``AuditReport/jsonText()``, ``HTMLRenderer/render(_:thumbnails:)`` and ``JUnitRenderer/render(_:)`` of the same
/// report.
final class MergedReportWriter {
    private let folder: URL
    private let gate: Severity
    private let sync: Bool
    private let json: ReportJSONSpool
    private let junit: Spool
    private let rows: Spool
    private let passingRows: Spool
    private let passingDetails: Spool
    private var folders = HTMLRenderer.FolderCounts()
    private var passing = 0
    private var failing = 0
    private let details: Spool
    /// The passing files' compact rows as chunk files beside the page (nil: all in the page).
    private let chunks: HTMLRowChunks?
    /// The failing files' details past the first ones, as chunk files (nil: all in the page).
    private let detailChunks: HTMLRowChunks?
    /// The counts over the files appended so far (their verdicts as given).
    private(set) var summary = Summary()
    /// How many files were appended: the index of the next one.
    private(set) var count = 0

    /// - Parameters:
    ///   - scratchPrefix: how the scratch files in `folder` begin (`.merge-files.part`, ...).
    ///   - sync: flush each file to the disk before renaming it into place (``Spool/write(_:into:sync:)``).
    ///   - chunked: past the passing files shown in full, write the compact rows as chunk files beside the page
    ///     (``HTMLRowChunks``); false keeps them in the page (one self-contained file).
    init(
        folder: URL, gate: Severity, scratchPrefix: String = ".merge-", sync: Bool = true, chunked: Bool = true
    ) throws {
        self.folder = folder
        self.gate = gate
        self.sync = sync
        let run = HTMLRowChunks.randomRun()
        chunks = chunked ? HTMLRowChunks(reportDirectory: folder, run: run) : nil
        detailChunks = chunked ? HTMLRowChunks(reportDirectory: folder, run: run, kind: .details) : nil
        func scratch(_ name: String) -> URL { folder.appendingPathComponent("\(scratchPrefix)\(name).part") }
        json = try ReportJSONSpool(scratch: scratch("files"))
        junit = try Spool(url: scratch("testcases"))
        rows = try Spool(url: scratch("rows"))
        passingRows = try Spool(url: scratch("passing-rows"))
        passingDetails = try Spool(url: scratch("passing-details"))
        details = try Spool(url: scratch("details"))
    }

    /// Appends one file (its verdict already set against the gate) and its thumbnails' links.
    func append(_ f: FileResult, thumbnails: ThumbnailLinks) throws {
        try json.append(f)
        try junit.append(JUnitRenderer.testcase(f, gate: gate))
        // Problems first: failing files' rows, then the passing ones (compact past the first few hundred); the
        // failing files' details, then those of the passing files shown in full.
        if f.verdict == .fail {
            let detail = HTMLRenderer.detail(f, index: count, gate: gate, thumbnails: thumbnails)
            // Past the first failing files, the details go to chunks; the row names the chunk its details are in.
            if let detailChunks, failing >= HTMLRenderer.fullFailingDetails {
                let row = HTMLRenderer.row(f, index: count, detailsIn: detailChunks.next)
                try rows.append(HTMLRenderer.failingBreak(before: failing) + row)
                if let placeholder = try detailChunks.add(detail) { try details.append(placeholder) }
            } else {
                try rows.append(HTMLRenderer.failingBreak(before: failing) + HTMLRenderer.row(f, index: count))
                try details.append(detail)
            }
            failing += 1
        } else {
            if passing < HTMLRenderer.fullPassingFiles {
                try passingRows.append(HTMLRenderer.chunkBreak(before: passing) + HTMLRenderer.row(f, index: count))
                try passingDetails.append(HTMLRenderer.detail(f, index: count, gate: gate, thumbnails: thumbnails))
            } else if let chunks {
                // The rows in the page so far fill exactly one chunk: it closes, and placeholders follow.
                if passing == HTMLRenderer.fullPassingFiles { try passingRows.append(HTMLRenderer.chunksEnd(count: 1)) }
                if let placeholder = try chunks.add(HTMLRenderer.compactRow(f)) { try passingRows.append(placeholder) }
            } else {
                try passingRows.append(HTMLRenderer.chunkBreak(before: passing) + HTMLRenderer.compactRow(f))
            }
            passing += 1
        }
        folders.add(f)
        summary.add(f)
        count += 1
    }

    /// Writes the three files around what was appended; `header` gives everything but the files.
    /// The chunk files, all written before the page, are this report's; an earlier run's are removed once the page
    /// is in place.
    func finish(header: AuditReport) throws {
        try json.finish(header: header, into: folder.appendingPathComponent("report.json"), sync: sync)
        let lazy = chunks != nil && passing > HTMLRenderer.fullPassingFiles
        let rowsEnd = lazy ? try chunks!.finish() : HTMLRenderer.chunksEnd(count: passing)
        if let detailChunks { try details.append(try detailChunks.finish()) }
        let anyChunks = lazy || (detailChunks?.count ?? 0) > 0
        try Spool.write(
            [
                .text(HTMLRenderer.head(header, folders: folders) + HTMLRenderer.tableHead), .spool(rows),
                .text(HTMLRenderer.failingTableEnd(count: failing)), .spool(passingRows),
                .text(
                    rowsEnd
                        + HTMLRenderer.tableTail(unmatchedOutputs: header.unmatchedOutputs)),
                .spool(details), .spool(passingDetails),
                .text(HTMLRenderer.foot),
            ], into: folder.appendingPathComponent("report.html"), sync: sync)
        HTMLRowChunks.clear(in: folder, keeping: anyChunks ? chunks!.run : nil)
        try junit.finish(
            head: JUnitRenderer.head(header), tail: JUnitRenderer.tail,
            into: folder.appendingPathComponent("junit.xml"), sync: sync)
    }

    /// Removes the scratch files (a merge that stopped).
    func discard() {
        json.discard()
        for s in [junit, rows, passingRows, details, passingDetails] { s.discard() }
        chunks?.discard()
        detailChunks?.discard()
    }
}
