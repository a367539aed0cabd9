import Foundation
import HEIF
import HeifCodec
import Testing

private func gradientRGB8(_ w: Int, _ h: Int) -> [UInt8] {
    var s = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 3
            s[i] = UInt8(x * 255 / max(1, w - 1))
            s[i + 1] = UInt8(y * 255 / max(1, h - 1))
            s[i + 2] = 128
        }
    }
    return s
}

private func meanAbs(_ a: [UInt16], _ b: [UInt16]) -> Double {
    var t = 0.0
    for i in 0..<min(a.count, b.count) { t += abs(Double(a[i]) - Double(b[i])) }
    return t / Double(max(1, min(a.count, b.count)))
}

@Test func heifRoundTrip8BitKeepsNclxAndPixels() throws {
    let (w, h) = (160, 96)
    let src = gradientRGB8(w, h)
    let bytes = try HeifEncoder.encode(
        .rgb8(width: w, height: h, samples: src), settings: HeifEncodeSettings(quality: 90))
    #expect(bytes.count > 100)
    let d = try HeifDecoder.decodePrimary(bytes, format: .rgb8)
    #expect(d.width == w && d.height == h && d.channels == 3)
    #expect(d.nclx == .displayP3)
    let err = meanAbs(d.samples, src.map(UInt16.init))
    #expect(err < 2.0, "mean abs error \(err)")
}

@Test func heifRoundTrip10Bit444() throws {
    let (w, h) = (128, 64)
    var src = [UInt16](repeating: 0, count: w * h * 3)
    for i in 0..<src.count { src[i] = UInt16((i * 7) % 1024 / 4 + (i % 3) * 200) }
    for y in 0..<h {
        for x in 0..<w { for c in 0..<3 { src[(y * w + x) * 3 + c] = UInt16((x * 8 + c * 100 + y * 4) % 1024) } }
    }
    let s = HeifEncodeSettings(quality: 95, bitDepth: 10, chroma: .yuv444, nclx: .sRGB)
    let bytes = try HeifEncoder.encode(.rgb16(width: w, height: h, bitDepth: 10, samples: src), settings: s)
    let d = try HeifDecoder.decodePrimary(bytes, format: .rgbNative)
    #expect(d.codedBitDepth == 10 && d.bitDepth == 10)
    #expect(d.nclx == .sRGB)
    let err = meanAbs(d.samples, src)
    #expect(err < 12, "mean abs error \(err) (10-bit codes)")
}

@Test func heifMonochromeSmallOddSizeIsNotAGridAndDecodes() throws {
    let (w, h) = (33, 21)
    var src = [UInt8](repeating: 0, count: w * h)
    for i in 0..<src.count { src[i] = UInt8(i % 200) }
    let bytes = try HeifEncoder.encode(
        .mono8(width: w, height: h, samples: src), settings: HeifEncodeSettings(quality: 100, nclx: .gainMap))
    let d = try HeifDecoder.decodePrimary(bytes, format: .mono)
    #expect(d.width == w && d.height == h && d.channels == 1)
    // No 'grid' item type in the file: the macOS workaround is off.
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(!text.contains("grid"))
}

@Test func heifDecodeOfGarbageIsATypedError() {
    #expect(throws: HeifError.self) { try HeifDecoder.decodePrimary([0, 1, 2, 3, 4, 5, 6, 7], format: .rgb8) }
    #expect(throws: HeifError.self) { try HeifDecoder.decodePrimarySize([0, 1, 2, 3, 4, 5, 6, 7]) }
    #expect(throws: HeifError.self) { try HeifDecoder.decodePrimary([0, 1, 2, 3, 4, 5, 6, 7], format: .firstPlane) }
}

/// The audit's cheap decode (size only, decoder's own layout) agrees with the full RGB decode, and fails where it
/// fails: on a file whose coded data is cut off.
@Test func heifDecodeSizeAgreesWithFullDecodeAndFailsOnTruncatedData() throws {
    let (w, h) = (160, 96)
    for (px, depth) in [
        (HeifPixels.rgb8(width: w, height: h, samples: gradientRGB8(w, h)), 8),
        (.rgb16(width: w, height: h, bitDepth: 10, samples: gradientRGB8(w, h).map { UInt16($0) * 4 }), 10),
    ] {
        let bytes = try HeifEncoder.encode(px, settings: HeifEncodeSettings(quality: 80, bitDepth: depth))
        let full = try HeifDecoder.decodePrimary(bytes, format: .rgbNative)
        let size = try HeifDecoder.decodePrimarySize(bytes)
        let same = size.width == full.width && size.height == full.height && size.codedBitDepth == full.codedBitDepth
        #expect(same, "\(size) vs \(full.width)×\(full.height) \(full.codedBitDepth)-bit")
        // The gradient spans nearly the whole range; a flat picture would be near 0.
        #expect((size.firstPlaneSpread ?? 0) > 0.5, "\(size)")
        #expect(size.width == w && size.height == h && size.codedBitDepth == depth)
        // Cut inside the coded image (mdat is last): the full decode and the size decode both refuse.
        let cut = Array(bytes.prefix(bytes.count - 200))
        #expect(throws: HeifError.self) { try HeifDecoder.decodePrimary(cut, format: .rgb8) }
        #expect(throws: HeifError.self) { try HeifDecoder.decodePrimarySize(cut) }
    }
}

