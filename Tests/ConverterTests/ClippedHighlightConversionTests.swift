import Converter
import Foundation
import HeifCodec
import TestSupport
import Testing

/// An overexposed DNG: 30 % of its samples at the ADC maximum (16383), above the file's WhiteLevel (15000), in one
/// coherent region, beside a grey ramp with a red patch. It converts; the result says how much was clipped; the
/// blown region is rendered white, without a magenta or any other tint.
@Test func overexposedDNGConvertsWithCleanHighlights() throws {
    var o = TestDNG.Options()
    o.white = 15000
    o.rawCode = { x, _ in x >= 180 ? 16383 : nil }
    let dng = TestDNG.make(o) { x, y in
        if x < 60 && y < 60 { return (0.5, 0.08, 0.06) }
        let v = Double(x) / 255 * 0.7
        return (v, v, v)
    }
    let dir = Repo.temporaryDirectory("clipped-conversion")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("overexposed.dng")
    try Data(dng).write(to: url)
    let out = try HEICConverter.convert(source: url, decoders: .inProcess)
    let clipped = try #require(out.result.clippedFraction)
    #expect(clipped > 0.27 && clipped < 0.33, "clipped \(clipped)")
    try expectWhite(out.bytes, at: [(200, 40), (230, 100), (250, 180)])
}

/// The decoded primary of `heic` is white without a tint (every channel ≥ 235 of 255, within 8 of each other) at each
/// point: a blown region rendered white, as LibRaw's highlight mode 0 clips it (docs/platform.md).
private func expectWhite(_ heic: [UInt8], at points: [(Int, Int)]) throws {
    let d = try HeifDecoder.decodePrimary(heic)
    for (x, y) in points {
        let i = (y * d.width + x) * 3
        let rgb = (0..<3).map { Int(d.samples[i + $0]) }
        #expect(rgb.min()! >= 235, "(\(x), \(y)) not white: \(rgb)")
        #expect(rgb.max()! - rgb.min()! <= 8, "(\(x), \(y)) tinted: \(rgb)")
    }
}

/// Like a real overexposed frame (a Nikon D5000 bracket's, held out): 62 % of the frame blown, the greens pinned at
/// WhiteLevel 3840, red and blue spread up to the 12-bit ADC's 4095, read noise elsewhere. It converts, says how much
/// each CFA channel clipped, and the blown region is white without a tint.
@Test func aRealStyleOverexposedDNGConverts() throws {
    var o = TestDNG.Options()
    (o.white, o.black) = (3840, 256)
    o.rawCode = { x, y in
        if x >= 96 { return (x + y) % 2 == 1 ? 3840 : 3900 + UInt16((x &* 31 &+ y &* 17) % 196) }
        return UInt16(256 + Double(x) / 96 * 0.95 * 3584 + Double((x &* 13 &+ y &* 7) % 13) - 6)
    }
    let dng = TestDNG.make(o) { _, _ in (0, 0, 0) }
    let dir = Repo.temporaryDirectory("clipped-realstyle")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("overexposed.dng")
    try Data(dng).write(to: url)
    let out = try HEICConverter.convert(source: url, decoders: .inProcess)
    let clipped = try #require(out.result.clippedFraction)
    #expect(clipped > 0.55 && clipped < 0.7, "clipped \(clipped)")
    let byChannel = try #require(out.result.clippedByChannel)
    #expect(Set(byChannel.keys) == ["R", "G", "G2", "B"], "\(byChannel)")
    try expectWhite(out.bytes, at: [(200, 40), (230, 100), (120, 180)])
}
