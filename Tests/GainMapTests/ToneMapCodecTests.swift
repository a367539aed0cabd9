import Findings
import Testing

@testable import GainMap

/// Hand-written `tmap` bodies (ISO/IEC 23008-12 AMD 1 ToneMapImage + ISO 21496-1 C.2.2), big-endian.
enum Vectors {
    /// One channel, use_base_colour_space, base headroom 0/1, alternate 13/4, min −1/2, max 7/2, gamma 1/1,
    /// offsets 1/64: 62 bytes.
    static let oneChannel: [UInt8] = [
        0x00,  // ToneMapImage version
        0x00, 0x00,  // minimum_version
        0x00, 0x00,  // writer_version
        0x40,  // flags: use_base_colour_space
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // base_hdr_headroom 0/1
        0x00, 0x00, 0x00, 0x0D, 0x00, 0x00, 0x00, 0x04,  // alternate_hdr_headroom 13/4
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x02,  // gain_map_min −1/2
        0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02,  // gain_map_max 7/2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,  // gamma 1/1
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40,  // base_offset 1/64
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40,  // alternate_offset 1/64
    ]

    /// Three channels (is_multichannel), not use_base_colour_space, base 1/3, alternate 5/2 (R, G, B differ): 142 bytes.
    static let threeChannels: [UInt8] = [
        0x00,  // version
        0x00, 0x00,  // minimum_version
        0x00, 0x00,  // writer_version
        0x80,  // flags: is_multichannel
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03,  // base_hdr_headroom 1/3
        0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x02,  // alternate_hdr_headroom 5/2
        // R
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // min 0/1
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,  // max 3/1
        0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x0B,  // gamma 10/11
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40,  // base_offset 1/64
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x20,  // alternate_offset 1/32
        // G
        0xFF, 0xFF, 0xFF, 0xFE, 0x00, 0x00, 0x00, 0x04,  // min −2/4
        0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,  // max 256/256
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,  // gamma 2/1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // base_offset 0/1
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x64,  // alternate_offset −1/100
        // B
        0x80, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,  // min Int32.min/UInt32.max
        0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // max Int32.max/UInt32.max
        0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00,  // gamma UInt32.max/2^31
        0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x03, 0xE8,  // base_offset 5/1000
        0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x03, 0xE8,  // alternate_offset 7/1000
    ]

    static func patched(_ v: [UInt8], at offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var out = v
        out.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        return out
    }
}

@Test func vectorsHaveTheSpecifiedLengths() {
    #expect(Vectors.oneChannel.count == 62)
    #expect(Vectors.threeChannels.count == 142)
}

@Test func decodesTheOneChannelVector() throws {
    let d = ToneMapImage.decode(Vectors.oneChannel)
    #expect(d.findings.isEmpty, "\(d.findings)")
    let m = try #require(d.usableMetadata)
    #expect(m.minimumVersion == 0 && m.writerVersion == 0)
    #expect(m.useBaseColorSpace && !m.isMultichannel && m.reservedFlags == 0)
    #expect(m.baseHdrHeadroom == UFraction(0, 1))
    #expect(m.alternateHdrHeadroom == UFraction(13, 4))
    #expect(m.channels.count == 1)
    let c = m.channels[0]
    #expect(c.min == Fraction(-1, 2))
    #expect(c.max == Fraction(7, 2))
    #expect(c.gamma == UFraction(1, 1))
    #expect(c.baseOffset == Fraction(1, 64))
    #expect(c.alternateOffset == Fraction(1, 64))
    // A one-channel map applies channel 0 everywhere.
    #expect(m.channel(2) == c)
}

@Test func decodesTheThreeChannelVector() throws {
    let d = ToneMapImage.decode(Vectors.threeChannels)
    #expect(d.findings.isEmpty, "\(d.findings)")
    let m = try #require(d.usableMetadata)
    #expect(m.isMultichannel && !m.useBaseColorSpace)
    #expect(m.baseHdrHeadroom == UFraction(1, 3) && m.alternateHdrHeadroom == UFraction(5, 2))
    #expect(
        m.channels == [
            GainMapChannel(
                min: Fraction(0, 1), max: Fraction(3, 1), gamma: UFraction(10, 11), baseOffset: Fraction(1, 64),
                alternateOffset: Fraction(1, 32)),
            GainMapChannel(
                min: Fraction(-2, 4), max: Fraction(256, 256), gamma: UFraction(2, 1), baseOffset: Fraction(0, 1),
                alternateOffset: Fraction(-1, 100)),
            GainMapChannel(
                min: Fraction(Int32.min, UInt32.max), max: Fraction(Int32.max, UInt32.max),
                gamma: UFraction(UInt32.max, 1 << 31), baseOffset: Fraction(5, 1000), alternateOffset: Fraction(7, 1000)
            ),
        ])
}

