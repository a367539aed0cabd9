import CorpusKit
import Foundation
import JXLCodec
import RawDecoder
import TestSupport
import Testing

/// libjxl's encoder as CorpusKit's tile encoder.
func jxlTiling(
    distance: Float? = nil, container: Bool = false, tile: Int = 64, interleaved: Bool = false, crop: Bool = false,
    float: Bool = false
) -> JXLTiling {
    let floats: JXLTiling.FloatEncoder = { samples, w, h, channels in
        try JXL.encode(
            floats: samples, width: w, height: h, channels: channels,
            options: JXLEncodeOptions(distance: distance, container: container, effort: 1))
    }
    return JXLTiling(
        tileWidth: tile, tileHeight: tile, interleaved: interleaved, cropEdgeTiles: crop,
        encodeFloats: float ? floats : nil
    ) {
        samples, w, h, channels, bits in
        try JXL.encode(
            samples, width: w, height: h, channels: channels, bits: bits,
            options: JXLEncodeOptions(distance: distance, container: container, effort: 1))
    }
}

/// What LibRaw holds after opening `bytes`: the visible samples and its levels.
private func decoded(_ bytes: [UInt8], _ name: String) throws -> RawSamples {
    let d = LibRawDecoder()
    _ = try d.open(bytes: bytes, name: name)
    return try d.visibleSamples(width: 1 << 16, height: 1 << 16)
}

/// Each case: layout, bits, byte order, tiling. 200×136 is no multiple of the 64-pixel tile, so edge tiles are
/// padded (or cropped) in every case.
private let losslessCases: [(String, DNGLayout, Int, Bool, JXLTiling)] = [
    ("rggb-16 bare", .bayer(.rggb), 16, false, jxlTiling()),
    ("grbg-12 container", .bayer(.grbg), 12, false, jxlTiling(container: true)),
    ("bggr-14 interleaved big-endian", .bayer(.bggr), 14, true, jxlTiling(interleaved: true)),
    ("gbrg-14 cropped edge tiles", .bayer(.gbrg), 14, false, jxlTiling(tile: 48, crop: true)),
    ("linear-16", .linear, 16, false, jxlTiling()),
    ("linear-12 interleaved flag ignored", .linear, 12, true, jxlTiling(container: true, interleaved: true)),
    ("rggb-14 float", .bayer(.rggb), 14, false, jxlTiling(float: true)),
    // 14-bit codes as floats: LibRaw keeps float data whose maximum lies in 4096…32767 at its scale.
    ("linear-14 float interleaved flag ignored", .linear, 14, true, jxlTiling(interleaved: true, float: true)),
]

@Test(arguments: 0..<8)
func losslessJPEGXLDecodesBitIdenticalToItsUncompressedTwin(_ index: Int) throws {
    let (label, layout, bits, bigEndian, tiling) = losslessCases[index]
    let spec = DNGSpec(
        layout: layout, bitsPerSample: bits, noiseSigma: 1.5, seed: 40 + UInt64(index), orientation: 1,
        camera: layout == .linear ? .syntheticLinear : .synthetic, bigEndian: bigEndian)
    let twin = DNGWriter.write(scene: Chart(width: 200, height: 136, highlightStops: 2), spec: spec)
    let jxl = try DNGJXL.compress(uncompressedDNG: twin, tiling: tiling)
    #expect(JXLDNG.isJXLDNG(Data(jxl)), "\(label)")
    #expect(!JXLDNG.isJXLDNG(Data(twin)))
    let a = try decoded(twin, "twin.dng")
    let b = try decoded(jxl, "jxl.dng")
    #expect(a.width == 200 && a.height == 136, "\(label)")
    #expect((b.width, b.height, b.channels, b.black, b.white) == (a.width, a.height, a.channels, a.black, a.white))
    let differing = zip(a.samples, b.samples).filter { $0 != $1 }.count
    #expect(differing == 0, "\(label): \(differing) of \(a.samples.count) samples differ")
    #expect(a.samples.count == b.samples.count)
}

