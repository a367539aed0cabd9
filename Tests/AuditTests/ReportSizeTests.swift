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

/// report.html at 10,000 and 100,000 generated entries: failing files in full, passing files as compact rows in
/// chunks, so the page grows by a compact row per passing file and stays a size a browser opens (the load time
/// itself is measured by `make bench`, headless Chromium).
@Test func reportHTMLStaysSmallAt10000And100000Files() {
    var sizes: [Int: Int] = [:]
    for n in [10_000, 100_000] {
        let report = generatedReport(n)
        let html = HTMLRenderer.render(report)
        let bytes = html.utf8.count
        sizes[n] = bytes
        let failing = report.summary.failed
        #expect(failing == n / 100)
        // Every failing file has its details, and the first passing ones; the others are compact rows.
        let full = HTMLRenderer.fullPassingFiles
        #expect(html.components(separatedBy: "<details id=\"f").count - 1 == failing + full)
        #expect(html.contains("<details id=\"f7\"") && html.contains("<details id=\"f8\""))
        #expect(!html.contains("<details id=\"f\(n - 1)\""))
        // Chunks of 500 rows: the failing files' first table, then the passing files' chunks.
        let chunks = html.components(separatedBy: "<div class=\"chunk\">").count - 1
        #expect(chunks == (n - failing + 499) / 500 + max(0, (failing - 1) / 500))
        // The folders are counted in the summary.
        #expect(html.contains("<td><code>folder-7</code></td><td>\(n / 40)</td><td>\(n / 200)</td>"))
        // Past the files shown in full, about 250 bytes per file, the passing files' rows being most of them (the
        // full layout took about 1,250).
        let perFile = Double(bytes - full * 1_200) / Double(n)
        #expect(perFile < 300, "\(n) files: \(bytes) bytes")
    }
    // Linear in the number of files: nothing per file is repeated per page.
    if let a = sizes[10_000], let b = sizes[100_000] {
        #expect(Double(b) / Double(a) < 10.2, "\(a) → \(b) bytes")
        #expect(Double(b - a) / 90_000 < 300, "each file past 10,000 adds \(Double(b - a) / 90_000) bytes")
        #expect(b < 30_000_000, "\(b) bytes at 100,000 files")
    }
}
