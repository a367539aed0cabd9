import Converter
import CorpusKit
import Foundation
import HEIF
import HeifCodec
import TestSupport
import Testing

/// Every committed corpus recipe (Bayer in all CFA patterns, bit depths and orientations, a linear DNG, a chart with
/// nothing above white): the output is upright, and it has a gain map exactly when the chart has highlights.
@Test(arguments: Corpus.tiny.map(\.file))
func corpusRecipeConvertsUprightWithHonestHDR(file: String) throws {
    let recipe = try #require(Corpus.tiny.first { $0.file == file })
    let dir = Repo.temporaryDirectory("corpus-conv")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
    try Data(recipe.dngBytes()).write(to: src)
    let (res, out) = try convertToFile(src, in: dir)
    #expect(res.hdr.gainMap == recipe.truth.hasHighlightsAboveWhite, "\(res.hdr.reason)")
    if recipe.truth.hasHighlightsAboveWhite, let s = recipe.highlightStops {
        // The chart's highlight is `s` stops above diffuse white: the measured headroom says so (±0.25 stop).
        let gm = try #require(res.gainMap)
        #expect(abs(gm.alternateHeadroom - s) < 0.25, "alternate headroom \(gm.alternateHeadroom) vs \(s)")
    }
    #expect(res.width == recipe.width && res.height == recipe.height, "display size \(res.width)×\(res.height)")
    let bytes = [UInt8](try Data(contentsOf: out))
    let file = HEIFFile(bytes: bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.orientation(of: p).exif == 1)
    let d = try HeifDecoder.decodePrimary(bytes, format: .rgb8)
    let img = CorpusKit.LinearImage(
        width: d.width, height: d.height, pixels: d.samples.map { srgbDecode(Float($0) / 255) })
    if ProcessInfo.processInfo.environment["RB_DUMP"] != nil {
        try? Data(bytes).write(
            to: URL(fileURLWithPath: "/tmp/corpus-" + src.deletingPathExtension().lastPathComponent + ".heic"))
    }
    guard let pose = ChartPose.detect(in: img) else {
        Issue.record("chart not found in the output of \(file)")
        return
    }
    #expect(pose.isUpright, "\(pose)")
    let (code, text) = run("heif-info", [out.path])
    #expect(code == 0, "\(text)")
}