/// `.firstPlane` returns the decoder's Y plane as coded: for a full-range monochrome image exactly what `.mono` and
/// the first channel of `.rgb8` give, at the stream's depth.
@Test func heifFirstPlaneOfMonochromeEqualsMonoDecode() throws {
    let (w, h) = (64, 48)
    var src = [UInt8](repeating: 0, count: w * h)
    for i in 0..<src.count { src[i] = UInt8((i * 5) % 251) }
    let bytes = try HeifEncoder.encode(
        .mono8(width: w, height: h, samples: src), settings: HeifEncodeSettings(quality: 90, nclx: .gainMap))
    let first = try HeifDecoder.decodePrimary(bytes, format: .firstPlane)
    let mono = try HeifDecoder.decodePrimary(bytes, format: .mono)
    let rgb = try HeifDecoder.decodePrimary(bytes, format: .rgb8)
    #expect(first.width == w && first.height == h && first.channels == 1 && first.bitDepth == 8)
    #expect(first.samples == mono.samples)
    #expect(first.samples == stride(from: 0, to: rgb.samples.count, by: 3).map { rgb.samples[$0] })
    #expect(Set(first.samples).count > 100, "the plane carries the picture, not a constant")
}

private struct TestFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// entropy_coding_sync_enabled_flag (wavefront rows) of the PPS in the primary item's `hvcC` (H.265 §7.3.2.3.1).
private func codedWithWavefrontRows(_ heif: [UInt8]) throws -> Bool {
    let f = HEIFFile(bytes: heif)
    let id = try #require(f.primaryItemID)
    guard case .hvcC(let c)? = f.property("hvcC", of: id) else { throw TestFailure("no hvcC") }
    let pps = try #require(c.arrays.first { $0.nalType == 34 }?.units.first)
    // RBSP: after the 2-byte NAL header, without the emulation-prevention bytes (00 00 03).
    var rbsp: [UInt8] = []
    var zeros = 0
    for b in pps.dropFirst(2) {
        if zeros >= 2 && b == 3 {
            zeros = 0
            continue
        }
        rbsp.append(b)
        zeros = b == 0 ? zeros + 1 : 0
    }
    var bit = 0
    func u(_ n: Int) throws -> Int {
        var v = 0
        for _ in 0..<n {
            guard bit >> 3 < rbsp.count else { throw TestFailure("PPS ends early") }
            v = v << 1 | Int(rbsp[bit >> 3] >> UInt8(7 - bit & 7) & 1)
            bit += 1
        }
        return v
    }
    func ue() throws -> Int {  // ue(v) and se(v) have the same length
        var zeros = 0
        while try u(1) == 0 { zeros += 1 }
        return (1 << zeros) - 1 + (try u(zeros))
    }
    _ = try (ue(), ue())  // pps_pic_parameter_set_id, pps_seq_parameter_set_id
    _ = try (u(1), u(1), u(3), u(1), u(1))  // dependent slices, output flag, extra bits, sign hiding, cabac init
    _ = try (ue(), ue(), ue())  // num_ref_idx_l0/l1_default_active_minus1, init_qp_minus26
    _ = try (u(1), u(1))  // constrained_intra_pred, transform_skip_enabled
    if try u(1) == 1 { _ = try ue() }  // cu_qp_delta_enabled → diff_cu_qp_delta_depth
    _ = try (ue(), ue())  // pps_cb_qp_offset, pps_cr_qp_offset
    _ = try (u(1), u(1), u(1), u(1), u(1))  // chroma qp offsets, weighted pred/bipred, transquant bypass, tiles
    return try u(1) == 1
}