@Test func encodesBackToTheSameBytes() throws {
    for v in [Vectors.oneChannel, Vectors.threeChannels] {
        let m = try #require(ToneMapImage.decode(v).usableMetadata)
        #expect(try ToneMapImage(metadata: m).encoded() == v)
        #expect(m.encodedStandardLayout() == Array(v.dropFirst()))
    }
}

@Test func encodesAModelBuiltByHand() throws {
    let m = GainMapMetadata(
        baseHdrHeadroom: UFraction(0, 1), alternateHdrHeadroom: UFraction(13, 4),
        channels: [
            GainMapChannel(
                min: Fraction(-1, 2), max: Fraction(7, 2), gamma: UFraction(1, 1), baseOffset: Fraction(1, 64),
                alternateOffset: Fraction(1, 64))
        ])
    #expect(try ToneMapImage(metadata: m).encoded() == Vectors.oneChannel)
}

func codes(_ bytes: [UInt8]) -> [String] { ToneMapImage.decode(bytes).findings.map(\.code.rawValue) }

@Test func gammaZeroIsAnError() {
    let v = Vectors.patched(Vectors.oneChannel, at: 22 + 16, [0, 0, 0, 0])
    let d = ToneMapImage.decode(v)
    #expect(d.findings.map(\.code) == [.gainmapTmapGammaZero])
    #expect(d.findings.first?.offset == 38)
    #expect(d.usableMetadata == nil)
}

@Test func zeroDenominatorsAreErrorsAtTheirOffsets() {
    var v = Vectors.patched(Vectors.threeChannels, at: 10, [0, 0, 0, 0])  // base headroom den
    v = Vectors.patched(v, at: 62 + 36, [0, 0, 0, 0])  // G alternate_offset den
    let d = ToneMapImage.decode(v)
    #expect(d.findings.map(\.code) == [.gainmapTmapDenominatorZero, .gainmapTmapDenominatorZero])
    #expect(d.findings.map(\.offset) == [10, 98])
}

@Test func minAboveMaxIsFoundByCrossMultiplication() {
    // min 7/2 vs max 3/1: 7·1 > 3·2. Doubles would agree, but also check a case only exact math gets right.
    var v = Vectors.patched(Vectors.oneChannel, at: 22, [0, 0, 0, 7, 0, 0, 0, 2])
    v = Vectors.patched(v, at: 30, [0, 0, 0, 3, 0, 0, 0, 1])
    #expect(codes(v) == ["gainmap.tmap.min-exceeds-max"])
    // min = max exactly (2147483647/4294967295 vs 1/2 is smaller): min −1/2 ≤ max −2/4 is equal → fine.
    let eq = Vectors.patched(Vectors.oneChannel, at: 30, [0xFF, 0xFF, 0xFF, 0xFE, 0, 0, 0, 4])
    #expect(codes(eq).isEmpty)
    // Extreme values must not overflow: min Int32.max/1 > max Int32.max/UInt32.max.
    var big = Vectors.patched(Vectors.oneChannel, at: 22, [0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1])
    big = Vectors.patched(big, at: 30, [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    #expect(codes(big) == ["gainmap.tmap.min-exceeds-max"])
}

@Test func versionsAreChecked() {
    #expect(codes(Vectors.patched(Vectors.oneChannel, at: 0, [99])) == ["gainmap.tmap.version-unsupported"])
    #expect(ToneMapImage.decode(Vectors.patched(Vectors.oneChannel, at: 0, [1])).usableMetadata == nil)
    // minimum_version 1 (> supported 0); writer_version 1 too so only one finding.
    #expect(
        codes(Vectors.patched(Vectors.oneChannel, at: 1, [0, 1, 0, 1])) == ["gainmap.tmap.minimum-version-unsupported"])
    // writer_version below minimum_version.
    #expect(
        codes(Vectors.patched(Vectors.oneChannel, at: 1, [0, 2, 0, 1])) == [
            "gainmap.tmap.minimum-version-unsupported", "gainmap.tmap.writer-version-below-minimum",
        ])
}

