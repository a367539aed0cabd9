import Foundation
import ReportModel

/// The report's files in its folder: `report.json`, `report.html` and `junit.xml`.
public enum ReportFiles {
    /// How report.html shows the thumbnails in `DIR/thumbs`.
    public enum HTMLThumbnails: Sendable {
        /// `img` elements linking the files by relative path (those that exist).
        case linked
        /// The files inlined as data URIs, so report.html is one self-contained file; the files are removed.
        case inlined
    }

    /// Writes `report.json`, `report.html` and `junit.xml` into `dir` (created if needed), one file entry at a time
    /// (``MergedReportWriter``): no text of the whole report is held in memory, and each file lands whole (renamed
    /// into place). With linked thumbnails, the compact rows of a large report go to chunk files in `report-files/`
    /// (``HTMLRowChunks``), written before the page; inlined, report.html stays one self-contained file.
    /// - Parameters:
    ///   - report: the report.
    ///   - dir: the report's folder; the thumbnails, if any, are in its `thumbs` folder (``ThumbnailFolder``).
    ///   - html: whether report.html links the thumbnails or inlines them.
    /// - Throws: the file system's error, naming the file.
    public static func write(_ report: AuditReport, to dir: URL, html: HTMLThumbnails = .linked) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let folder = ThumbnailFolder(reportDirectory: dir)
        let thumbnails = html == .linked ? folder.linker() : folder.inlined
        // No fsync, as the whole-text writes before it: the next run rewrites the report anyway.
        let writer = try MergedReportWriter(
            folder: dir, gate: report.run.failOn, scratchPrefix: ".report-", sync: false, chunked: html == .linked)
        do {
            for (i, f) in report.files.enumerated() { try writer.append(f, thumbnails: thumbnails(i)) }
            try writer.finish(header: report)
        } catch {
            writer.discard()
            throw error
        }
        if html == .inlined { try folder.clear() }
    }
}
