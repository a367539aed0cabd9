import Findings
import Foundation
import ReportModel

/// Renders a report as one HTML page: inline CSS and JS, no network. Thumbnails are `img` elements whose sources the
/// caller gives: relative paths to files beside the page (`thumbs/…`, ``ThumbnailFolder``), or data URIs when the
/// page must be one self-contained file.
///
/// Layout, problems first: the summary (counts by verdict, severity and code, then by folder); a sortable (click a
/// header) and filterable (text box, verdict menu) table of files, the failing ones first, each linked to its
/// details; passing files likewise up to ``fullPassingFiles``, and as compact rows with no details past that; then one
/// collapsible detail block per file shown in full (the failing ones first) with
/// its findings, metadata diff, gain-map parts (✓/✗/–), decode results and thumbnails. The browser lays out a
/// detail block only when it scrolls into view (`content-visibility`), so a report of many failures opens fast.
/// ``render(_:thumbnails:)`` keeps the compact rows in the page (one self-contained file); the report writer puts
/// them in chunk files beside the page, loaded on demand (``HTMLRowChunks``), when there are any.
public enum HTMLRenderer {
    /// The HTML text.
    /// - Parameters:
    ///   - report: the report to render.
    ///   - thumbnails: the thumbnails' sources for the file at each index of `report.files` (none by default).
    /// - Returns: a UTF-8 HTML5 document ending in a newline.
    public static func render(
        _ report: AuditReport, thumbnails: (Int) -> ThumbnailLinks = { _ in ThumbnailLinks() }
    ) -> String {
        var folders = FolderCounts()
        for f in report.files { folders.add(f) }
        var h = head(report, folders: folders) + tableHead
        var failing = 0
        for (i, f) in report.files.enumerated() where f.verdict == .fail {
            h += failingBreak(before: failing) + row(f, index: i)
            failing += 1
        }
        h += failingTableEnd(count: failing)
        var passing = 0
        var passingDetails = ""
        for (i, f) in report.files.enumerated() where f.verdict != .fail {
            if passing < fullPassingFiles {
                h += chunkBreak(before: passing) + row(f, index: i)
                passingDetails += detail(f, index: i, gate: report.run.failOn, thumbnails: thumbnails(i))
            } else {
                h += chunkBreak(before: passing) + compactRow(f)
            }
            passing += 1
        }
        h += chunksEnd(count: passing) + tableTail(unmatchedOutputs: report.unmatchedOutputs)
        for (i, f) in report.files.enumerated() where f.verdict == .fail {
            h += detail(f, index: i, gate: report.run.failOn, thumbnails: thumbnails(i))
        }
        return h + passingDetails + foot
    }

    /// Files and failing files per folder (the folder part of each file's name; `.` for the top).
    public struct FolderCounts: Sendable {
        public private(set) var files: [String: Int] = [:]
        public private(set) var failed: [String: Int] = [:]
        public init() {}

        /// Counts one file.
        public mutating func add(_ f: FileResult) {
            let folder = f.name.lastIndex(of: "/").map { String(f.name[..<$0]) } ?? "."
            files[folder, default: 0] += 1
            if f.verdict == .fail { failed[folder, default: 0] += 1 }
        }
    }

    /// The most folders the summary lists (those with the most failing files first).
    static let folderRows = 50

