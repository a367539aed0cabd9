import Foundation
import HEIF
import ReportModel
import TestSupport
import Testing

@testable import ReadbackCLI

/// `writeHEIC`'s file with its primary hidden behind an overlay (`iovl`) over it twice, at offsets on a fill.
private func writeOverlayHEIC(_ dir: URL, _ name: String) throws -> URL {
    let u = try writeHEIC(dir, name)
    let f = HEIFFile(bytes: [UInt8](try Data(contentsOf: u)))
    let p = try #require(f.primaryItemID)
    var b = HEIFBuilder(file: f)
    b.updateItem(p) { $0.hidden = true }
    let o = b.addOverlay(
        width: 64, height: 48, fill: (0, 0xFFFF, 0, 0xFFFF), inputs: [p, p], offsets: [(x: -10, y: 0), (x: 40, y: 30)])
    b.setPrimary(o)
    try Data(b.build()).write(to: u)
    return u
}

/// In a `--sources/--outputs` batch with decoding, an overlay primary (on which libheif 1.15 crashes the process) is
/// audited beside ordinary files: the run finishes in-process, decodes the ordinary file, and names the overlay as not
/// decoded instead of passing pixels libheif would have garbled.
@Test func aBatchWithAnOverlayPrimaryFinishesAndNamesIt() throws {
    let dir = Repo.temporaryDirectory("cli-overlay")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    _ = try writeHEIC(src, "a.heic")
    _ = try writeHEIC(out, "a.heic")
    let ov = try writeOverlayHEIC(src, "ov.heic")
    try FileManager.default.copyItem(at: ov, to: out.appendingPathComponent("ov.heic"))
    let rep = dir.appendingPathComponent("rep")
    let r = runCLI([
        "audit", "--sources", src.path, "--outputs", out.path, "--no-history", "--jobs", "2", "--report", rep.path,
    ])
    // A warning (not judged by its pixels) does not fail the default error gate; the report names it. The fourth
    // finding: the overlay has no pixi (conformance.pixi-missing, a warning as the source has it too).
    #expect(r.code == .clean, "\(r.out)\(r.err)")
    #expect(r.out.contains("ov.heic: pass (4 finding(s) below the gate)"), "\(r.out)")
    let json = rep.appendingPathComponent("report.json")
    let report = try JSONDecoder().decode(AuditReport.self, from: Data(contentsOf: json))
    let byName = Dictionary(uniqueKeysWithValues: report.files.map { ($0.name, $0) })
    let a = try #require(byName["a.heic"])
    #expect(a.decode.first { $0.target == .primary }?.status == .ok)
    let o = try #require(byName["ov.heic"])
    #expect(o.decode.first { $0.target == .primary }?.status == .skipped)
    #expect(o.findings.contains { $0.severity == .warning && $0.message.contains("libheif 1.15 crashes") })
}