/// One tile encoder per core runs x265 without a worker pool, hence without wavefront rows: a one-thread pool stalls
/// now and then in x265's 250 ms timed wait (HeifEncoder.encode). The default (a pool per core) keeps wavefront rows,
/// which shows the flag is read, not assumed.
@Test func heifOneThreadEncoderCodesWithoutWavefrontRows() throws {
    let (w, h) = (256, 256)
    let px = HeifPixels.rgb8(width: w, height: h, samples: gradientRGB8(w, h))
    let s = HeifEncodeSettings(quality: 65, preset: "ultrafast")
    #expect(try codedWithWavefrontRows(HeifEncoder.encode(px, settings: s, threads: 1)) == false)
    #expect(try codedWithWavefrontRows(HeifEncoder.encode(px, settings: s, threads: nil)) == true)
    #expect(try codedWithWavefrontRows(HeifEncoder.encode(px, settings: s, threads: 2)) == true)
}

/// The block means of a full 8-bit RGB decode, as `decodePrimaryReduced` defines them.
private func blockMeans(_ d: HeifDecodedImage, factor f: Int) -> [UInt16] {
    let (rw, rh) = (d.width / f, d.height / f)
    var out = [UInt16](repeating: 0, count: rw * rh * 3)
    for ry in 0..<rh {
        for rx in 0..<rw {
            for c in 0..<3 {
                var sum = 0
                for y in (ry * f)..<(ry * f + f) {
                    for x in (rx * f)..<(rx * f + f) { sum += Int(d.samples[(y * d.width + x) * 3 + c]) }
                }
                out[(ry * rw + rx) * 3 + c] = UInt16((sum + f * f / 2) / (f * f))
            }
        }
    }
    return out
}

/// The reduced decode takes libheif's native planar RGB for 8-bit colour and the interleaved conversion otherwise;
/// either way it is the block means of the full RGB decode, sample for sample (odd sizes, several bands).
@Test(arguments: ["8-bit 4:2:0", "10-bit 4:4:4", "8-bit monochrome"])
func reducedDecodeIsTheBlockMeansOfTheFullDecode(_ kind: String) throws {
    let (w, h) = (203, 131)
    let bytes: [UInt8]
    switch kind {
    case "8-bit 4:2:0":
        bytes = try HeifEncoder.encode(
            .rgb8(width: w + 1, height: h + 1, samples: gradientRGB8(w + 1, h + 1)),
            settings: HeifEncodeSettings(quality: 60))
    case "10-bit 4:4:4":
        var src = [UInt16](repeating: 0, count: w * h * 3)
        for i in 0..<src.count { src[i] = UInt16((i * 37) % 1024) }
        bytes = try HeifEncoder.encode(
            .rgb16(width: w, height: h, bitDepth: 10, samples: src),
            settings: HeifEncodeSettings(quality: 70, bitDepth: 10, chroma: .yuv444, nclx: .sRGB))
    default:
        var src = [UInt8](repeating: 0, count: 200 * 130)
        for i in 0..<src.count { src[i] = UInt8((i * 13) % 251) }
        bytes = try HeifEncoder.encode(
            .mono8(width: 200, height: 130, samples: src), settings: HeifEncodeSettings(quality: 80, nclx: .gainMap))
    }
    let full = try HeifDecoder.decodePrimary(bytes, format: .rgb8)
    for minSide in [40, 64, 1000] {
        let r = try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide)
        let f = max(1, max(full.width, full.height) / minSide)
        #expect(r.size.width == full.width && r.size.height == full.height)
        #expect(r.image.width == full.width / f && r.image.height == full.height / f)
        let want = blockMeans(full, factor: f)
        let differing = zip(r.image.samples, want).filter { $0 != $1 }.count
        #expect(r.image.samples.count == want.count && differing == 0, "\(kind), factor \(f): \(differing) differ")
    }
}

/// 16×16 coding trees where HEVC allows them: a picture larger than level 4.1 holds (2,228,224 luma samples, or a
/// side over 4222) is coded with 32×32 trees, which x265 would otherwise refuse; a smaller one keeps the 16 asked for.
@Test(arguments: [(1024, 1024, 16), (2048, 1024, 16), (1500, 1500, 32), (4800, 256, 32)])
func heifCodingTreesOf16AreRaisedWhereTheLevelForbidsThem(width: Int, height: Int, trees: Int) throws {
    var s = HeifEncodeSettings(quality: 50, preset: "ultrafast", x265: ["ctu": "16"])
    let px = (0..<(width * height * 3)).map { UInt8(($0 / 3 % width + $0 / (3 * width)) % 256) }
    let f = HEIFFile(bytes: try HeifEncoder.encode(.rgb8(width: width, height: height, samples: px), settings: s))
    var config: HEVCConfig?
    if case .hvcC(let c)? = f.property("hvcC", of: try #require(f.primaryItemID)) { config = c }
    #expect(HEVCPictureSize(try #require(config))?.codingTreeBlockSize == trees)
    s.x265 = ["ctu": "64"]
    #expect(s.x265Options(width: width, height: height) == ["ctu": "64"], "only a tree size under 32 is raised")
}