@Test func lengthRules() {
    // Truncated anywhere: one length finding, never a crash.
    for n in 1..<62 {
        let d = ToneMapImage.decode(Array(Vectors.oneChannel.prefix(n)))
        #expect(d.findings.map(\.code) == [.gainmapTmapLength], "prefix \(n)")
        #expect(d.usableMetadata == nil)
    }
    #expect(codes([]) == ["gainmap.tmap.length"])
    // Extra bytes with writer_version 0: invalid.
    let extra = Vectors.oneChannel + [1, 2, 3]
    #expect(codes(extra) == ["gainmap.tmap.extra-bytes"])
    #expect(ToneMapImage.decode(extra).findings.first?.offset == 62)
    // Extra bytes with writer_version > supported: allowed.
    let newer = Vectors.patched(Vectors.oneChannel, at: 3, [0, 7]) + [1, 2, 3]
    #expect(codes(newer).isEmpty)
    #expect(ToneMapImage.decode(newer).usableMetadata?.writerVersion == 7)
}

@Test func nonstandardFlagsAreReadableButReported() throws {
    // 0x04 (libultrahdr backwardDirection) and a reserved bit 0x01.
    let v = Vectors.patched(Vectors.oneChannel, at: 5, [0x45])
    let d = ToneMapImage.decode(v)
    #expect(d.findings.map(\.code) == [.gainmapTmapNonstandardFlags])
    #expect(d.findings[0].severity == .warning)
    #expect(d.findings[0].message.contains("0x04") && d.findings[0].message.contains("0x1"))
    #expect(d.usableMetadata?.reservedFlags == 0x05)
    // The writer refuses what the reader flags.
    let m = try #require(d.image?.metadata)
    #expect(throws: GainMapError.self) { try ToneMapImage(metadata: m).encoded() }
}

@Test func commonDenominatorFormIsParsedAndReported() throws {
    // libultrahdr draft form, flags 0x40 | 0x08, one channel, common denominator 4: 38 bytes.
    let v: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x48,
        0x00, 0x00, 0x00, 0x04,  // common denominator
        0x00, 0x00, 0x00, 0x00,  // base headroom 0
        0x00, 0x00, 0x00, 0x0D,  // alternate headroom 13/4
        0xFF, 0xFF, 0xFF, 0xFE,  // min −2/4
        0x00, 0x00, 0x00, 0x0E,  // max 14/4
        0x00, 0x00, 0x00, 0x04,  // gamma 4/4
        0x00, 0x00, 0x00, 0x00,  // base offset 0/4
        0x00, 0x00, 0x00, 0x00,  // alternate offset 0/4
    ]
    #expect(v.count == 38)
    let d = ToneMapImage.decode(v)
    #expect(d.image?.layout == .commonDenominator)
    #expect(Set(d.findings.map(\.code)) == [.gainmapTmapNonstandardFlags, .gainmapTmapCommonDenominator])
    #expect(d.findings.allSatisfy { $0.severity == .warning })
    let m = try #require(d.usableMetadata)
    #expect(m.alternateHdrHeadroom == UFraction(13, 4))
    #expect(m.channels[0].min.doubleValue == -0.5 && m.channels[0].max.doubleValue == 3.5)
    #expect(m.channels[0].gamma.doubleValue == 1)
    // And its own length rule.
    #expect(ToneMapImage.decode(Array(v.prefix(37))).findings.map(\.code).contains(.gainmapTmapLength))
}

@Test func everyGainMapFindingCodeIsUniqueAndNamespaced() {
    let raw = FindingCode.allCases.filter { $0.topic == .gainMap }.map(\.rawValue)
    #expect(Set(raw).count == raw.count)
    #expect(raw.allSatisfy { $0.hasPrefix("gainmap.") })
    #expect(FindingCode.gainmapTmapGammaZero.rawValue == "gainmap.tmap.gamma-zero")
    #expect(FindingCode.gainmapHeadroomMismatch.rawValue == "gainmap.headroom-mismatch")
}

@Test func fractionsApproximateAndStayInRange() throws {
    let f = try #require(Fraction(approximating: -0.5))
    #expect(f == Fraction(-1, 2))
    let third = try #require(UFraction(approximating: 1.0 / 3.0))
    #expect(third == UFraction(1, 3))
    let pi = try #require(Fraction(approximating: Double.pi))
    #expect(abs(pi.doubleValue - Double.pi) < 1e-9)
    let l = try #require(UFraction(approximating: 2.787260))
    #expect(abs(l.doubleValue - 2.787260) < 1e-9)
    #expect(Fraction(approximating: .nan) == nil)
    #expect(UFraction(approximating: -1) == nil)
    #expect(Fraction(approximating: 3e9) == nil)
    #expect(Fraction(1, 0).doubleValue.isInfinite)
}
