import Findings
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

/// The fixed report's files repeated under names and messages that need escaping (markup, quotes, control
/// characters, U+FFFE, non-ASCII), so the renderers' fast paths and slow paths both run.
private func awkwardReport() -> AuditReport {
    var r = FixedReport.make()
    let odd = ["plain.heic", "a<b>&c.heic", "quote\"s'.heic", "ctl\u{01}\u{FFFE}.heic", "é/ü/日本.heic"]
    var files: [FileResult] = []
    for (i, name) in odd.enumerated() {
        var f = r.files[i % r.files.count]
        f.name = name
        f.findings.append(
            Finding(
                code: .outputMissing, severity: .warning,
                message: "text with \(name) and a\ttab\nline"))
        files.append(f)
    }
    r.files = files
    r.recomputeSummary()
    return r
}

/// `ReportFiles.write` streams one entry at a time; what it writes must equal the whole-report renderings: the JSON
/// text (encoded once for the whole report), the HTML page and the JUnit XML.
@Test func streamedReportsEqualTheWholeReportRenderings() throws {
    let dir = Repo.temporaryDirectory("streamed-report")
    defer { try? FileManager.default.removeItem(at: dir) }
    let report = awkwardReport()
    try ReportFiles.write(report, to: dir)
    func text(_ name: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }
    #expect(try text("report.json") == report.jsonText())
    #expect(try text("report.html") == HTMLRenderer.render(report))
    #expect(try text("junit.xml") == JUnitRenderer.render(report))
    // Only the three reports are left: no scratch file.
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["junit.xml", "report.html", "report.json"])
    // `schemaVersion` is the first member, and the text reads back as the same report.
    let json = try text("report.json")
    #expect(json.hasPrefix("{\n  \"schemaVersion\" : \(AuditReport.currentSchemaVersion),\n"))
    #expect(try AuditReport.decode(Data(json.utf8)) == report)
}

/// The escapes' fast path (nothing to escape: the text as is) and their slow path give what the rules say.
@Test func escapesRewriteOnlyWhatTheyMust() {
    #expect(HTMLRenderer.esc("IMG_0001.heic") == "IMG_0001.heic")
    #expect(HTMLRenderer.esc("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;")
    #expect(HTMLRenderer.esc("é日本") == "é日本")
    #expect(JUnitRenderer.esc("line\ttab\nnext\r") == "line\ttab\nnext\r")
    #expect(JUnitRenderer.esc("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&apos;")
    #expect(JUnitRenderer.esc("x\u{01}y\u{FFFE}z\u{FFFF}") == "x?y?z?")
    #expect(JUnitRenderer.esc("é日本\u{FEFF}") == "é日本\u{FEFF}")
}

/// The one-listing linker finds the same thumbnails as the per-file `stat`s.
@Test func linkerListsTheThumbnailFolderOnceWithTheSameLinks() throws {
    let dir = Repo.temporaryDirectory("thumb-linker")
    defer { try? FileManager.default.removeItem(at: dir) }
    let folder = ThumbnailFolder(reportDirectory: dir)
    #expect(folder.linker()(0) == ThumbnailLinks())
    folder.write(Thumbnails(primary: Data([1]), gainMap: Data([2])), index: 0)
    folder.write(Thumbnails(reference: Data([3])), index: 7)
    let linker = folder.linker()
    for i in [0, 1, 7, 70] { #expect(linker(i) == folder.links(index: i)) }
    #expect(linker(0).primary == "thumbs/0-primary.png" && linker(0).reference == nil)
    #expect(linker(7).reference == "thumbs/7-reference.png")
}
