import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

/// A generated report of `n` files in 40 folders, one in `failEvery` (a hundred) failing with two findings, the others
/// passing with a complete Apple gain map, as an archive's no-decode audit looks.
private func generatedReport(_ n: Int, failEvery: Int = 100) -> AuditReport {
    let files = (0..<n).map { i in
        let name = "folder-\(i % 40)/IMG_\(String(format: "%06d", i)).heic"
        let failing = i % failEvery == 7 % failEvery
        return FileResult(
            name: name, output: name, outputBytes: 1_500_000 + UInt64(i),
            findings: failing
                ? [
                    Finding(
                        code: .containerTruncated, severity: .error,
                        message: "the file is truncated: 'mdat' declares 3051 bytes but only 3050 remain",
                        evidence: Evidence(offset: 607, actual: "3657 bytes in the file")),
                    Finding(
                        code: .signallingNclxMissing, severity: .warning,
                        message: "the primary image has no nclx colour"),
                ] : [],
            gainMaps: [
                GainMapResult(
                    kind: "apple", item: 10, description: .pass, metadata: .pass, data: .pass, colourSpace: .absent)
            ],
            decode: [DecodeResult(target: .primary, status: .skipped)])
    }
    return AuditReport(
        tool: ToolInfo(version: "test"), libraries: [],
        run: RunParameters(mode: .outputsOnly, startedAt: "2026-12-02T00:00:00Z", decode: false), files: files)
}

/// The report's files: report.html, and the chunk files in report-files/ (name → bytes).
private func written(_ dir: URL) throws -> (page: String, chunks: [String: Data]) {
    let page = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
    let folder = dir.appendingPathComponent(HTMLRowChunks.folderName)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    var chunks: [String: Data] = [:]
    for n in names { chunks[n] = try Data(contentsOf: folder.appendingPathComponent(n)) }
    return (page, chunks)
}

/// report.html at 10,000 and 100,000 generated entries, as the audit writes it: the summary, every failing file's row,
/// the first 500 failing and passing files' details in the page; the other passing files' compact rows and the other
/// failing files' details in chunk files beside it, one placeholder each in the page. So the page grows by a row per
/// failing file only (the load time itself is measured by `make bench`, headless Chromium).
@Test func reportHTMLStaysSmallAt10000And100000Files() throws {
    let dir = Repo.temporaryDirectory("report-size")
    defer { try? FileManager.default.removeItem(at: dir) }
    var pages: [Int: Int] = [:]
    for n in [10_000, 100_000] {
        let report = generatedReport(n)
        try ReportFiles.write(report, to: dir)
        let (html, chunks) = try written(dir)
        let bytes = html.utf8.count
        pages[n] = bytes
        let failing = report.summary.failed
        #expect(failing == n / 100)
        // The first failing files and the first passing ones have their details in the page; the other passing
        // files are rows in chunk files, the other failing files' details are in details chunks.
        let full = HTMLRenderer.fullPassingFiles
        let inPage = min(failing, HTMLRenderer.fullFailingDetails)
        #expect(html.components(separatedBy: "<details id=\"f").count - 1 == inPage + full)
        let failingRows = html.components(separatedBy: "<tr class=\"fail\" data-verdict").count - 1
        #expect(failingRows == failing, "every failing file's row is in the page")
        let detailChunks = chunks.filter { $0.key.hasPrefix("details-") }
        #expect(detailChunks.count == (failing - inPage + 99) / 100)
        #expect(html.components(separatedBy: "<div class=\"dlazy\"").count - 1 == detailChunks.count)
        #expect(html.components(separatedBy: " data-in=\"").count - 1 == failing - inPage)
        var detailBlocks = 0
        for (_, data) in detailChunks {
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasPrefix("readbackDetails("))
            detailBlocks += text.components(separatedBy: "<details id=\\\"f").count - 1
        }
        #expect(detailBlocks == failing - inPage)
        let rowChunks = chunks.filter { $0.key.hasPrefix("chunk-") }
        #expect(html.contains("<details id=\"f7\"") && html.contains("<details id=\"f8\""))
        #expect(!html.contains("IMG_\(String(format: "%06d", n - 1))"), "the last passing file is in a chunk")
        // One chunk file per 500 passing rows past the full ones (an earlier, smaller run's are gone), each with
        // its placeholder in the page.
        let lazy = (n - failing - full + 499) / 500
        #expect(rowChunks.count == lazy, "\(chunks.keys.sorted().prefix(3))")
        #expect(html.components(separatedBy: "<div class=\"chunk lazy\"").count - 1 == lazy)
        #expect(chunks.keys.allSatisfy { html.contains("data-src=\"report-files/\($0)\"") })
        // Each chunk calls the page's loader with its rows; together they hold every passing file past the full
        // ones, at under 300 bytes a row and 150 KB a chunk.
        var rows = 0
        for (_, data) in rowChunks {
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasPrefix("readbackChunk(") && text.hasSuffix("\");\n"))
            #expect(data.count < 150_000)
            rows += text.components(separatedBy: "<tr class=\\\"pass\\\"").count - 1
        }
        #expect(rows == n - failing - full)
        let chunkBytes = rowChunks.values.reduce(0) { $0 + $1.count }
        #expect(Double(chunkBytes) / Double(rows) < 300, "\(chunkBytes) bytes of chunks")
        // The folders are counted in the summary.
        #expect(html.contains("<td><code>folder-7</code></td><td>\(n / 40)</td><td>\(n / 200)</td>"))
        // The page: under 2,000 bytes per file shown in full, 700 per other failing row, a few hundred per
        // placeholder.
        let bound = 100_000 + (inPage + full) * 2_000 + (failing - inPage) * 700 + (lazy + detailChunks.count) * 500
        #expect(bytes < bound, "\(n) files: \(bytes) bytes")
    }
    // The page grows with the failing files' rows only (900 more here), not with the passing ones (89,100 more).
    if let a = pages[10_000], let b = pages[100_000] {
        #expect(Double(b - a) / 900 < 1_300, "each failing file adds \(Double(b - a) / 900) bytes")
        #expect(b < 2_000_000, "\(b) bytes at 100,000 files")
    }
}

