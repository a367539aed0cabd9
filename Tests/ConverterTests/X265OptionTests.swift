import HeifCodec
import Testing

/// A noisy test picture: a gradient plus deterministic pseudo-random grain (x265's options act on texture).
private func grainyRGB8(_ w: Int, _ h: Int) -> [UInt8] {
    var s = [UInt8](repeating: 0, count: w * h * 3)
    var state: UInt32 = 12345
    for i in 0..<(w * h * 3) {
        state = state &* 1_664_525 &+ 1_013_904_223
        let grain = Int(state >> 27) - 16
        s[i] = UInt8(max(0, min(255, (i / 3 % w) * 200 / w + 30 + grain)))
    }
    return s
}

/// `HeifEncodeSettings.x265` reaches x265: an option that matters for a still (aq-strength) changes the stream, an
/// option x265 does not know is ignored by libheif 1.15 without an error (docs/platform.md) and changes nothing, and
/// a malformed name is refused before libheif sees it.
@Test func x265PassThroughChangesTheStreamAndUnknownNamesDoNot() throws {
    let px = HeifPixels.rgb8(width: 128, height: 96, samples: grainyRGB8(128, 96))
    func encode(_ x: [String: String]) throws -> [UInt8] {
        try HeifEncoder.encode(px, settings: HeifEncodeSettings(quality: 60, preset: "ultrafast", x265: x))
    }
    let plain = try encode([:])
    #expect(try encode(["aq-strength": "1.5"]) != plain)
    #expect(try encode(["no-such-x265-option": "3"]) == plain)
    #expect(throws: HeifError.self) { try encode(["bad name": "1"]) }
}
