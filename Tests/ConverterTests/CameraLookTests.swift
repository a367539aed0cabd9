import Converter
import CorpusKit
import Findings
import Foundation
import RenderCheck
import RenderIO
import TestSupport
import Testing

/// A generated DNG whose embedded preview shows the scene through a camera curve (0.8 stop under at 18 % grey,
/// contrast 1.3, on each channel): `--look camera` (the default) fits that curve and lands closer to the preview than
/// the neutral render, by the same measure the audit uses; the neutral render is what `--look neutral` gives; and the
/// audit raises no render finding on the camera-look output.
@Test func theCameraLookFollowsTheEmbeddedPreview() throws {
    let dir = Repo.temporaryDirectory("camera-look")
    defer { try? FileManager.default.removeItem(at: dir) }
    var spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, orientation: 6)
    (spec.previewExposure, spec.previewContrast) = (-0.8, 1.3)
    let src = dir.appendingPathComponent("look.dng")
    try Data(DNGWriter.write(scene: Chart(width: 768, height: 512, highlightStops: nil), spec: spec)).write(to: src)

    let camera = try HEICConverter.convert(source: src)
    let look = try #require(camera.result.look)
    #expect(look.applied, "\(look.reason)")
    let mid = try #require(look.midGreyStops)
    let contrast = try #require(look.contrast)
    #expect(abs(mid - -0.8) < 0.25, "18 % grey moved \(mid) stops")
    #expect(contrast > 1.05 && contrast < 1.6, "contrast \(contrast)")
    #expect(look.reason.hasPrefix("camera tones from the embedded preview"), "\(look.reason)")

    var options = ConvertOptions()
    options.look = .neutral
    let neutral = try HEICConverter.convert(source: src, options: options)
    #expect(neutral.result.look?.applied == false)
    #expect(neutral.result.look?.reason == "neutral render (--look neutral)")

    guard case .found(let reference) = ReferenceExtractor.fromRAW(src.path) else {
        Issue.record("the generated DNG has no usable preview")
        return
    }
    let c = RenderComparison.compare(reference: reference.image, output: try OutputImage.fromHEIF(camera.bytes))
    let n = RenderComparison.compare(reference: reference.image, output: try OutputImage.fromHEIF(neutral.bytes))
    #expect(c.deltaEMedian < n.deltaEMedian * 0.6, "ΔE00 median camera \(c.deltaEMedian) vs neutral \(n.deltaEMedian)")
    let (ce, ne) = (try #require(c.exposureStops), try #require(n.exposureStops))
    #expect(abs(ce) < 0.2 && ne > 0.4, "exposure against the preview: camera \(ce), neutral \(ne)")

    let out = dir.appendingPathComponent("look.heic")
    try Data(camera.bytes).write(to: out)
    let f = renderFindings(source: src, output: out)
    #expect(f.isEmpty, "\(f.map(\.description))")
}

/// Without a preview, or with one that shows the neutral render's tones, the render stays neutral and says why.
@Test func theNeutralRenderIsKeptWhenThePreviewSaysNothingNew() throws {
    let dir = Repo.temporaryDirectory("camera-look-neutral")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recipe = try #require(Corpus.tiny.first { $0.file == "dng/chart-rggb-16bit-o1.dng" })
    let src = dir.appendingPathComponent("chart.dng")
    try Data(recipe.dngBytes()).write(to: src)
    let same = try HEICConverter.convert(source: src)
    let look = try #require(same.result.look)
    #expect(!look.applied && look.reason.hasPrefix("neutral render: the camera's tones match it"), "\(look.reason)")
    var options = ConvertOptions()
    options.look = .neutral
    #expect(try HEICConverter.convert(source: src, options: options).bytes == same.bytes, "neutral is neutral")
}
