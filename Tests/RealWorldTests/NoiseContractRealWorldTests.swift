import Converter
import CorpusKit
import Fidelity
import Foundation
import RawDecoder
import TestSupport
import Testing

/// The default's fidelity contract on real sensor data: the centred 1024×768 crop of each real camera DNG's raw samples
/// made noisy at ISO 3200 and 12800 (CorpusKit `NoisyCrop`, the recipe and seed of `readback-ladder noisy`, so the crops
/// are the ones docs/quality-ladder.md measures), converted by `readback convert`'s defaults, keeps SSIM-Y at half size
/// of at least 0.975 (mean) and 0.95 (every 64×64 block) against the archival target's conversion of the same crop.
/// The default codes these frames at the noise step's quality; balanced's scaling lists take it one CRF step finer
/// (q50), where the step's own q47 with the lists loses the Canon 6D's crops (0.973 at ISO 3200).
@Test(arguments: [
    "photoprism_canon_eos_6d.dng", "tinydng_Canon550D_MagicLantern_colorchart.dng",
    "dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng", "hdrmerge_NikonD5000_sample1.dng",
    "hdrmerge_NikonD5000_sample2.dng",
])
func noisyCropsOfRealDNGsKeepTheFidelityFloorAtTheDefault(name: String) throws {
    let source = try RealWorldCorpus.root().appendingPathComponent("raw/\(name)")
    let bytes = Array(try Data(contentsOf: source))
    let decoder = LibRawDecoder()
    _ = try decoder.open(bytes: bytes, name: name)
    let s = try decoder.visibleSamples(width: 1024, height: 768)
    let samples = NoisyCrop.Samples(
        width: s.width, height: s.height, channels: s.channels, values: s.samples, black: s.black, white: s.white)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-noise-contract-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var archival = ConvertOptions()
    EncodingTarget.archival.apply(to: &archival)
    archival.hdr = .off
    var standard = ConvertOptions()
    standard.hdr = .off
    for iso in [3200, 12800] {
        let crop = dir.appendingPathComponent("\(iso).dng")
        try Data(try NoisyCrop.dng(original: bytes, crop: samples, iso: iso, seed: 1 &+ UInt64(iso)).bytes).write(
            to: crop)
        let reference = try ViewingSize.Reference(
            primaryLuma(HEICConverter.convert(source: crop, options: archival, decoders: .inProcess).bytes))
        let out = try HEICConverter.convert(source: crop, options: standard, decoders: .inProcess)
        let view = try ViewingSize.compare(reference, primaryLuma(out.bytes))
        let q = out.result.qualityUsed.map(String.init) ?? "-"
        #expect(
            view.mean >= NoiseLevel.RealImageRule.minMean && view.worstBlock >= NoiseLevel.RealImageRule.minWorst,
            "\(name) ISO \(iso) (σ \(out.result.noiseSigma ?? -1), q\(q)): \(view.mean) / \(view.worstBlock)")
    }
}
