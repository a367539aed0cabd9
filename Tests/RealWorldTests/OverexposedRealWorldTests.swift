import Converter
import CorpusKit
import Foundation
import HeifCodec
import RawDecoder
import TestSupport
import Testing

/// A real frame overexposed, made at test time from the corpus's Nikon D5000 DNG (hdrmerge sample 1): its raw samples
/// scaled up until more than half of them reach WhiteLevel (3840 of the 12-bit ADC's 4095), as a longer exposure of
/// the same scene would record them. Two CFA positions are pinned at WhiteLevel and the other two run on to the ADC's
/// maximum, as in the held-out overexposed frame of the same bracket; the clipped regions' shapes, the texture and
/// the noise at their edges are the real scene's and the real sensor's, not a drawing's.
enum RealOverexposure {
    /// The source: the corpus's D5000 DNG with the most clipped highlights of its own.
    static func source() throws -> URL {
        let files = try RealWorldCorpus.files(["dng"])
        return try #require(files.first { $0.lastPathComponent == "hdrmerge_NikonD5000_sample1.dng" })
    }

    /// The overexposed DNG (a 1536×1024 centre crop) and the share of its samples at or above white; `shuffled`
    /// moves every sample to a position drawn at random, which keeps the values and breaks every region.
    static func dng(shuffled: Bool = false) throws -> (bytes: [UInt8], clipped: Double) {
        let bytes = Array(try Data(contentsOf: try source()))
        let decoder = LibRawDecoder()
        _ = try decoder.open(bytes: bytes, name: "d5000.dng")
        let s = try decoder.visibleSamples(width: 1536, height: 1024)
        let adcMax = 4095
        // The gain that takes the median sample 10 % past white: more than half the frame clipped.
        let median = Int(s.samples.sorted()[s.samples.count / 2])
        let gain = 1.1 * Double(s.white - s.black) / Double(max(1, median - s.black))
        var values = s.samples.enumerated().map { i, v -> UInt16 in
            let (x, y) = (i % s.width, i / s.width)
            let code = Double(s.black) + Double(Int(v) - s.black) * gain
            let pinned = (x + y) % 2 == 1
            return UInt16(min(Double(pinned ? s.white : adcMax), max(0, code.rounded())))
        }
        if shuffled {
            var rng = SplitMix64(seed: 7)
            let n = values.count
            values = (0..<n).map { _ in values[Int(rng.unit() * Double(n)) % n] }
        }
        let clipped = Double(values.filter { Int($0) >= s.white }.count) / Double(values.count)
        let written = NoisyCrop.Samples(
            width: s.width, height: s.height, channels: s.channels, values: values, black: s.black, white: s.white)
        return (try NoisyCrop.dng(original: bytes, samples: written), clipped)
    }
}

/// The real frame overexposed converts: LibRaw decodes it, the clipped share is reported per channel, and the blown
/// highlights come out white, untinted, as a real camera's overexposed frame must.
@Test func aRealFrameOverexposedPastHalfConverts() throws {
    let (dng, clipped) = try RealOverexposure.dng()
    #expect(clipped > 0.5, "only \(clipped) clipped: the test would not test what it says")
    let dir = Repo.temporaryDirectory("real-overexposed")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("d5000-overexposed.dng")
    try Data(dng).write(to: url)
    let out = try HEICConverter.convert(source: url, decoders: .inProcess)
    let reported = try #require(out.result.clippedFraction)
    #expect(reported > 0.5, "clipped \(reported)")
    let byChannel = try #require(out.result.clippedByChannel)
    #expect(byChannel.count == 4 && byChannel.values.allSatisfy { $0 > 0.3 }, "\(byChannel)")
    // The brightest decile of the output is white and untinted.
    let d = try HeifDecoder.decodePrimary(out.bytes)
    var white = 0
    var tinted = 0
    for i in stride(from: 0, to: d.width * d.height, by: 7) {
        let rgb = (0..<3).map { Int(d.samples[i * 3 + $0]) }
        guard rgb.min()! >= 250 else { continue }
        white += 1
        if rgb.max()! - rgb.min()! > 5 { tinted += 1 }
    }
    #expect(white > d.width * d.height / 7 / 4, "\(white) white samples")
    #expect(tinted == 0, "\(tinted) of \(white) near-white samples are tinted")
}

/// The same samples shuffled: as much over white, no structure. Refused as garbage.
@Test func theRealFrameOverexposedAndShuffledIsRefused() throws {
    let (dng, clipped) = try RealOverexposure.dng(shuffled: true)
    #expect(clipped > 0.5, "only \(clipped) clipped")
    let dir = Repo.temporaryDirectory("real-overexposed-shuffled")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("shuffled.dng")
    try Data(dng).write(to: url)
    #expect {
        _ = try HEICConverter.convert(source: url, decoders: .inProcess)
    } throws: { error in
        "\(error)".contains("garbage")
    }
}