    /// The summary's table of folders: the ones with the most failing files first, then by name.
    static func folderTable(_ c: FolderCounts) -> String {
        guard c.files.count > 1 else { return "" }
        let order = c.files.keys.sorted { a, b in
            let (x, y) = (c.failed[a] ?? 0, c.failed[b] ?? 0)
            return x != y ? x > y : a < b
        }
        var h = "<h3>By folder</h3><table id=\"folders\"><thead><tr><th>folder</th><th>files</th><th>failing</th>"
        h += "</tr></thead><tbody>"
        for k in order.prefix(folderRows) {
            let bad = c.failed[k] ?? 0
            h += "<tr\(bad > 0 ? " class=\"fail\"" : "")><td><code>\(esc(k))</code></td><td>\(c.files[k] ?? 0)</td>"
            h += "<td>\(bad)</td></tr>"
        }
        h += "</tbody></table>\n"
        if order.count > folderRows { h += "<p>… and \(order.count - folderRows) more folders.</p>\n" }
        return h
    }

    /// The page up to the file table: the run's line and the summary section (counts, codes, folders, baseline).
    public static func head(_ report: AuditReport, folders: FolderCounts = FolderCounts()) -> String {
        let s = report.summary
        var h = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Readback audit — \(s.failed) of \(s.files) failing</title>
            <style>\(css)</style>
            </head>
            <body>
            <header><h1>Readback audit</h1>
            <p class="meta">\(esc(report.tool.name)) \(esc(report.tool.version)) · \
            \(report.libraries.map { esc($0.name) + " " + esc($0.version) + " · " }.joined())\
            started \(esc(report.run.startedAt)) · mode \(report.run.mode.rawValue) · \
            gate \(esc(report.run.failOn.rawValue)) · \(report.run.decode ? "full decode" : "no decode") · \
            policy \(esc(report.run.policy)) · schema \(report.schemaVersion)</p></header>

            """
        // Summary first.
        h += "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">\n"
        h += card("files", s.files, "")
        h += card("passed", s.passed, "ok")
        h += card("failed", s.failed, s.failed > 0 ? "bad" : "")
        for sev in Severity.allCases {
            h += card(
                sev.rawValue, s.findingsBySeverity[sev.rawValue] ?? 0,
                s.findingsBySeverity[sev.rawValue] ?? 0 > 0 ? "sev-\(sev.rawValue)" : "")
        }
        h += card("complete gain maps", s.gainMapsComplete, "")
        if s.unmatchedOutputs > 0 { h += card("outputs without source", s.unmatchedOutputs, "") }
        h += "</div>\n"
        if !s.findingsByCode.isEmpty {
            h += "<p class=\"codes\">"
            h += s.findingsByCode.keys.sorted().map { "<code>\(esc($0))</code>&nbsp;×\(s.findingsByCode[$0]!)" }
                .joined(separator: " · ")
            h += "</p>\n"
        }
        h += folderTable(folders)
        if let b = report.baseline {
            h += "<h3>Against baseline <code>\(esc(b.path))</code></h3>\n"
            h += changes("Regressions", b.regressions, "bad") + changes("Improvements", b.improvements, "ok")
        }
        return h + "</section>\n"
    }

    /// The file table's opening, up to its first row.
    public static let tableHead = """
        <section id="files"><h2>Files, failing first</h2>
        <div class="filters"><input id="filter" type="search" placeholder="Filter by name or code…" aria-label="filter">
        <select id="verdict" aria-label="verdict"><option value="">all verdicts</option>\
        <option value="fail">fail</option><option value="pass">pass</option></select>
        <span id="shown"></span></div>
        <table id="filetable" class="ft">\(columns)<thead><tr>
        <th data-type="text">file</th><th data-type="text">verdict</th><th data-type="num">worst</th>\
        <th data-type="num">findings</th><th data-type="text">codes</th><th data-type="num">size ratio</th>\
        <th data-type="text">gain maps</th><th data-type="text">decode</th>
        </tr></thead><tbody>

        """

    /// One file's row of the table; `index` is its place in the report (the anchor of its details); `detailsIn`,
    /// the details chunk that holds its details when they are not in the page (``HTMLRowChunks``).
    public static func row(_ f: FileResult, index i: Int, detailsIn: Int? = nil) -> String {
        var h = ""
        let codes = Array(Set(f.findings.map(\.code.rawValue))).sorted()
        let worst = f.worstSeverity
        h += "<tr class=\"\(f.verdict.rawValue)\" data-verdict=\"\(f.verdict.rawValue)\">"
        let chunk = detailsIn.map { " data-in=\"\($0)\"" } ?? ""
        h += "<td data-v=\"\(esc(f.name))\"><a href=\"#f\(i)\" data-open=\"f\(i)\"\(chunk)>\(esc(f.name))</a></td>"
        h += "<td data-v=\"\(f.verdict.rawValue)\" class=\"verdict\">\(f.verdict.rawValue)</td>"
        h +=
            "<td data-v=\"\(worst?.rank ?? -1)\" class=\"sev-\(worst?.rawValue ?? "none")\">\(worst?.rawValue ?? "—")</td>"
        h += "<td data-v=\"\(f.findings.count)\">\(f.findings.count)</td>"
        h +=
            "<td data-v=\"\(esc(codes.joined(separator: " ")))\">\(codes.map { "<code>\(esc($0))</code>" }.joined(separator: " "))</td>"
        h +=
            "<td data-v=\"\(f.sizeRatio.map { String($0) } ?? "-1")\">\(f.sizeRatio.map { String(format: "%.3f", $0) } ?? "—")</td>"
        let gm = f.gainMaps.map { "\(esc($0.kind)) \($0.isComplete ? "✓" : "✗")" }.joined(separator: ", ")
        h += "<td data-v=\"\(esc(gm))\">\(gm.isEmpty ? "—" : gm)</td>"
        let dec = f.decode.map { "\($0.target.rawValue) \(mark($0.status.rawValue))" }.joined(separator: ", ")
        h += "<td data-v=\"\(esc(dec))\">\(dec.isEmpty ? "—" : dec)</td>"
        h += "</tr>\n"
        return h
    }

    /// How many passing files are shown in full (linked row, details, thumbnails), the first ones in the report's
    /// order: a small report shows every file; past this, passing files are compact rows.
    public static let fullPassingFiles = 500

    /// How many failing files' details the report writer keeps in the page; the others' are in details chunks, loaded
    /// when they scroll near or their row's link is followed. Every failing file's row stays in the page.
    public static let fullFailingDetails = 500

    /// A passing file's row: the same columns, no link (it has no details), and a `data-v` only where
    /// the sort key differs from the text, so a report of 100,000 passing files stays small.
    public static func compactRow(_ f: FileResult) -> String {
        let worst = f.worstSeverity
        let codes = Array(Set(f.findings.map(\.code.rawValue))).sorted()
        var h = "<tr class=\"pass\" data-verdict=\"pass\"><td>\(esc(f.name))</td><td class=\"verdict\">pass</td>"
        h +=
            "<td data-v=\"\(worst?.rank ?? -1)\" class=\"sev-\(worst?.rawValue ?? "none")\">\(worst?.rawValue ?? "—")</td>"
        h += "<td>\(f.findings.count)</td><td>\(codes.map { "<code>\(esc($0))</code>" }.joined(separator: " "))</td>"
        h += "<td data-v=\"\(f.sizeRatio.map { String($0) } ?? "-1")\">"
        h += "\(f.sizeRatio.map { String(format: "%.3f", $0) } ?? "—")</td>"
        let gm = f.gainMaps.map { "\(esc($0.kind)) \($0.isComplete ? "✓" : "✗")" }.joined(separator: ", ")
        let dec = f.decode.map { "\($0.target.rawValue) \(mark($0.status.rawValue))" }.joined(separator: ", ")
        return h + "<td>\(gm.isEmpty ? "—" : gm)</td><td>\(dec.isEmpty ? "—" : dec)</td></tr>\n"
    }

    /// The column widths every file table shares, so the chunks' tables line up with the first one.
    static let columns =
        "<colgroup><col style=\"width:32%\"><col style=\"width:6%\"><col style=\"width:7%\"><col style=\"width:6%\">"
        + "<col style=\"width:23%\"><col style=\"width:7%\"><col style=\"width:10%\"><col style=\"width:9%\"></colgroup>"

    /// What goes before failing row `k` (from 0): the first ``chunkRows`` rows are in the table under the headers,
    /// the rest in chunks as the passing rows are.
    public static func failingBreak(before k: Int) -> String {
        guard k > 0, k % chunkRows == 0 else { return "" }
        return (k == chunkRows ? "</tbody></table>\n" : chunkClose) + chunkOpen
    }

    /// The end of the failing files' rows (`count` of them); the passing files follow in chunks of their own.
    public static func failingTableEnd(count: Int) -> String {
        count > chunkRows ? chunkClose : "</tbody></table>\n"
    }

    /// Passing rows per chunk: each chunk is its own table in a block the browser lays out only when it scrolls
    /// into view (`content-visibility`), so 100,000 compact rows cost little until they are looked at.
    static let chunkRows = 500

    /// What goes before passing row `k` (from 0): a new chunk every ``chunkRows`` rows, closing the one before.
    public static func chunkBreak(before k: Int) -> String {
        guard k % chunkRows == 0 else { return "" }
        return (k > 0 ? chunkClose : "") + chunkOpen
    }

    static let chunkOpen = "<div class=\"chunk\"><table class=\"ft\">\(columns)<tbody>\n"

    /// What closes the last chunk after `count` passing rows.
    public static func chunksEnd(count: Int) -> String { count > 0 ? chunkClose : "" }

    static let chunkClose = "</tbody></table></div>\n"

    /// From the end of the file tables to the first failing file's details: the outputs without a source, if any.
    public static func tableTail(unmatchedOutputs: [String]) -> String {
        var h = ""
        if !unmatchedOutputs.isEmpty {
            h += "<h3>Outputs without a source</h3><ul>"
            h += unmatchedOutputs.map { "<li><code>\(esc($0))</code></li>" }.joined()
            h += "</ul>\n"
        }
        return h + "</section>\n<section id=\"details\"><h2>Details, failing files first</h2>\n"
    }

    /// The page after the last file's details.
    public static let foot = "</section>\n<script>\(js)</script>\n</body>\n</html>\n"

    static func card(_ label: String, _ n: Int, _ cls: String) -> String {
        "<div class=\"card \(cls)\"><span class=\"n\">\(n)</span><span class=\"l\">\(esc(label))</span></div>\n"
    }

    static func changes(_ title: String, _ list: [BaselineComparison.Change], _ cls: String) -> String {
        if list.isEmpty { return "<p>\(title): none.</p>\n" }
        var h = "<p class=\"\(cls)\">\(title): \(list.count)</p><ul>"
        for c in list { h += "<li><code>\(esc(c.file))</code> \(esc(c.kind)) <code>\(esc(c.subject))</code></li>" }
        return h + "</ul>\n"
    }

    static func mark(_ status: String) -> String {
        switch status {
        case "ok", "pass": "✓"
        case "failed", "fail": "✗"
        default: "–"
        }
    }

    static func detail(_ f: FileResult, index i: Int, gate: Severity, thumbnails t: ThumbnailLinks) -> String {
        // The first file opens by default, so its thumbnails and diff are visible without a click.
        var h =
            "<details id=\"f\(i)\" class=\"file \(f.verdict.rawValue)\"\(i == 0 ? " open" : "")><summary><b>\(esc(f.name))</b> — "
        h += "\(f.verdict.rawValue), \(f.findings.count) finding(s)</summary>\n<div class=\"body\">\n"
        h += "<table class=\"kv\">"
        if let s = f.source {
            h +=
                "<tr><th>source</th><td><code>\(esc(s))</code> \(f.sourceBytes.map { "(\($0) bytes)" } ?? "")</td></tr>"
        }
        if let o = f.output {
            h +=
                "<tr><th>output</th><td><code>\(esc(o))</code> \(f.outputBytes.map { "(\($0) bytes)" } ?? "")</td></tr>"
        }
        if let r = f.sizeRatio { h += "<tr><th>size ratio</th><td>\(String(format: "%.4f", r))</td></tr>" }
        if let d = f.sha256 { h += "<tr><th>sha256</th><td><code>\(esc(d))</code></td></tr>" }
        h += "</table>\n"
        h += figures(t)
        h += "<h4>Findings</h4>"
        if f.findings.isEmpty {
            h += "<p>none</p>\n"
        } else {
            h += "<table><thead><tr><th>severity</th><th>code</th><th>message</th><th>evidence</th></tr></thead><tbody>"
            for x in f.findings {
                let over = x.severity.fails(gate: gate) ? " over" : ""
                h +=
                    "<tr class=\"sev-\(x.severity.rawValue)\(over)\"><td>\(x.severity.rawValue)</td><td><code>\(esc(x.code.rawValue))</code></td>"
                h +=
                    "<td>\(esc(x.message))</td><td>\(x.evidence.map { esc(EvidenceText.describe($0)) } ?? "")</td></tr>"
            }
            h += "</tbody></table>\n"
        }
        h += gainMaps(f)
        if !f.decode.isEmpty {
            h +=
                "<h4>Decode</h4><table><thead><tr><th>image</th><th>status</th><th>size</th><th>bits</th><th>message</th></tr></thead><tbody>"
            for d in f.decode {
                let size = (d.width != nil && d.height != nil) ? "\(d.width!)×\(d.height!)" : "—"
                let by = d.decoder.map { " (\(esc($0)))" } ?? ""
                h +=
                    "<tr><td>\(d.target.rawValue)\(by)</td><td>\(mark(d.status.rawValue)) \(d.status.rawValue)</td><td>\(size)</td>"
                h += "<td>\(d.bitDepth.map(String.init) ?? "—")</td><td>\(esc(d.message ?? ""))</td></tr>"
            }
            h += "</tbody></table>\n"
        }
        h += "<h4>Metadata diff</h4>"
        if f.metadata.isEmpty {
            h += "<p>no metadata compared</p>\n"
        } else {
            h +=
                "<table class=\"diff\"><thead><tr><th>field</th><th>status</th><th>source</th><th>output</th><th>note</th></tr></thead><tbody>"
            for r in f.metadata {
                h +=
                    "<tr class=\"d-\(r.status.reportName)\"><td><code>\(esc(r.field))</code></td><td>\(r.status.reportName)</td>"
                h +=
                    "<td>\(esc(r.source ?? "—"))</td><td>\(esc(r.output ?? "—"))</td><td>\(esc(r.note ?? ""))</td></tr>"
            }
            h += "</tbody></table>\n"
        }
        h += fileFacts(f.fileFacts)
        h += "</div></details>\n"
        return h
    }

    /// The pair as library entries: mtime, mode, owner, xattrs and the sidecar, one row each.
    /// The gain-map section: each gain map's four parts, for a HEIF or AVIF item and for a JPEG's MPF image alike.
    static func gainMaps(_ f: FileResult) -> String {
        var h = "<h4>Gain maps</h4>"
        // A JPEG's gain map is an MPF image, not an item: the same four parts, read from MPF, XMP and APP2 blocks.
        let jpeg =
            f.output.map { ["jpg", "jpeg"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) } == true
        if f.gainMaps.isEmpty {
            h += "<p>none</p>\n"
        } else {
            if jpeg {
                h +=
                    "<p>JPEG: the gain map is an MPF image; description from its MPF entry and SOF, metadata from its hdrgm XMP, ISO 21496-1 APP2 block or Apple XMP.</p>"
            }
            h +=
                "<table><thead><tr><th>kind</th><th>\(jpeg ? "MPF image" : "item")</th><th>description</th><th>metadata</th><th>data</th><th>colour space</th></tr></thead><tbody>"
            for g in f.gainMaps {
                h += "<tr><td>\(esc(g.kind))</td><td>\(g.item.map(String.init) ?? "—")</td>"
                for p in [g.description, g.metadata, g.data, g.colourSpace] {
                    h += "<td class=\"part \(p.rawValue)\" title=\"\(p.rawValue)\">\(tick(p))</td>"
                }
                h += "</tr>"
            }
            h += "</tbody></table>\n"
        }
        return h
    }

    static func fileFacts(_ rows: [FileFactRow]?) -> String {
        guard let rows, !rows.isEmpty else { return "" }
        var h =
            "<h4>File</h4><table class=\"diff\"><thead><tr><th>fact</th><th>status</th><th>source</th><th>output</th></tr></thead><tbody>"
        for r in rows {
            let bad = r.status.isLoss
            h +=
                "<tr\(bad ? " class=\"d-lost\"" : "")><td><code>\(esc(r.fact))</code></td><td>\(r.status.rawValue)</td>"
            h += "<td>\(esc(r.source ?? "—"))</td><td>\(esc(r.output ?? "—"))</td></tr>"
        }
        return h + "</tbody></table>\n"
    }

    /// The thumbnails as figures, or nothing when there are none.
    static func figures(_ t: ThumbnailLinks) -> String {
        guard !t.isEmpty else { return "" }
        var h = "<div class=\"thumbs\">"
        if let r = t.reference, safeSource(r) {
            h += "<figure><img alt=\"reference render\" src=\"\(r)\"><figcaption>reference render</figcaption></figure>"
        }
        if let p = t.primary, safeSource(p) {
            h += "<figure><img alt=\"primary\" src=\"\(p)\"><figcaption>primary</figcaption></figure>"
        }
        if let g = t.gainMap, safeSource(g) {
            h += "<figure><img alt=\"gain map\" src=\"\(g)\"><figcaption>gain map</figcaption></figure>"
        }
        return h + "</div>\n"
    }

    static func tick(_ p: PartStatus) -> String {
        switch p {
        case .pass: "✓"
        case .fail: "✗"
        case .absent: "–"
        }
    }

    /// Only our own thumbnails go into `src`: PNG data URIs, or the relative paths ``ThumbnailFolder`` writes.
    static func safeSource(_ s: String) -> Bool {
        if s.hasPrefix("thumbs/") { return ThumbnailFolder.isThumbnailName(String(s.dropFirst("thumbs/".count))) }
        let prefix = "data:image/png;base64,"
        guard s.hasPrefix(prefix) else { return false }
        return s.dropFirst(prefix.count).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }
    }

    /// HTML-escapes text.
    static func esc(_ s: String) -> String {
        // Most names and messages have nothing to escape: one pass over the UTF-8 bytes returns them as they are.
        if !s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) {
            return s
        }
        var o = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            case "'": o += "&#39;"
            default: o.unicodeScalars.append(c)
            }
        }
        return o
    }

    static let css = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 24px 48px;color:#1d1d1f;background:#fafafa}
        h1{margin:16px 0 4px}h2{margin-top:28px;border-bottom:1px solid #ddd}
        .meta{color:#666;font-size:12px}code{font:12px ui-monospace,Menlo,monospace}
        .cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px 14px;min-width:90px}
        .card .n{display:block;font-size:24px;font-weight:600}.card .l{color:#666;font-size:12px}
        .card.bad,.card.sev-error{border-color:#d70015;color:#d70015}.card.ok{border-color:#248a3d}.card.sev-warning{border-color:#c93400}
        table{border-collapse:collapse;background:#fff;margin:6px 0}th,td{border:1px solid #e2e2e2;padding:3px 8px;text-align:left;vertical-align:top}
        #filetable th{cursor:pointer;user-select:none;background:#f0f0f0}#filetable th.asc::after{content:" ▲"}#filetable th.desc::after{content:" ▼"}
        tr.fail td.verdict{color:#d70015;font-weight:600}tr.pass td.verdict{color:#248a3d}
        .sev-error{color:#d70015}.sev-warning{color:#c93400}.sev-known-loss{color:#8e44ad}.sev-info{color:#555}
        tr.over{background:#fff0f0}.part.pass{color:#248a3d}.part.fail{color:#d70015;font-weight:700}.part.absent{color:#999}
        .d-lost,.d-changed{background:#fff0f0}.d-known-loss{background:#f7f0fb}.d-added{background:#f0f7ff}
        .filters{margin:8px 0}.filters input{width:280px;padding:4px}
        table.ft{table-layout:fixed;width:100%;margin:0}table.ft td{overflow-wrap:anywhere}
        .chunk{content-visibility:auto;contain-intrinsic-size:auto 12000px}.chunk table.ft{border-top:0}
        details.file{background:#fff;border:1px solid #ddd;border-radius:6px;margin:6px 0;padding:4px 10px;content-visibility:auto;contain-intrinsic-size:auto 2.2em}
        details.file.fail>summary{color:#d70015}.thumbs{display:flex;gap:12px}.thumbs img{border:1px solid #ccc;image-rendering:auto}
        figure{margin:4px}figcaption{font-size:12px;color:#666}table.kv th{background:#f6f6f6}
        """

    static let js = """
        (function(){
          var table=document.getElementById('filetable');
          if(!table){return;}
          var bodies=Array.prototype.slice.call(document.querySelectorAll('#files table.ft tbody'));
          var lazy=Array.prototype.slice.call(document.querySelectorAll('#files div.lazy'));
          var total=0, filtered=false, waiting=[];
          bodies.forEach(function(b){total+=b.rows.length;});
          lazy.forEach(function(d){total+=parseInt(d.getAttribute('data-rows'),10);});
          var heads=table.tHead.rows[0].cells;
          var filter=document.getElementById('filter');
          var verdict=document.getElementById('verdict');
          var shown=document.getElementById('shown');
          function done(d){var s=d.getAttribute('data-state');return s==='loaded'||s==='failed';}
          function settle(){
            if(!lazy.every(done)){return;}
            var w=waiting;waiting=[];w.forEach(function(f){f();});
          }
          window.readbackChunk=function(n,html){
            var d=document.querySelector('#files div.lazy[data-chunk="'+n+'"]');
            if(!d||d.getAttribute('data-state')==='loaded'){return;}
            d.querySelector('tbody').innerHTML=html;
            d.setAttribute('data-state','loaded');
            d.style.minHeight='';
            settle();
          };
          function load(d){
            if(d.getAttribute('data-state')){return;}
            d.setAttribute('data-state','loading');
            var s=document.createElement('script');
            s.src=d.getAttribute('data-src');
            s.onerror=function(){d.setAttribute('data-state','failed');shown.textContent='could not load '+s.src;settle();};
            document.body.appendChild(s);
          }
          function withAll(f){
            if(lazy.every(done)){f();return;}
            waiting.push(f);
            lazy.forEach(load);
          }
          var dlazy=Array.prototype.slice.call(document.querySelectorAll('#details div.dlazy'));
          if('IntersectionObserver' in window){
            var seen=new IntersectionObserver(function(es){
              es.forEach(function(e){if(e.isIntersecting){seen.unobserve(e.target);load(e.target);}});
            },{rootMargin:'2000px 0px'});
            lazy.concat(dlazy).forEach(function(d){seen.observe(d);});
          }else{lazy.concat(dlazy).forEach(load);}
          function rows(){
            var out=[];
            bodies.forEach(function(b){for(var i=0;i<b.rows.length;i++){out.push(b.rows[i]);}});
            return out;
          }
          function apply(){
            var q=filter.value.toLowerCase(), v=verdict.value, n=0;
            if(!q&&!v&&!filtered){shown.textContent=total+' of '+total+' shown';return;}
            rows().forEach(function(r){
              var ok=(!v||r.getAttribute('data-verdict')===v)&&(!q||r.textContent.toLowerCase().indexOf(q)>=0);
              r.style.display=ok?'':'none';
              if(ok){n++;}
            });
            filtered=!!(q||v);
            shown.textContent=n+' of '+total+' shown';
          }
          function key(c){var v=c.getAttribute('data-v');return v===null?c.textContent:v;}
          function sortBy(col){
            var h=heads[col], asc=!h.classList.contains('asc'), num=h.getAttribute('data-type')==='num';
            for(var k=0;k<heads.length;k++){heads[k].classList.remove('asc','desc');}
            h.classList.add(asc?'asc':'desc');
            var sizes=bodies.map(function(b){return b.rows.length;});
            var all=rows();
            all.sort(function(a,b){
              var x=key(a.cells[col]), y=key(b.cells[col]);
              var c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
              return asc?c:-c;
            });
            var at=0;
            bodies.forEach(function(b,k){for(var i=0;i<sizes[k];i++){b.appendChild(all[at++]);}});
          }
          for(var i=0;i<heads.length;i++){(function(i){heads[i].addEventListener('click',function(){
            withAll(function(){sortBy(i);});
          });})(i);}
          filter.addEventListener('input',function(){withAll(apply);});
          verdict.addEventListener('change',function(){withAll(apply);});
          window.readbackDetails=function(n,html){
            var d=document.querySelector('#details div.dlazy[data-details="'+n+'"]');
            if(!d||d.getAttribute('data-state')==='loaded'){return;}
            d.innerHTML=html;
            d.setAttribute('data-state','loaded');
            d.style.minHeight='';
            var w=d.waiting||[];d.waiting=[];w.forEach(function(f){f();});
          };
          function openDetails(id,a){
            var d=document.getElementById(id);
            if(d){d.open=true;return true;}
            var c=a&&document.querySelector('#details div.dlazy[data-details="'+a.getAttribute('data-in')+'"]');
            if(!c){return false;}
            (c.waiting=c.waiting||[]).push(function(){
              var x=document.getElementById(id);if(x){x.open=true;x.scrollIntoView();}
            });
            load(c);
            return false;
          }
          document.getElementById('files').addEventListener('click',function(e){
            var a=e.target.closest('a[data-open]');
            if(a&&!openDetails(a.getAttribute('data-open'),a)&&a.hasAttribute('data-in')){e.preventDefault();}
          });
          if(location.hash){
            var id=location.hash.slice(1);
            openDetails(id,document.querySelector('#files a[data-in][data-open="'+id.replace(/[^a-z0-9]/g,'')+'"]'));
          }
          apply();
        })();
        """
}