/// A report small enough to show every passing file in full, or one written as a single file, has no chunks; and
/// writing it removes a larger earlier run's chunk files (only those), so no page points at stale rows.
@Test func smallOrSingleFileReportsHaveNoChunksAndClearOldOnes() throws {
    let dir = Repo.temporaryDirectory("report-chunks-clear")
    defer { try? FileManager.default.removeItem(at: dir) }
    try ReportFiles.write(generatedReport(2_000), to: dir)
    let first = try written(dir).chunks
    #expect(first.count == 3, "1,480 compact rows: 500 + 500 + 480")
    let other = dir.appendingPathComponent(HTMLRowChunks.folderName).appendingPathComponent("notes.txt")
    try Data("kept".utf8).write(to: other)
    // A second large run replaces the chunks: none of the first run's names is left.
    try ReportFiles.write(generatedReport(2_000), to: dir)
    let second = try written(dir).chunks
    #expect(second.count == 4 && Set(first.keys).isDisjoint(with: second.keys.filter { $0 != "notes.txt" }))
    // A small report: every file in the page, and the chunks gone (the user's file stays).
    try ReportFiles.write(generatedReport(300), to: dir)
    var (page, chunks) = try written(dir)
    #expect(chunks.keys.sorted() == ["notes.txt"])
    #expect(!page.contains("chunk lazy") && page.contains("IMG_000299.heic"))
    // A single-file report keeps every compact row in the page.
    try FileManager.default.removeItem(at: other)
    try ReportFiles.write(generatedReport(2_000), to: dir, html: .inlined)
    (page, chunks) = try written(dir)
    #expect(chunks.isEmpty && page.contains("IMG_001999.heic") && !page.contains("chunk lazy"))
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(HTMLRowChunks.folderName).path))
    #expect(page == HTMLRenderer.render(generatedReport(2_000)))
}

