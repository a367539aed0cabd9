import ColorScience
import CorpusKit
import Findings
import Foundation
import RenderCheck
import RenderIO
import TestSupport
import Testing

@testable import Converter

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

    let camera = try HEICConverter.convert(source: src, decoders: .inProcess)
    let look = try #require(camera.result.look)
    #expect(look.applied, "\(look.reason)")
    let mid = try #require(look.midGreyStops)
    let contrast = try #require(look.contrast)
    #expect(abs(mid - -0.8) < 0.25, "18 % grey moved \(mid) stops")
    #expect(contrast > 1.05 && contrast < 1.6, "contrast \(contrast)")
    #expect(look.reason.hasPrefix("camera tones from the embedded preview"), "\(look.reason)")
    // The preview's curve on each channel brings the saturation the render's own does: nothing more to take.
    #expect(look.saturation == nil, "\(look.reason)")

    var options = ConvertOptions()
    options.look = .neutral
    let neutral = try HEICConverter.convert(source: src, options: options, decoders: .inProcess)
    #expect(neutral.result.look?.applied == false)
    #expect(neutral.result.look?.reason == "neutral render (--look neutral)")

    guard case .found(let reference) = ReferenceExtractor.fromRAW(src.path, decoders: .inProcess) else {
        Issue.record("the generated DNG has no usable preview")
        return
    }
    let c = RenderComparison.compare(
        reference: reference.image, output: try OutputImage.fromHEIF(camera.bytes, decoders: .inProcess))
    let n = RenderComparison.compare(
        reference: reference.image, output: try OutputImage.fromHEIF(neutral.bytes, decoders: .inProcess))
    #expect(c.deltaEMedian < n.deltaEMedian * 0.6, "ΔE00 median camera \(c.deltaEMedian) vs neutral \(n.deltaEMedian)")
    let (ce, ne) = (try #require(c.exposureStops), try #require(n.exposureStops))
    #expect(abs(ce) < 0.2 && ne > 0.4, "exposure against the preview: camera \(ce), neutral \(ne)")

    let out = dir.appendingPathComponent("look.heic")
    try Data(camera.bytes).write(to: out)
    let f = renderFindings(source: src, output: out)
    #expect(f.isEmpty, "\(f.map(\.description))")
}

/// A camera that renders paler than colorimetric (the preview at 0.6 of the chroma its curve gives, as the Nikon
/// D5000's bright frame is at about half): the look takes the preview's saturation too, so the output's mean chroma
/// lands on the preview's where the render alone is well over it; luminance (the exposure) does not move.
@Test func theCameraLookTakesAPalePreviewsSaturation() throws {
    let dir = Repo.temporaryDirectory("camera-look-pale")
    defer { try? FileManager.default.removeItem(at: dir) }
    var spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14)
    (spec.previewExposure, spec.previewContrast, spec.previewSaturation) = (-0.5, 1.2, 0.6)
    let src = dir.appendingPathComponent("pale.dng")
    try Data(DNGWriter.write(scene: Chart(width: 768, height: 512, highlightStops: nil), spec: spec)).write(to: src)
    let converted = try HEICConverter.convert(source: src, decoders: .inProcess)
    let look = try #require(converted.result.look)
    let sat = try #require(look.saturation, "\(look.reason)")
    #expect(sat > 0.5 && sat < 0.75, "\(look.reason)")
    #expect(look.reason.hasSuffix(String(format: ", saturation ×%.2f", sat)), "\(look.reason)")

    var options = ConvertOptions()
    options.look = .neutral
    let neutral = try HEICConverter.convert(source: src, options: options, decoders: .inProcess)
    guard case .found(let reference) = ReferenceExtractor.fromRAW(src.path, decoders: .inProcess) else {
        Issue.record("the generated DNG has no usable preview")
        return
    }
    let c = RenderComparison.compare(
        reference: reference.image, output: try OutputImage.fromHEIF(converted.bytes, decoders: .inProcess))
    let n = RenderComparison.compare(
        reference: reference.image, output: try OutputImage.fromHEIF(neutral.bytes, decoders: .inProcess))
    let (cc, nc) = (try #require(c.chromaRatio), try #require(n.chromaRatio))
    #expect(abs(cc - 1) < 0.1 && nc > 1.3, "chroma over the preview's: camera look ×\(cc), neutral ×\(nc)")
    #expect(abs(try #require(c.exposureStops)) < 0.2)
    #expect(c.deltaEMedian < n.deltaEMedian * 0.6, "ΔE00 median camera \(c.deltaEMedian) vs neutral \(n.deltaEMedian)")
}

