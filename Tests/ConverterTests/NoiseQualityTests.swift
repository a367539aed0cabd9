import Converter
import CorpusKit
import Fidelity
import Foundation
import Testing

/// The default target's noise steps end to end: a generated chart with the sensor model's ISO 12800 noise is measured
/// as visibly noisy and encoded at the last step's quality, smaller than at the clean quality; its noiseless twin
/// keeps the clean quality; an explicit quality turns the steps off.
@Test func aNoisyRAWIsEncodedAtTheNoiseStepsQuality() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-noise-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, orientation: 1)
    let noise = SensorNoise(iso: 12800)
    let scene = Chart(width: 768, height: 512, highlightStops: nil)
    let noisy = dir.appendingPathComponent("noisy.dng")
    let clean = dir.appendingPathComponent("clean.dng")
    try Data(DNGWriter.write(scene: scene, spec: noise.spec(base, seed: 7))).write(to: noisy)
    try Data(DNGWriter.write(scene: scene, spec: noise.cleanSpec(base, seed: 7))).write(to: clean)

    let n = try HEICConverter.convert(source: noisy, decoders: .inProcess)
    let sigma = try #require(n.result.noiseSigma)
    #expect(sigma >= NoiseLevel.steps.last!.minSigma, "ISO 12800 read σ \(sigma)")
    // The default (balanced) codes HEVC's default scaling lists: one CRF step finer than the step (q50 for q47).
    #expect(n.result.qualityUsed == 50 && NoiseLevel.steps.last!.quality == 47)
    #expect(try HEICConverter.noise(of: noisy, decoders: .inProcess).quality == n.result.qualityUsed)

    let c = try HEICConverter.convert(source: clean, decoders: .inProcess)
    #expect(
        (c.result.noiseSigma ?? 0) < NoiseLevel.steps[0].minSigma,
        "noiseless read \(String(describing: c.result.noiseSigma))")
    #expect(c.result.qualityUsed == ConvertOptions().quality)

    var fixed = ConvertOptions()
    fixed.noiseAdaptive = false
    let f = try HEICConverter.convert(source: noisy, options: fixed, decoders: .inProcess)
    #expect(f.result.qualityUsed == fixed.quality && f.result.noiseSigma == nil)
    // The step saves a fifth of the bits at least (a quarter here: 96,282 against 128,232 bytes).
    #expect(n.bytes.count < f.bytes.count * 4 / 5, "the noise step saves bits: \(n.bytes.count) vs \(f.bytes.count)")
    // At the fast effort (flat lists) the step is the rule's own q47.
    var fast = ConvertOptions()
    EncodingTarget.visuallyLossless.apply(to: &fast, effort: .fast)
    #expect(fast.frameQuality(sigma: sigma) == NoiseLevel.steps.last!.quality)
    // Lists turned off (x265's "off") are flat lists; a clean or unmeasured frame keeps the clean quality.
    var off = ConvertOptions()
    off.x265Options["scaling-list"] = "off"
    #expect(off.frameQuality(sigma: sigma) == 47 && ConvertOptions().frameQuality(sigma: sigma) == 50)
    #expect(ConvertOptions().frameQuality(sigma: 0.5) == 55 && ConvertOptions().frameQuality(sigma: nil) == 55)
    var archival = ConvertOptions()
    EncodingTarget.archival.apply(to: &archival)
    #expect(!archival.noiseAdaptive)
}

/// A level's quality step is added to every frame's quality: small codes the target's q55 at q57 and a noisy
/// frame's q50 at q52, an explicit quality two steps finer too, and never above 100; balanced adds nothing.
@Test func aLevelsQualityStepIsAddedToEveryFramesQuality() {
    var small = ConvertOptions()
    EncodingTarget.visuallyLossless.apply(to: &small, effort: .small)
    let noisy = NoiseLevel.steps[0].minSigma + 0.5
    #expect(small.frameQuality(sigma: nil) == 57 && small.frameQuality(sigma: 0.5) == 57)
    #expect(small.frameQuality(sigma: noisy) == 52)
    small.noiseAdaptive = false
    small.quality = 60
    #expect(small.frameQuality(sigma: noisy) == 62)
    small.quality = 99
    #expect(small.frameQuality(sigma: nil) == 100)
    let balanced = ConvertOptions()
    #expect(balanced.qualityStep == 0 && balanced.frameQuality(sigma: nil) == 55)
    #expect(balanced.frameQuality(sigma: noisy) == 50)
}
