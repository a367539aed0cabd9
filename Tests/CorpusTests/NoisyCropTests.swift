import Foundation
import RawDecoder
import Testing

@testable import CorpusKit

// Noisy crops of real RAWs (NoisyCrop.swift): the noise added is the model's, measured on what LibRaw reads back, and
// the source's tags survive.

/// Horizontal bands of flat grey, one per level (linear scene values), each `bandRows` rows high.
private struct Levels: SceneSource {
    let levels: [Double]
    let bandRows: Int
    let displayWidth: Int
    var displayHeight: Int { levels.count * bandRows }
    func pixel(x: Int, y: Int) -> RGB { .grey(levels[y / bandRows]) }
}

/// The centred crop of a RAW's unpacked samples, as `readback-ladder noisy` takes it.
private func samples(_ bytes: [UInt8], _ w: Int, _ h: Int) throws -> (NoisyCrop.Samples, RawSamples) {
    let decoder = LibRawDecoder()
    _ = try decoder.open(bytes: bytes, name: "test.dng")
    let s = try decoder.visibleSamples(width: w, height: h)
    return (
        NoisyCrop.Samples(
            width: s.width, height: s.height, channels: s.channels, values: s.samples, black: s.black, white: s.white),
        s
    )
}

/// A clean 16-bit Bayer DNG of flat bands made noisy at 16× its ISO: in the noisy file, as LibRaw reads it, each band's
/// green sites have the clean band's mean and the variance of the recipe (shot noise mean/g plus read noise (σ_r/g)²
/// plus rounding), within a few percent; the crop keeps its CFA phase, size, camera tags and gets the new ISO.
@Test func noisyCropAddsTheKnownNoiseAndKeepsTheSourceTags() throws {
    let levels = [0.0, 0.1, 0.4, 1.6, 3.2]
    let rows = 64
    let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 16, seed: 5)
    let source = DNGWriter.write(scene: Levels(levels: levels, bandRows: rows, displayWidth: 256), spec: spec)
    let (crop, raw) = try samples(source, 4096, 4096)
    #expect(raw.width == 256 && raw.height == levels.count * rows && raw.channels == 1 && raw.x == 0 && raw.y == 0)
    #expect(raw.black == Int(spec.blackLevel) && raw.white == Int(spec.whiteLevel))
    let iso = Int(CaptureMetadata.standard.iso) * 16
    let (noisy, recipe) = try NoisyCrop.dng(original: source, crop: crop, iso: iso, seed: 9)
    #expect(recipe.k == 16 && recipe.scale == 1 && recipe.black == raw.black && recipe.white == raw.white)
    #expect(try NoisyCrop.dng(original: source, crop: crop, iso: iso, seed: 9).bytes == noisy, "deterministic")
    let (_, back) = try samples(noisy, 4096, 4096)
    #expect(back.width == raw.width && back.height == raw.height && back.black == raw.black)
    // Per band, green sites (RGGB: x + y odd), away from the band's edges.
    for (b, _) in levels.enumerated() {
        var (sum, sq, cleanSum, n) = (0.0, 0.0, 0.0, 0.0)
        for y in (b * rows + 2)..<((b + 1) * rows - 2) {
            for x in 0..<raw.width where (x + y) % 2 == 1 {
                let d = Double(back.samples[y * raw.width + x]) - Double(raw.black)
                sum += d
                sq += d * d
                cleanSum += Double(raw.samples[y * raw.width + x]) - Double(raw.black)
                n += 1
            }
        }
        let mean = sum / n
        let variance = sq / n - mean * mean
        let clean = cleanSum / n
        let expected = pow(recipe.sigma(signal: clean), 2) + 1.0 / 12
        #expect(abs(mean - clean) <= 4 * (variance / n).squareRoot() + 0.5, "band \(b): mean \(mean), clean \(clean)")
        #expect(abs(variance - expected) <= 0.08 * expected, "band \(b): variance \(variance), model \(expected)")
    }
    // The source's tags, the crop's size and the new ISO.
    let tree = try #require(TIFFReader(bytes: noisy)?.readTree())
    let original = try #require(TIFFReader(bytes: source)?.readTree())
    #expect(tree[271] == original[271] && tree[272] == original[272] && tree[50721] == original[50721])
    #expect(tree[50728] == original[50728] && tree[33422] != nil && tree[330] == nil)
    #expect(tree[256] == .longs([UInt32(raw.width)]) && tree[259] == .shorts([1]))
    guard case .ifd(let exif)? = tree[34665] else {
        Issue.record("no Exif IFD")
        return
    }
    #expect(exif[34855] == .shorts([UInt16(iso)]))
    // An ISO below the file's is refused.
    #expect(throws: NoisyCrop.Failure.self) { try NoisyCrop.dng(original: source, crop: crop, iso: 100) }
}
