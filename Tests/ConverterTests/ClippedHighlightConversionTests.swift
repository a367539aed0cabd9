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
    let out = try HEICConverter.convert(source: url)
    let clipped = try #require(out.result.clippedFraction)
    #expect(clipped > 0.27 && clipped < 0.33, "clipped \(clipped)")
    let d = try HeifDecoder.decodePrimary(out.bytes)
    for (x, y) in [(200, 40), (230, 100), (250, 180)] {
        let i = (y * d.width + x) * 3
        let rgb = (0..<3).map { Int(d.samples[i + $0]) }
        #expect(rgb.min()! >= 235, "(\(x), \(y)) not white: \(rgb)")
        #expect(rgb.max()! - rgb.min()! <= 8, "(\(x), \(y)) tinted: \(rgb)")
    }
}
