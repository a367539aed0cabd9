import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// A generated report of `n` files in 40 folders, one in a hundred failing with two findings, the others passing
/// with a complete Apple gain map, as an archive's no-decode audit looks.
private func generatedReport(_ n: Int) -> AuditReport {
    let files = (0..<n).map { i in
        let name = "folder-\(i % 40)/IMG_\(String(format: "%06d", i)).heic"
        let failing = i % 100 == 7
        return FileResult(
            name: name, output: name, outputBytes: 1_500_000 + UInt64(i),
            findings: failing
                ? [
                    Finding(
                        code: FindingCode.containerTruncated.rawValue, severity: .error,
                        message: "the file is truncated: 'mdat' declares 3051 bytes but only 3050 remain",
                        evidence: Evidence(offset: 607, actual: "3657 bytes in the file")),
                    Finding(
                        code: FindingCode.signallingNclxMissing.rawValue, severity: .warning,
                        message: "the primary image has no nclx colour"),
                ] : [],
            gainMaps: [
                GainMapResult(
                    kind: "apple", item: 10, description: .pass, metadata: .pass, data: .pass, colourSpace: .absent)
            ],
            decode: [DecodeResult(target: "primary", status: "skipped")])
    }
    return AuditReport(
        tool: ToolInfo(version: "test"), libraries: [],
        run: RunParameters(mode: "outputs-only", startedAt: "2026-12-02T00:00:00Z", decode: false), files: files)
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

/// report.html at 10,000 and 100,000 generated entries, as the audit writes it: the summary, failing files in full
/// and the first passing files in the page; the other passing files' compact rows in chunk files beside it, one
/// placeholder each in the page. So the page grows with the failing files only, and the chunks by a compact row per
/// passing file (the load time itself is measured by `make bench`, headless Chromium).
@Test func reportHTMLStaysSmallAt10000And100000Files() throws {
    let dir = Repo.temporaryDirectory("report-size")
    defer { try? FileManager.default.removeItem(at: dir) }
    var pages: [Int: Int] = [:]
    for n in [10_000, 100_000] {
        let report = generatedReport(n)
        try Auditor.writeReports(report, to: dir)
        let (html, chunks) = try written(dir)
        let bytes = html.utf8.count
        pages[n] = bytes
        let failing = report.summary.failed
        #expect(failing == n / 100)
        // Every failing file has its details, and the first passing ones; the others are rows in chunk files.
        let full = HTMLRenderer.fullPassingFiles
        #expect(html.components(separatedBy: "<details id=\"f").count - 1 == failing + full)
        #expect(html.contains("<details id=\"f7\"") && html.contains("<details id=\"f8\""))
        #expect(!html.contains("IMG_\(String(format: "%06d", n - 1))"), "the last passing file is in a chunk")
        // One chunk file per 500 passing rows past the full ones (an earlier, smaller run's are gone), each with
        // its placeholder in the page.
        let lazy = (n - failing - full + 499) / 500
        #expect(chunks.count == lazy, "\(chunks.keys.sorted().prefix(3))")
        #expect(html.components(separatedBy: "<div class=\"chunk lazy\"").count - 1 == lazy)
        #expect(chunks.keys.allSatisfy { html.contains("data-src=\"report-files/\($0)\"") })
        // Each chunk calls the page's loader with its rows; together they hold every passing file past the full
        // ones, at under 300 bytes a row and 150 KB a chunk.
        var rows = 0
        for (_, data) in chunks {
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasPrefix("readbackChunk(") && text.hasSuffix("\");\n"))
            #expect(data.count < 150_000)
            rows += text.components(separatedBy: "<tr class=\\\"pass\\\"").count - 1
        }
        #expect(rows == n - failing - full)
        let chunkBytes = chunks.values.reduce(0) { $0 + $1.count }
        #expect(Double(chunkBytes) / Double(rows) < 300, "\(chunkBytes) bytes of chunks")
        // The folders are counted in the summary.
        #expect(html.contains("<td><code>folder-7</code></td><td>\(n / 40)</td><td>\(n / 200)</td>"))
        // The page: under 2,000 bytes per file shown in full, a few hundred per placeholder.
        #expect(bytes < 100_000 + (failing + full) * 2_000 + lazy * 500, "\(n) files: \(bytes) bytes")
    }
    // The page grows with the failing files only (900 more here), not with the passing ones (89,100 more).
    if let a = pages[10_000], let b = pages[100_000] {
        #expect(Double(b - a) / 900 < 2_200, "each failing file adds \(Double(b - a) / 900) bytes")
        #expect(b < 3_000_000, "\(b) bytes at 100,000 files")
    }
}