/// Without a preview, or with one that shows the neutral render's tones, the render stays neutral and says why.
@Test func theNeutralRenderIsKeptWhenThePreviewSaysNothingNew() throws {
    let dir = Repo.temporaryDirectory("camera-look-neutral")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recipe = try #require(Corpus.tiny.first { $0.file == "dng/chart-rggb-16bit-o1.dng" })
    let src = dir.appendingPathComponent("chart.dng")
    try Data(recipe.dngBytes()).write(to: src)
    let same = try HEICConverter.convert(source: src, decoders: .inProcess)
    let look = try #require(same.result.look)
    #expect(!look.applied && look.reason.hasPrefix("neutral render: the camera's tones match it"), "\(look.reason)")
    var options = ConvertOptions()
    options.look = .neutral
    #expect(
        try HEICConverter.convert(source: src, options: options, decoders: .inProcess).bytes == same.bytes,
        "neutral is neutral")
}

/// A frame in memory (working-space 16-bit codes), for the look's fit and the HDR measure without a file.
final class MemoryFrame: LinearFrame, @unchecked Sendable {
    let width: Int
    let height: Int
    let codes: [UInt16]
    init(width: Int, height: Int, codes: [UInt16]) {
        (self.width, self.height, self.codes) = (width, height, codes)
    }
    func pixel(x: Int, y: Int) -> (UInt16, UInt16, UInt16) {
        let i = 3 * (y * width + x)
        return (codes[i], codes[i + 1], codes[i + 2])
    }
    func copyRow(_ y: Int, into dst: UnsafeMutableBufferPointer<UInt16>) {
        for i in 0..<(3 * width) { dst[i] = codes[3 * y * width + i] }
    }
}

/// A preview that is not a rendering of the frame — a "no preview" placeholder (flat grey, a band of text-like
/// bars) — is not followed: the render stays neutral and says why; the camera's real rendering of the same frame is.
@Test func aPlaceholderPreviewIsNotTheCamerasLook() throws {
    let (w, h) = (384, 256)
    var codes = [UInt16](repeating: 0, count: 3 * w * h)
    for y in 0..<h {
        for x in 0..<w {
            let disc = hypot(Double(x - 240), Double(y - 120)) < 50
            let v = min(65535, 300 + 9000 * Double(x) / Double(w) + Double(y * 20) + (disc ? 12000 : 0))
            for c in 0..<3 { codes[3 * (y * w + x) + c] = UInt16(v) }
        }
    }
    let frame = MemoryFrame(width: w, height: h, codes: codes)
    let renderer = Renderer(space: .sRGB, baselineExposure: 0)
    // The camera's rendering: the neutral luminance 0.6 stop darker with more contrast, as 8-bit sRGB grey.
    let (pw, ph) = (192, 128)
    var camera = [UInt8](repeating: 0, count: 3 * pw * ph)
    var placeholder = [UInt8](repeating: 128, count: 3 * pw * ph)
    for y in 0..<ph {
        for x in 0..<pw {
            let p = frame.pixel(x: 2 * x, y: 2 * y)
            let yl = Double(renderer.pixel(p.0, p.1, p.2).y)
            let shown = min(1, 0.18 * exp2(-0.6) * pow(max(yl, 1e-6) / 0.18, 1.3))
            let code = UInt8((SRGBTransfer.encode(Float(shown)) * 255).rounded())
            for c in 0..<3 { camera[3 * (y * pw + x) + c] = code }
            if (56..<72).contains(y) && x % 9 < 6 { for c in 0..<3 { placeholder[3 * (y * pw + x) + c] = 30 } }
        }
    }
    func look(_ codes: [UInt8]) -> LookSummary {
        let ref = ReferenceRender(
            image: RenderImage(width: pw, height: ph, codes: codes, space: .sRGB), description: "test preview")
        return HEICConverter.cameraLook(reference: ref, frame: frame, renderer: renderer, space: .displayP3).1
    }
    let real = look(camera)
    #expect(real.applied, "\(real.reason)")
    #expect(abs((real.midGreyStops ?? 0) - -0.6) < 0.2, "\(real.reason)")
    let fake = look(placeholder)
    #expect(!fake.applied)
    #expect(fake.reason.hasPrefix("neutral render: the test preview does not show this frame"), "\(fake.reason)")
}

/// The look cuts a preview's letterbox bars with the render check's own rule (`RenderImage.letterbox`): a 40×30
/// picture with 5-row black bars above and below and none at the sides.
@Test func theLookCutsLetterboxBarsAsTheRenderCheckDoes() {
    let (w, h) = (40, 30)
    var codes = [UInt8](repeating: 0, count: 3 * w * h)
    for y in 5..<25 { for x in 0..<w { for c in 0..<3 { codes[3 * (y * w + x) + c] = UInt8(30 + 5 * x) } } }
    let bars = RenderImage(width: w, height: h, codes: codes, space: .sRGB).letterbox()
    #expect(bars.top == 5 && bars.bottom == 5 && bars.left == 0 && bars.right == 0, "\(bars)")
}
