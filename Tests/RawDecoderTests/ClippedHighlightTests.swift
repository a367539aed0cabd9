import Foundation
import RawDecoder
import TestSupport
import Testing

/// A deterministic hash of (x, y), for noise the tests can repeat.
func hash(_ x: Int, _ y: Int) -> UInt64 {
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
    expectWhite(img, at: [(200, 100), (250, 180), (140, 20)])
}

/// `img` is white without a tint at each point (every channel over 0.9 of full scale, within 0.03 of each other).
private func expectWhite(_ img: LinearImage16, at points: [(Int, Int)]) {
    for (x, y) in points {
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

/// Garbage: random samples over the whole range are refused, and so are values over white scattered with no spatial
/// structure (a third of the photosites, each independent of its neighbours).
@Test(arguments: ["random", "scattered-values"])
func garbageOverTheWhiteLevelIsRefused(kind: String) throws {
    let code: @Sendable (Int, Int) -> UInt16? =
        switch kind {
        case "random": { x, y in UInt16(truncatingIfNeeded: hash(x, y)) }
        default: { x, y in hash(x, y) % 3 == 0 ? 16383 : nil }
        }
    #expect {
        _ = try decode("\(kind).dng", code: code)
    } throws: { error in
        guard let e = error as? RawDecodeError, case .samplesOverWhite = e.reason else { return false }
        return e.description.contains("garbage")
    }
}

/// Values over white spread over many codes, in one region: how spread they are says nothing (a camera may let a
/// clipped channel run on to the ADC's maximum with each photosite's read noise). They come in a region, so they are
/// clipped highlights, and the frame decodes.
@Test func valuesOverWhiteSpreadInARegionAreClippedHighlights() throws {
    let (meta, _) = try decode("spread-region.dng") { x, y in x >= 170 ? 15001 + UInt16(hash(x, y) % 1382) : nil }
    #expect(meta.clippedFraction > 0.3 && meta.clippedFraction < 0.36, "clipped \(meta.clippedFraction)")
}

/// Like a real overexposed Nikon D5000 frame (held out): more than half the frame at or above WhiteLevel, the two
/// greens pinned exactly at WhiteLevel, red and blue spread over the codes up to the ADC's maximum, and read noise
/// on every unclipped photosite. It decodes; the clipped share is told per channel.
@Test func aRealStyleOverexposedFrameDecodesWithItsClippingPerChannel() throws {
    let (meta, img) = try RealStyleOverexposure.decode()
    #expect(meta.clippedFraction > 0.55 && meta.clippedFraction < 0.7, "clipped \(meta.clippedFraction)")
    #expect(Set(meta.clippedByChannel.keys) == ["R", "G", "G2", "B"], "\(meta.clippedByChannel)")
    for (channel, f) in meta.clippedByChannel { #expect(f > 0.55 && f < 0.7, "\(channel): \(f)") }
    expectWhite(img, at: [(200, 100), (250, 180), (120, 20)])
}

/// The same frame's samples, shuffled: the same values, about the same share over white, and no structure. Refused.
@Test func theRealStyleFrameShuffledIsRefused() throws {
    #expect {
        _ = try RealStyleOverexposure.decode(shuffled: true)
    } throws: { error in
        guard let e = error as? RawDecodeError, case .samplesOverWhite = e.reason else { return false }
        return true
    }
}

/// A 256×192 RGGB DNG with WhiteLevel 3840 (a 12-bit ADC: maximum 4095), black 256: a grey ramp up to 0.95 of white
/// with read noise (σ ≈ 6 codes), blown from x = 96 on, where G and G2 sit at 3840 and R and B spread over 3900–4095.
enum RealStyleOverexposure {
    static func code(_ x: Int, _ y: Int) -> UInt16 {
        if x >= 96 {
            let green = (x + y) % 2 == 1
            return green ? 3840 : 3900 + UInt16(hash(x, y) % 196)
        }
        let v = 256 + Double(x) / 96 * 0.95 * (3840 - 256)
        // A sum of four uniforms: near-Gaussian read noise, σ ≈ 6.
        let noise = (0..<4).map { Double(hash(x &+ $0 &* 7919, y) % 21) - 10 }.reduce(0, +)
        return UInt16(max(0, min(3839, v + noise)))
    }

    static func decode(shuffled: Bool = false) throws -> (RawMetadata, LinearImage16) {
        var o = TestDNG.Options()
        o.white = 3840
        o.black = 256
        o.rawCode = { x, y in
            guard shuffled else { return code(x, y) }
            // Each position takes the value of a position drawn at random (fixed): the values and the share over
            // white stay, every neighbourhood is broken.
            let i = Int(hash(y, x) % UInt64(256 * 192))
            return code(i % 256, i / 256)
        }
        let dng = TestDNG.make(o) { _, _ in (0, 0, 0) }
        let dir = Repo.temporaryDirectory("rawdecoder-realstyle")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(shuffled ? "shuffled.dng" : "overexposed.dng")
        try Data(dng).write(to: url)
        return try LibRawDecoder.decode(url, options: RawDecodeOptions(workingSpace: .sRGB))
    }
}