/// A chunk's rows are a JavaScript string: quotes, backslashes, line breaks and control characters escaped.
@Test func chunkRowsAreEscapedAsAJavaScriptString() {
    let escaped = HTMLRowChunks.jsString("a\"b\\c\nd\re\u{01}f\u{1F}\u{2028}é")
    #expect(escaped == "a\\\"b\\\\c\\nd\\re\\u0001f\\u001f\\u2028é")
    #expect(HTMLRowChunks.jsString("<tr><td>plain</td></tr>") == "<tr><td>plain</td></tr>")
    #expect(HTMLRowChunks.isChunkName("chunk-1a2b-0001.js") && !HTMLRowChunks.isChunkName("notes.txt"))
}

/// A chunked report opened from the disk in headless Chromium (`file://`, no server): no chunk is loaded with the
/// first screen; following a failing row's link loads the details chunk that holds it and opens them; a filter loads
/// every row chunk and finds a row that is only in the last one; a sort (descending by name: folder-9 sorts last)
/// reaches every row; and the console stays clean.
@Test func chunkedReportLoadsItsRowsOnDemandInChromium() throws {
    let dir = Repo.temporaryDirectory("report-chunks-chromium")
    defer { try? FileManager.default.removeItem(at: dir) }
    // 667 failing files (167 of them with their details in chunks), 1,333 passing (833 in row chunks).
    try ReportFiles.write(generatedReport(2_000, failEvery: 3), to: dir)
    let (_, chunks) = try written(dir)
    #expect(chunks.keys.filter { $0.hasPrefix("details-") }.count == 2 && chunks.count == 4)
    let page = dir.appendingPathComponent("report.html")
    let probe = """
        <script>window.addEventListener('load',function(){
          var first=document.querySelectorAll('div.lazy[data-state],div.dlazy[data-state]').length;
          var a=document.querySelector('#files a[data-in]'), id=a.getAttribute('data-open'), tries=0, opened='no';
          a.click();
          var f=document.getElementById('filter');
          (function wait(){
            var d=document.getElementById(id);
            if(!(d&&d.open)&&tries++<400){setTimeout(wait,25);return;}
            opened=d?id+(d.open?' open':' closed'):'missing';
            f.value='IMG_001998'; f.dispatchEvent(new Event('input'));
            tries=0;
            (function rows(){
              var s=document.getElementById('shown').textContent;
              if(s.indexOf('1 of')!==0&&tries++<400){setTimeout(rows,25);return;}
              f.value=''; f.dispatchEvent(new Event('input'));
              var th=document.getElementById('filetable').tHead.rows[0].cells[0]; th.click(); th.click();
              var top=document.getElementById('filetable').tBodies[0].rows[0].cells[0].textContent;
              document.body.setAttribute('data-probe','first='+first+' details='+opened+' filtered='+s+' rows='
                +document.querySelectorAll('#files tbody tr').length+' top='+top+' after='
                +document.getElementById('shown').textContent);
            })();
          })();
        });</script>
        """
    let html = try String(contentsOf: page, encoding: .utf8)
    try html.replacingOccurrences(of: "</body>", with: probe + "\n</body>").write(
        to: page, atomically: true, encoding: .utf8)
    let (status, dom, err) = try chromium(["--virtual-time-budget=30000", "--dump-dom", page.absoluteString])
    #expect(status == 0)
    let probeLine = dom.split(separator: "\n").first { $0.contains("data-probe") }.map(String.init) ?? "none"
    #expect(probeLine.contains("first=0 "), "probe: \(probeLine)")
    // The 501st failing file is file 1,501 (failing files are 1, 4, 7, ...).
    #expect(probeLine.contains("details=f1501 open "), "probe: \(probeLine)")
    #expect(probeLine.contains("filtered=1 of 2000 shown rows=2000 "), "probe: \(probeLine)")
    #expect(probeLine.contains("top=folder-9/IMG_001969.heic after=2000 of 2000 shown"), "probe: \(probeLine)")
    let console = err.split(separator: "\n").filter { $0.contains(":CONSOLE") }
    #expect(console.isEmpty, "console output: \(console)")
}