@Test func lossyJPEGXLDecodesCloseToItsTwin() throws {
    for (layout, interleaved) in [(DNGLayout.bayer(.rggb), true), (.linear, false)] {
        let spec = DNGSpec(
            layout: layout, bitsPerSample: 14, noiseSigma: 1, seed: 77,
            camera: layout == .linear ? .syntheticLinear : .synthetic)
        let twin = DNGWriter.write(scene: Chart(width: 200, height: 136, highlightStops: 2), spec: spec)
        let jxl = try DNGJXL.compress(
            uncompressedDNG: twin, tiling: jxlTiling(distance: 0.5, interleaved: interleaved))
        #expect(jxl.count < twin.count / 2, "\(layout.name): lossy \(jxl.count) B, twin \(twin.count) B")
        let a = try decoded(twin, "twin.dng")
        let b = try decoded(jxl, "jxl.dng")
        #expect(a.samples.count == b.samples.count)
        let meanError =
            zip(a.samples, b.samples).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(a.samples.count)
        // Within 0.5 % of the 14-bit range on average, and not bit-identical (it is lossy).
        #expect(meanError < 0.005 * 16383, "\(layout.name): mean error \(meanError)")
        #expect(a.samples != b.samples)
    }
}

@Test func brokenJPEGXLTileIsRefusedByName() throws {
    let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 16, seed: 5)
    let twin = DNGWriter.write(scene: Chart(width: 128, height: 128, highlightStops: 2), spec: spec)
    var jxl = try DNGJXL.compress(uncompressedDNG: twin, tiling: jxlTiling())
    // The JPEG XL codestreams start with FF 0A: cut the third one's body to zeros.
    var starts: [Int] = []
    for i in 0..<(jxl.count - 1) where jxl[i] == 0xFF && jxl[i + 1] == 0x0A { starts.append(i) }
    let target = try #require(starts.count >= 3 ? starts[2] : nil)
    for i in (target + 2)..<min(target + 200, jxl.count) { jxl[i] = 0 }
    let d = LibRawDecoder()
    #expect {
        _ = try d.open(bytes: jxl, name: "broken.dng")
    } throws: { error in
        guard let e = error as? RawDecodeError, case .jpegXL(let why) = e.reason else { return false }
        return why.contains("tile") && e.description.contains("JPEG XL")
    }
}

/// A codestream deeper than BitsPerSample holds the codes as they are (12-bit codes in a 16-bit JPEG XL image); a
/// shallower one is scaled up to BitsPerSample's range (a 16-bit IFD whose writer kept 12 bits).
@Test func jpegXLDepthOtherThanBitsPerSample() throws {
    func twinAndJXL(bits: Int, jxlBits: Int, shift: Int) throws -> (RawSamples, RawSamples) {
        let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: bits, noiseSigma: 1, seed: 3)
        let twin = DNGWriter.write(scene: Chart(width: 128, height: 96, highlightStops: 2), spec: spec)
        let tiling = JXLTiling(tileWidth: 64, tileHeight: 64) { s, w, h, c, _ in
            try JXL.encode(s.map { $0 >> UInt16(shift) }, width: w, height: h, channels: c, bits: jxlBits)
        }
        let jxl = try DNGJXL.compress(uncompressedDNG: twin, tiling: tiling)
        return (try decoded(twin, "twin.dng"), try decoded(jxl, "jxl.dng"))
    }
    let (a, b) = try twinAndJXL(bits: 12, jxlBits: 16, shift: 0)
    #expect(a.samples == b.samples, "12-bit codes in a 16-bit codestream are kept as they are")
    let (c, d) = try twinAndJXL(bits: 16, jxlBits: 12, shift: 4)
    let worst = zip(c.samples, d.samples).map { abs(Int($0) - Int($1)) }.max() ?? .max
    #expect(worst <= 16, "a 12-bit codestream in a 16-bit IFD is scaled up: worst difference \(worst)")
    #expect(c.white == d.white)
}
