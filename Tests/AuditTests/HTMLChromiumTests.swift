import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

/// Runs Debian's chromium headless on a file; returns (exit status, stdout, stderr).
func chromium(_ args: [String]) throws -> (Int32, String, String) {
    let r = try Tool.run(
        "/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"] + args)
    return (r.status, String(decoding: r.out, as: UTF8.self), String(decoding: r.err, as: UTF8.self))
}

/// The report of a real audit of generated files, rendered and opened in headless Chromium: no console errors,
/// summary and table present after the scripts ran, thumbnails loaded, and a screenshot under Reports/.
@Test func htmlReportRendersInChromiumWithoutConsoleErrors() throws {
    let dir = Repo.temporaryDirectory("audit-html")
    defer { try? FileManager.default.removeItem(at: dir) }
    let outputs = dir.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
    var noXMP = Constructed.Options()
    noXMP.appleXMP = false
    _ = try Constructed.write(try Constructed.heic(), "complete.heic", in: outputs)
    _ = try Constructed.write(try Constructed.heic(noXMP), "aux-without-xmp.heic", in: outputs)
    _ = try Constructed.write(Array(try Constructed.heic().dropLast(300)), "truncated.heic", in: outputs)
    // The thumbnails are files beside the page (thumbs/), as `readback audit --report` writes them.
    let thumbs = ThumbnailFolder(reportDirectory: dir)
    let report = Auditor.run(
        try Pairing.outputsOnly(outputs), options: AuditOptions(thumbnails: true, jobs: 2), mode: .outputsOnly,
        roots: ["outputs": "out"], tool: ToolInfo(version: "test"), libraries: [], decoders: .inProcess,
        clock: { Date(timeIntervalSince1970: 0) }, thumbnails: thumbs)
    #expect(report.summary.files == 3)
    #expect(report.summary.failed == 2)
    let written = try FileManager.default.contentsOfDirectory(atPath: thumbs.url.path).count
    #expect(written >= 4, "two images each for the two decodable files")
    // A page script that checks what the DOM must show and logs one line the test looks for.
    var html = HTMLRenderer.render(report, thumbnails: thumbs.links)
    let probe = """
        <script>(function(){
          var t=document.getElementById('filetable'), s=document.getElementById('summary');
          var imgs=Array.prototype.slice.call(document.images);
          var loaded=imgs.filter(function(i){return i.complete&&i.naturalWidth>0;}).length;
          var th=t.tHead.rows[0].cells[0];
          th.click(); var asc=t.tBodies[0].rows[0].cells[0].textContent;
          th.click(); var desc=t.tBodies[0].rows[0].cells[0].textContent;
          var f=document.getElementById('filter'); f.value='xmp-missing'; f.dispatchEvent(new Event('input'));
          var shown=document.getElementById('shown').textContent;
          f.value=''; f.dispatchEvent(new Event('input'));
          var v=document.getElementById('verdict'); v.value='pass'; v.dispatchEvent(new Event('change'));
          var passShown=document.getElementById('shown').textContent;
          v.value=''; v.dispatchEvent(new Event('change'));
          document.body.setAttribute('data-probe','rows='+document.querySelectorAll('#files tbody tr').length+' cards='+s.querySelectorAll('.card').length+' imgs='+imgs.length+' asc='+asc+' desc='+desc+' filtered='+shown+' pass='+passShown);
        })();</script>
        """
    // Once the page has loaded: how many of its images loaded (a missing or broken file has naturalWidth 0).
    let loadProbe = """
        <script>window.addEventListener('load',function(){
          var imgs=Array.prototype.slice.call(document.images);
          var loaded=imgs.filter(function(i){return i.complete&&i.naturalWidth>0;}).length;
          document.body.setAttribute('data-images',loaded+' of '+imgs.length+' loaded');
        });</script>
        """
    html = html.replacingOccurrences(of: "</body>", with: probe + "\n" + loadProbe + "\n</body>")
    let page = dir.appendingPathComponent("report.html")
    try html.write(to: page, atomically: true, encoding: .utf8)

    let (status, dom, _) = try chromium(["--dump-dom", page.absoluteString])
    #expect(status == 0)
    #expect(dom.contains("id=\"summary\""))
    #expect(dom.contains("<h2>Summary</h2>"))
    #expect(dom.contains("id=\"filetable\""))
    #expect(dom.contains("3 of 3 shown"), "the table script did not run")
    #expect(dom.contains("aux-without-xmp.heic") && dom.contains("truncated.heic") && dom.contains("complete.heic"))
    let probeLine = dom.split(separator: "\n").first { $0.contains("data-probe") }.map(String.init) ?? "none"
    #expect(probeLine.contains("data-probe=\"rows=3 cards="), "probe: \(probeLine)")
    // Sorting by the file column: ascending then descending; filtering by a code; filtering by verdict.
    #expect(probeLine.contains("asc=aux-without-xmp.heic desc=truncated.heic"), "probe: \(probeLine)")
    #expect(probeLine.contains("filtered=2 of 3 shown"), "probe: \(probeLine)")
    #expect(probeLine.contains("pass=1 of 3 shown"), "probe: \(probeLine)")
    // Every thumbnail file the audit wrote is shown (a small report shows every file in full), and loads.
    #expect(dom.contains("data-images=\"\(written) of \(written) loaded\""), "probe: \(probeLine)")

    // The screenshot of the real report (unmodified), and its console.
    let reports = Repo.root.appendingPathComponent("Reports")
    try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
    let shot = reports.appendingPathComponent("report-screenshot.png")
    try? FileManager.default.removeItem(at: shot)
    let real = dir.appendingPathComponent("real.html")
    try HTMLRenderer.render(report, thumbnails: thumbs.links).write(to: real, atomically: true, encoding: .utf8)
    let (s2, _, err) = try chromium(["--screenshot=\(shot.path)", "--window-size=1280,900", real.absoluteString])
    #expect(s2 == 0)
    let console = err.split(separator: "\n").filter { $0.contains(":CONSOLE") }
    #expect(console.isEmpty, "console output: \(console)")
    let png = try Data(contentsOf: shot)
    #expect(png.count > 1000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
}

/// A page with a deliberate script error is seen by the same console filter (so the check above can fail).
@Test func consoleFilterSeesScriptErrors() throws {
    let dir = Repo.temporaryDirectory("audit-html-neg")
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("bad.html")
    try "<html><body><script>undefinedFunction();</script></body></html>".write(
        to: page, atomically: true, encoding: .utf8)
    let (_, _, err) = try chromium(["--dump-dom", page.absoluteString])
    #expect(err.split(separator: "\n").contains { $0.contains(":CONSOLE") && $0.contains("undefinedFunction") })
}