/// A report small enough to show every passing file in full, or one written as a single file, has no chunks; and
/// writing it removes a larger earlier run's chunk files (only those), so no page points at stale rows.
@Test func smallOrSingleFileReportsHaveNoChunksAndClearOldOnes() throws {
    let dir = Repo.temporaryDirectory("report-chunks-clear")
    defer { try? FileManager.default.removeItem(at: dir) }
    try Auditor.writeReports(generatedReport(2_000), to: dir)
    let first = try written(dir).chunks
    #expect(first.count == 3, "1,480 compact rows: 500 + 500 + 480")
    let other = dir.appendingPathComponent(HTMLRowChunks.folderName).appendingPathComponent("notes.txt")
    try Data("kept".utf8).write(to: other)
    // A second large run replaces the chunks: none of the first run's names is left.
    try Auditor.writeReports(generatedReport(2_000), to: dir)
    let second = try written(dir).chunks
    #expect(second.count == 4 && Set(first.keys).isDisjoint(with: second.keys.filter { $0 != "notes.txt" }))
    // A small report: every file in the page, and the chunks gone (the user's file stays).
    try Auditor.writeReports(generatedReport(300), to: dir)
    var (page, chunks) = try written(dir)
    #expect(chunks.keys.sorted() == ["notes.txt"])
    #expect(!page.contains("chunk lazy") && page.contains("IMG_000299.heic"))
    // A single-file report keeps every compact row in the page.
    try FileManager.default.removeItem(at: other)
    try Auditor.writeReports(generatedReport(2_000), to: dir, html: .inlined)
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
/// first screen, a filter loads them all and finds a row that is only in the last chunk, a sort reaches every row (descending by name: folder-9 sorts last),
/// and the console stays clean.
@Test func chunkedReportLoadsItsRowsOnDemandInChromium() throws {
    let dir = Repo.temporaryDirectory("report-chunks-chromium")
    defer { try? FileManager.default.removeItem(at: dir) }
    try Auditor.writeReports(generatedReport(2_000), to: dir)
    let page = dir.appendingPathComponent("report.html")
    let probe = """
        <script>window.addEventListener('load',function(){
          var first=document.querySelectorAll('#files div.lazy[data-state]').length;
          var f=document.getElementById('filter'); f.value='IMG_001998'; f.dispatchEvent(new Event('input'));
          var tries=0;
          (function wait(){
            var s=document.getElementById('shown').textContent;
            if(s.indexOf('1 of')!==0&&tries++<400){setTimeout(wait,25);return;}
            f.value=''; f.dispatchEvent(new Event('input'));
            var th=document.getElementById('filetable').tHead.rows[0].cells[0]; th.click(); th.click();
            var top=document.getElementById('filetable').tBodies[0].rows[0].cells[0].textContent;
            document.body.setAttribute('data-probe','first='+first+' filtered='+s+' rows='
              +document.querySelectorAll('#files tbody tr').length+' top='+top+' after='
              +document.getElementById('shown').textContent);
          })();
        });</script>
        """
    let html = try String(contentsOf: page, encoding: .utf8)
    try html.replacingOccurrences(of: "</body>", with: probe + "\n</body>").write(
        to: page, atomically: true, encoding: .utf8)
    let (status, dom, err) = try chromium(["--virtual-time-budget=20000", "--dump-dom", page.absoluteString])
    #expect(status == 0)
    let probeLine = dom.split(separator: "\n").first { $0.contains("data-probe") }.map(String.init) ?? "none"
    #expect(probeLine.contains("first=0 "), "probe: \(probeLine)")
    #expect(probeLine.contains("filtered=1 of 2000 shown rows=2000 "), "probe: \(probeLine)")
    #expect(probeLine.contains("top=folder-9/IMG_001969.heic after=2000 of 2000 shown"), "probe: \(probeLine)")
    let console = err.split(separator: "\n").filter { $0.contains(":CONSOLE") }
    #expect(console.isEmpty, "console output: \(console)")
}
