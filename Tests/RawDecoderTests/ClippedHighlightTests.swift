import Foundation
import RawDecoder
import TestSupport
import Testing

/// A deterministic hash of (x, y), for noise the tests can repeat.
private func hash(_ x: Int, _ y: Int) -> UInt64 {
    var h = UInt64(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663) &+ 0x9E37_79B9_7F4A_7C15
    h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
    h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
    return h ^ (h >> 31)
}

/// A 256×192 Bayer DNG whose WhiteLevel (15000) sits below the ADC maximum (16383), as a real camera's can, with
/// `code` overriding the scene (a grey ramp up to 0.6 of white) where it returns a value.
private func decode(_ name: String, code: @escaping @Sendable (Int, Int) -> UInt16?) throws -> (
    RawMetadata, LinearImage16
) {
    var o = TestDNG.Options()
    o.white = 15000
    o.rawCode = code
    let dng = TestDNG.make(o) { x, _ in
        let v = Double(x) / 255 * 0.6
        return (v, v, v)
    }
    let dir = Repo.temporaryDirectory("rawdecoder-clip")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent(name)
    try Data(dng).write(to: url)
    return try LibRawDecoder.decode(url, options: RawDecodeOptions(workingSpace: .sRGB))
}

/// An overexposed frame: a third of it blown to the ADC maximum, above the WhiteLevel. It decodes, reports how much
/// is clipped, and the blown region comes out white (no magenta: every channel at the clip).
@Test func overexposedFrameWithClippedHighlightsDecodes() throws {
    let (meta, img) = try decode("clipped.dng") { x, y in x >= 170 || (y < 40 && x >= 120) ? 16383 : nil }
    #expect(meta.clippedFraction > 0.3 && meta.clippedFraction < 0.45, "clipped \(meta.clippedFraction)")
    for (x, y) in [(200, 100), (250, 180), (140, 20)] {
        let p = (y * img.width + x) * 3
        let rgb = (0..<3).map { Double(img.pixels[p + $0]) / 65535 }
        #expect(rgb.min()! > 0.9, "(\(x), \(y)): \(rgb)")
        #expect(rgb.max()! - rgb.min()! < 0.03, "(\(x), \(y)) is tinted: \(rgb)")
    }
}

/// A normal frame reports (almost) nothing clipped.
@Test func frameWithoutHighlightsReportsNothingClipped() throws {
    let (meta, _) = try decode("plain.dng") { _, _ in nil }
    #expect(meta.clippedFraction < 0.001, "clipped \(meta.clippedFraction)")
}

/// Garbage: random samples over the whole range are refused, as are values over white spread over many codes in a
/// region, and a few values over white scattered with no spatial structure.
@Test(arguments: ["random", "spread-region", "scattered-values"])
func garbageOverTheWhiteLevelIsRefused(kind: String) throws {
    let code: @Sendable (Int, Int) -> UInt16? =
        switch kind {
        case "random": { x, y in UInt16(truncatingIfNeeded: hash(x, y)) }
        case "spread-region": { x, y in x >= 170 ? 15001 + UInt16(hash(x, y) % 1382) : nil }
        default: { x, y in hash(x, y) % 3 == 0 ? 16383 : nil }
        }
    #expect {
        _ = try decode("\(kind).dng", code: code)
    } throws: { error in
        guard let e = error as? RawDecodeError, case .samplesOverWhite = e.reason else { return false }
        return e.description.contains("garbage")
    }
}
