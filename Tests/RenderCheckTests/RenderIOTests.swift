import CorpusKit
import Foundation
import JPEGCodec
import RenderCheck
import Testing

@testable import RenderIO

/// A smooth test picture, 8-bit RGB.
func picture(_ w: Int, _ h: Int) -> [UInt8] {
    (0..<(w * h)).flatMap { i -> [UInt8] in
        let (x, y) = (i % w, i / w)
        return [UInt8(x * 255 / max(1, w - 1)), UInt8(y * 255 / max(1, h - 1)), UInt8((x + y) * 127 / max(1, w + h))]
    }
}

/// CorpusKit's baseline encoder and TurboJPEG agree: what one writes the other reads back within JPEG's loss.
@Test func turboJPEGDecodesTheCorpusEncoder() throws {
    let (w, h) = (61, 37)  // not multiples of 8: edge blocks are padded
    let rgb = picture(w, h)
    let jpeg = BaselineJPEG.encode(rgb: rgb, width: w, height: h, quality: 95)
    let img = try JPEGDecoder.decode(jpeg)
    #expect(img.width == w && img.height == h)
    let worst = zip(img.samples, rgb).map { abs(Int($0) - Int($1)) }.max() ?? 255
    #expect(worst <= 8, "largest difference \(worst)")
    #expect(try JPEGDecoder.size(jpeg) == (w, h))
    // Scaled decode: the smallest TurboJPEG scale that keeps the long side at least 16.
    let small = try JPEGDecoder.decode(
        BaselineJPEG.encode(rgb: picture(256, 128), width: 256, height: 128), minSide: 60)
    #expect(small.width == 64 && small.height == 32)
}

/// Hostile input: garbage, a truncated stream and a header declaring billions of pixels are errors, never a crash
/// or a half-grey picture.
@Test func jpegDecoderRefusesGarbageTruncationAndHugeHeaders() {
    let jpeg = BaselineJPEG.encode(rgb: picture(64, 64), width: 64, height: 64)
    #expect(throws: JPEGError.self) { try JPEGDecoder.decode([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]) }
    #expect(throws: JPEGError.self) { try JPEGDecoder.decode(Array("not a jpeg".utf8)) }
    #expect(throws: JPEGError.self) { try JPEGDecoder.decode(Array(jpeg.prefix(jpeg.count * 2 / 3))) }
    // SOF0 at its marker: precision, then height and width (big-endian); 60000 × 60000 is over the cap.
    var huge = jpeg
    let sof = (0..<(huge.count - 1)).first { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 }!
    huge[sof + 5] = 0xEA
    huge[sof + 6] = 0x60
    huge[sof + 7] = 0xEA
    huge[sof + 8] = 0x60
    #expect(throws: JPEGError.self) { try JPEGDecoder.decode(huge) }
}

/// The APP1 Exif and the APP2 ICC chunks (in sequence order, joined) are found before the scan.
@Test func jpegSegmentsFindExifAndChunkedICC() {
    let jpeg = BaselineJPEG.encode(rgb: picture(16, 16), width: 16, height: 16)
    func app(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }
    let icc = Array("ICC_PROFILE\0".utf8)
    let exif = Array("Exif\0\0".utf8) + [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    // Chunk 2 before chunk 1: the order comes from the sequence numbers.
    let withSegments =
        Array(jpeg.prefix(2)) + app(0xE1, exif) + app(0xE2, icc + [2, 2] + [4, 5, 6])
        + app(0xE2, icc + [1, 2] + [1, 2, 3])
        + Array(jpeg.dropFirst(2))
    let s = JPEGSegments(withSegments)
    #expect(s.icc == [1, 2, 3, 4, 5, 6])
    #expect(s.exif == [0x49, 0x49, 42, 0, 8, 0, 0, 0])
    // A missing chunk means no profile.
    let missing = Array(jpeg.prefix(2)) + app(0xE2, icc + [1, 2] + [1, 2, 3]) + Array(jpeg.dropFirst(2))
    #expect(JPEGSegments(missing).icc == nil)
    #expect((try? JPEGDecoder.decode(withSegments))?.width == 16)
}

/// A TIFF-wrapped preview (as exiv2 hands it back): uncompressed RGB and JPEG-in-strips both decode.
@Test func tiffPreviewsDecode() throws {
    let (w, h) = (40, 24)
    let rgb = picture(w, h)
    var plain = TIFFIFD()
    plain[256] = .longs([UInt32(w)])
    plain[257] = .longs([UInt32(h)])
    plain[258] = .shorts([8, 8, 8])
    plain[259] = .shorts([1])
    plain[262] = .shorts([2])
    plain[277] = .shorts([3])
    plain[278] = .longs([UInt32(h)])
    plain.imageData = rgb
    let a = try TIFFImage.decode(TIFFWriter.serialize(plain, order: .big), decoders: .inProcess).get()
    #expect(a.width == w && a.samples == rgb)
    var jpeg = plain
    jpeg[259] = .shorts([7])
    jpeg[262] = .shorts([6])
    jpeg.imageData = BaselineJPEG.encode(rgb: rgb, width: w, height: h, quality: 95)
    let b = try TIFFImage.decode(TIFFWriter.serialize(jpeg), decoders: .inProcess).get()
    #expect(b.width == w && b.height == h)
    #expect(zip(b.samples, rgb).allSatisfy { abs(Int($0) - Int($1)) <= 8 })
    // A strip past the end of the file is refused.
    let cut = Array(TIFFWriter.serialize(plain).dropLast(100))
    #expect((try? TIFFImage.decode(cut, decoders: .inProcess).get()) == nil)
}

/// The reference of a generated DNG is its JPEG preview SubIFD, shown with the DNG's orientation: for every
/// orientation the shown preview has the chart's display size and its upright colours.
@Test(arguments: [1, 3, 6, 8])
func dngPreviewIsTheReferenceShownUpright(orientation: Int) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-ref-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let chart = Chart(width: 256, height: 192, highlightStops: nil)
    let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 12, orientation: orientation)
    let url = dir.appendingPathComponent("o\(orientation).dng")
    try Data(DNGWriter.write(scene: chart, spec: spec)).write(to: url)
    guard case .found(let ref) = ReferenceExtractor.reference(for: url, decoders: .inProcess) else {
        Issue.record("no reference found in the generated DNG")
        return
    }
    #expect(ref.description == "embedded preview 256×192 (image/tiff)" || ref.description.contains("192×256"))
    #expect(ref.image.width == 256 && ref.image.height == 192, "shown \(ref.image.width)×\(ref.image.height)")
    #expect(ref.image.space == .sRGB)
    #expect(!ref.orientationAmbiguous)
    // Each shown pixel has the chart's upright colour (JPEG loss and clipping aside).
    var worst = 0.0
    for p in chart.truth.patches {
        let (x, y) = (Int((p.rect.x0 + p.rect.x1) / 2 * 256), Int((p.rect.y0 + p.rect.y1) / 2 * 192))
        let c = chart.pixel(x: x, y: y)
        for (k, v) in [c.r, c.g, c.b].enumerated() {
            let expected = ColorMath.srgbEncode(v)
            worst = max(worst, abs(Double(ref.image.samples[3 * (y * 256 + x) + k]) - expected))
        }
    }
    #expect(worst < 0.06, "largest code difference \(worst)")
}
