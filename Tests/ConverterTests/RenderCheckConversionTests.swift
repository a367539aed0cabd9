import Audit
import Converter
import CorpusKit
import Findings
import Foundation
import RenderCheck
import RenderIO
import ReportModel
import ReportWriting
import TestSupport
import Testing

/// The render findings an audit of `output` against `source` raises (`render.*`, any severity).
func renderFindings(source: URL, output: URL) -> [Finding] {
    let job = AuditJob(name: output.lastPathComponent, source: source, output: output)
    return FileAuditor(options: AuditOptions(policy: .readbackOutputs), decoders: .inProcess).audit(job).findings
        .filter { $0.code.rawValue.hasPrefix("render.") }
}

/// Every committed recipe (all 8 orientations, Bayer and linear, uncompressed and lossless JPEG) converted by
/// Readback matches its embedded camera-style preview: no render finding at all, so neither a false alarm nor a
/// silent skip.
@Test func readbackOutputsMatchTheirDNGPreviews() throws {
    let dir = Repo.temporaryDirectory("render-own")
    defer { try? FileManager.default.removeItem(at: dir) }
    for recipe in Corpus.tiny {
        let src = dir.appendingPathComponent(URL(fileURLWithPath: recipe.file).lastPathComponent)
        try Data(recipe.dngBytes()).write(to: src)
        let (_, out) = try convertToFile(src, in: dir)
        let f = renderFindings(source: src, output: out)
        #expect(f.isEmpty, "\(recipe.file): \(f.map(\.description))")
    }
}

/// The committed orientation-6 linear DNG (`dng/linear-16bit-o6.dng`) written to `dir`, converted by Readback, and
/// its output with `failure` applied written as `bad.heic` (decoded, broken, re-encoded): (source, broken output).
func brokenConversion(_ failure: DeliberateFailure, in dir: URL) throws -> (source: URL, output: URL) {
    let recipe = try #require(Corpus.tiny.first { $0.file == "dng/linear-16bit-o6.dng" })
    let src = dir.appendingPathComponent("linear-16bit-o6.dng")
    try Data(recipe.dngBytes()).write(to: src)
    let (_, out) = try convertToFile(src, in: dir)
    let bad = dir.appendingPathComponent("bad.heic")
    try Data(try OutputImage.broken([UInt8](try Data(contentsOf: out)), failure, decoders: .inProcess)).write(to: bad)
    return (src, bad)
}

/// The deliberate failures, each written as a real HEIC (decoded, broken, re-encoded), are caught by the audit with
/// their codes as errors: turned 90° with no tag change, +40 % red and blue, 1.5 stops under, a constant frame.
/// The source has orientation 6, so the reference preview itself has to be turned to be compared.
@Test(arguments: DeliberateFailure.allCases)
func deliberatePixelFailuresAreCaught(_ failure: DeliberateFailure) throws {
    let dir = Repo.temporaryDirectory("render-bad")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (src, bad) = try brokenConversion(failure, in: dir)
    let f = renderFindings(source: src, output: bad)
    #expect(f.map(\.code) == [failure.expectedFindingCode], "\(f.map(\.description))")
    #expect(f.first?.severity == .error)
    #expect(f.first?.evidence?.actual != nil, "the evidence carries the measured numbers")
}

/// A source without any preview gets `render.no-reference` (info): the check says it did not run.
@Test func aSourceWithoutPreviewSaysSo() throws {
    let dir = Repo.temporaryDirectory("render-none")
    defer { try? FileManager.default.removeItem(at: dir) }
    let good = try Data(contentsOf: Repo.root.appendingPathComponent("Corpus/heic/good.heic"))
    let out = dir.appendingPathComponent("good.heic")
    try good.write(to: out)
    // A "source" exiv2 reads but that holds no preview: an XMP sidecar-like text file is not an image; use a HEIC
    // without a thumbnail item instead — the output itself re-encoded plainly.
    let plain = dir.appendingPathComponent("plain.heic")
    try Data(try OutputImage.broken([UInt8](good), .under, decoders: .inProcess)).write(to: plain)
    let f = renderFindings(source: plain, output: out)
    #expect(f.map(\.code) == [.renderNoReference], "\(f.map(\.description))")
    #expect(f.first?.severity == .info && f.first?.message.hasPrefix("no reference render: ") == true)
}

/// The HTML report shows the reference render beside the output's primary for a file with a render finding: the
/// audit of a colour-cast output writes both thumbnails, and the file's section has both figures next to the finding.
@Test func htmlShowsTheReferenceBesideTheOutputForARenderFinding() throws {
    let dir = Repo.temporaryDirectory("render-html")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (src, bad) = try brokenConversion(.castRedBlue, in: dir)
    let reportDir = dir.appendingPathComponent("report")
    let report = Auditor.run(
        Pairing(jobs: [AuditJob(name: "bad.heic", source: src, output: bad)], unmatchedOutputs: []),
        options: AuditOptions(policy: .readbackOutputs, thumbnails: true), mode: .pair, roots: [:],
        tool: ToolInfo(version: "test"), libraries: [], decoders: .inProcess,
        thumbnails: ThumbnailFolder(reportDirectory: reportDir))
    #expect(report.files.first?.findings.contains { $0.code == .renderCast } == true)
    try ReportFiles.write(report, to: reportDir, html: .inlined)
    let html = try String(contentsOf: reportDir.appendingPathComponent("report.html"), encoding: .utf8)
    let section = try #require(html.range(of: "render.cast").map { html[$0.lowerBound...] })
    let figures = try #require(section.range(of: "<div class=\"thumbs\">").map { section[$0.lowerBound...] })
    #expect(figures.hasPrefix("<div class=\"thumbs\"><figure><img alt=\"reference render\" src=\"data:image/png"))
    #expect(figures.contains("<figure><img alt=\"primary\" src=\"data:image/png"))
}
