import Converter
import Fidelity
import Foundation
import Testing

/// docs/quality-ladder.tsv, found from this file's path (the repository's own committed data).
func committedLadder() throws -> [LadderRow] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quality-ladder.tsv")
    return try Ladder.parse(String(contentsOf: url, encoding: .utf8))
}

/// The committed ladder covers the 24 MP chart with sensor noise at every benchmark ISO, noisy
/// remosaics of the two corpus photos at several ISOs (each with its noiseless twin as the viewing-size truth), and
/// the five real full-pixel camera DNGs; every measured setting is there for every image, once.
@Test func committedLadderIsComplete() throws {
    let rows = try committedLadder()
    let images = Set(rows.map(\.image))
    for iso in [100, 800, 3200, 12800] {
        #expect(images.contains("chart-24mp-rggb-14bit-iso\(iso)-o1.dng"), "ISO \(iso) chart")
    }
    #expect(images.filter { $0.hasPrefix("remosaic-") && $0.contains("-iso") }.count >= 4)
    for real in [
        "photoprism_canon_eos_6d.dng", "tinydng_Canon550D_MagicLantern_colorchart.dng",
        "dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng", "hdrmerge_NikonD5000_sample1.dng",
        "hdrmerge_NikonD5000_sample2.dng",
    ] {
        #expect(images.contains(real), "\(real)")
    }
    struct Setting: Hashable {
        var preset: String
        var variant: String
        var quality: Int
    }
    let settings = Set(rows.map { Setting(preset: $0.preset, variant: $0.variant, quality: $0.quality) })
    #expect(settings.count >= 20)
    #expect(Set(rows.map(\.preset)).isSuperset(of: ["ultrafast", "superfast", "medium"]))
    for s in settings {
        for image in images {
            let n = rows.filter { $0.image == image && $0.preset == s.preset && $0.variant == s.variant }
                .filter { $0.quality == s.quality }.count
            #expect(n == 1, "\(image) \(s.preset) \(s.variant) q\(s.quality): \(n) rows")
        }
    }
    for r in rows {
        #expect(r.ssimMean > 0 && r.ssimMean <= 1 && r.ssimWorst <= 1, "\(r.image) \(r.preset) q\(r.quality)")
        #expect(r.viewMean > 0 && r.viewMean <= 1 && r.viewFrameMean > 0 && r.viewFrameMean <= 1)
        #expect(r.bytes > 0 && r.encodeSeconds > 0)
    }
    // The viewing-size truth: the noisy generated images score below 1 against their clean scene (so the clean twin
    // was used), the real files score ≈ 1 against their own render.
    for image in images {
        let frame = try #require(rows.first { $0.image == image }).viewFrameMean
        #expect(rows.filter { $0.image == image }.allSatisfy { $0.viewFrameMean == frame }, "\(image)")
        if image.contains("-iso3200") || image.contains("-iso12800") {
            #expect(frame < 0.97, "\(image): frame \(frame) against its clean scene")
        } else if !image.contains("-iso") {
            #expect(frame > 0.999, "\(image): frame \(frame) against its own render")
        }
    }
}

@Test func defaultsAndTargetsAreWhatTheRulePicksFromTheCommittedData() throws {
    let rows = try committedLadder()
    for target in EncodingTarget.allCases {
        let choice = try #require(
            Ladder.choose(rows, threshold: target.threshold), "\(target.rawValue): nothing passes")
        #expect(choice.preset == target.preset, "\(target.rawValue)")
        #expect(choice.quality == target.quality, "\(target.rawValue)")
        #expect(choice.variant == target.variant, "\(target.rawValue)")
    }
    // What the converter can write: HeifCodec's tune (ssim), x265 options, chroma; no pre-encode filter.
    for target in EncodingTarget.allCases {
        let pairs = Ladder.pairs(of: target.variant)
        #expect(pairs.first { $0.key == "tune" }?.value == "ssim", "\(target.rawValue)")
        #expect(Ladder.denoise(of: target.variant) == nil, "\(target.rawValue)")
    }
    // The defaults: the visually-lossless target at the balanced effort (its preset, depth and x265 options over the
    // target's; docs/quality-ladder.md "Effort").
    let d = ConvertOptions()
    #expect(d.quality == EncodingTarget.visuallyLossless.quality)
    #expect(d.chroma == EncodingTarget.visuallyLossless.chroma)
    #expect(d.effort == .balanced && d.speed == EncodingEffort.balanced.preset)
    #expect(d.x265Options == EncodingEffort.balanced.x265Options(over: EncodingTarget.visuallyLossless.x265Options))
    var composed = ConvertOptions()
    EncodingTarget.visuallyLossless.apply(to: &composed, effort: .balanced)
    #expect(composed == d)
    var o = ConvertOptions()
    EncodingTarget.archival.apply(to: &o)
    #expect(o.speed == EncodingTarget.archival.preset && o.quality == EncodingTarget.archival.quality)
    #expect(o.chroma == EncodingTarget.archival.chroma && o.chroma.rawValue == "444" && o.x265Options.isEmpty)
}

func row(_ image: String, _ preset: String, _ q: Int, bytes: Int, seconds: Double, mean: Double, worst: Double)
    -> LadderRow
{
    LadderRow(
        image: image, width: 100, height: 100, preset: preset, quality: q, bytes: bytes, encodeSeconds: seconds,
        ssimMean: mean, ssimWorst: worst, psnrY: 50, psnrRGB: 50)
}

@Test func ruleNeedsEveryImageAndPrefersAFasterPresetWithinTheSizeTolerance() throws {
    let t = LadderThreshold(minMean: 0.99, minWorst: 0.97, sizeTolerance: 0.05)
    var rows = [
        // slow q60 is the smallest passing setting; fast q60 is 4 % larger and 3× faster; ultrafast q60 fails on b.
        row("a", "slow", 60, bytes: 1000, seconds: 3, mean: 0.995, worst: 0.98),
        row("b", "slow", 60, bytes: 1000, seconds: 3, mean: 0.995, worst: 0.98),
        row("a", "fast", 60, bytes: 1040, seconds: 1, mean: 0.995, worst: 0.98),
        row("b", "fast", 60, bytes: 1040, seconds: 1, mean: 0.995, worst: 0.98),
        row("a", "ultrafast", 60, bytes: 800, seconds: 0.3, mean: 0.995, worst: 0.98),
        row("b", "ultrafast", 60, bytes: 800, seconds: 0.3, mean: 0.995, worst: 0.96),
        row("a", "ultrafast", 70, bytes: 1200, seconds: 0.4, mean: 0.996, worst: 0.98),
        row("b", "ultrafast", 70, bytes: 1200, seconds: 0.4, mean: 0.996, worst: 0.98),
    ]
    var c = try #require(Ladder.choose(rows, threshold: t))
    #expect(c.preset == "fast" && c.quality == 60)
    #expect(abs(c.meanBitsPerPixel - 1040 * 8 / 10000) < 1e-12)
    // With no tolerance the smallest wins.
    c = try #require(Ladder.choose(rows, threshold: LadderThreshold(minMean: 0.99, minWorst: 0.97, sizeTolerance: 0)))
    #expect(c.preset == "slow" && c.quality == 60)
    // A setting measured on only one of the images never passes.
    rows.append(row("a", "veryfast", 50, bytes: 10, seconds: 0.1, mean: 0.999, worst: 0.999))
    c = try #require(Ladder.choose(rows, threshold: t))
    #expect(c.preset == "fast")
    // Nothing passes a threshold above every row.
    #expect(Ladder.choose(rows, threshold: LadderThreshold(minMean: 0.9999, minWorst: 0.9, sizeTolerance: 0)) == nil)
}

@Test func ladderLinesRoundTripAndMalformedRowsAreRefused() throws {
    let r = row("x.dng", "medium", 75, bytes: 1234, seconds: 0.5, mean: 0.991234, worst: 0.97)
    let text = "# comment\n" + Ladder.columns.joined(separator: "\t") + "\n" + Ladder.line(r) + "\n"
    let back = try Ladder.parse(text)
    #expect(back == [r])
    #expect(throws: FidelityError.self) { try Ladder.parse("image\tbytes\n") }
    #expect(throws: FidelityError.self) {
        try Ladder.parse(Ladder.columns.joined(separator: "\t") + "\nx.dng\t1\t1\tmedium\tseventy\n")
    }
    #expect(throws: FidelityError.self) { try Ladder.parse("# only comments\n") }
}

/// docs/quality-ladder-noisy.tsv: the noise steps' rows (the noisiest images at qualities below the default).
func committedNoisyLadder() throws -> [LadderRow] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quality-ladder-noisy.tsv")
    return try Ladder.parse(String(contentsOf: url, encoding: .utf8))
}

/// docs/quality-ladder-noise.tsv: each ladder image's frame noise σ as `readback convert` measures it, and the quality
/// the default target gives it.
func committedNoise() throws -> [(image: String, sigma: Double, quality: Int)] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quality-ladder-noise.tsv")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        .filter { !$0.hasPrefix("#") && !$0.hasPrefix("image\t") }
        .map { line in
            let f = line.split(separator: "\t").map(String.init)
            return (f[0], try #require(Double(f[1])), try #require(Int(f[2])))
        }
}

/// The noise rule against the committed data: every ladder image has its σ recorded, the quality recorded is the
/// rule's, and at that quality (with the default target's preset and variant) the image passes the visually-lossless
/// rule in the committed ladder. The real camera DNGs (no noiseless twin) sit below the first step, so the rule leaves
/// them at the quality the ladder picked on them; the noisiest images reach the last step.
@Test func noiseRuleIsWhatTheCommittedDataSupports() throws {
    let ladder = try committedLadder()
    let rows = ladder + (try committedNoisyLadder())
    let noise = try committedNoise()
    let target = EncodingTarget.visuallyLossless
    #expect(Set(noise.map(\.image)) == Set(ladder.map(\.image)), "σ recorded for every ladder image")
    for n in noise {
        #expect(n.quality == NoiseLevel.quality(base: target.quality, sigma: n.sigma), "\(n.image)")
        let r = rows.first {
            $0.image == n.image && $0.preset == target.preset && $0.variant == target.variant && $0.quality == n.quality
        }
        let measured = try #require(r, "\(n.image): no ladder row at q\(n.quality)")
        #expect(
            target.threshold.passes(measured),
            "\(n.image) at q\(n.quality): view loss \(measured.viewLossMean) / \(measured.viewLossWorst)")
    }
    let real = noise.filter { !$0.image.contains("-iso") }
    #expect(real.count >= 5 && real.allSatisfy { $0.sigma < NoiseLevel.steps[0].minSigma && $0.quality == 55 })
    #expect(noise.contains { $0.quality == NoiseLevel.steps.last!.quality })
    #expect(NoiseLevel.quality(base: 85, sigma: 9) == 47 && NoiseLevel.quality(base: 30, sigma: 9) == 30)
    #expect(NoiseLevel.quality(base: 55, sigma: nil) == 55)
}

/// The estimator on synthetic frames: flat grey with Gaussian noise of known σ reads 0.75–1.05 σ (the 10th percentile
/// of the blocks, edges left out, sits under the mean); a sharp-edged pattern without noise reads under 0.3 (its flat
/// cells read nothing); clipped white reads nothing.
@Test func noiseEstimatorReadsKnownNoise() {
    func frame(_ w: Int, _ h: Int, _ f: (Int, Int) -> Float) -> [Float] {
        (0..<(w * h)).map { f($0 % w, $0 / w) }
    }
    var g = SystemRandomNumberGenerator()
    func gauss() -> Float {
        let u = Float.random(in: Float.ulpOfOne..<1, using: &g)
        let v = Float.random(in: 0..<1, using: &g)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    for sigma: Float in [1, 2.5, 5] {
        let f = frame(512, 256) { _, _ in 128 + sigma * gauss() }
        let s = f.withUnsafeBufferPointer {
            NoiseLevel.sigma(ofBlocks: NoiseLevel.blockSigmas($0, width: 512, height: 256))
        }
        let ratio = s.map { $0 / Double(sigma) }
        #expect(ratio.map { $0 > 0.75 && $0 < 1.05 } == true, "σ \(sigma): read \(String(describing: s))")
    }
    // Cells of 24×20 px: a block in ten touches no edge. (Detail as dense as noise in every block, a fine fabric
    // filling the frame, reads as noise: docs/quality-ladder.md "Noise" says so.)
    let edges = frame(512, 256) { x, y in ((x / 24 + y / 20) % 2 == 0) ? 60 : 190 }
    let e = edges.withUnsafeBufferPointer {
        NoiseLevel.sigma(ofBlocks: NoiseLevel.blockSigmas($0, width: 512, height: 256))
    }
    #expect((e ?? 9) < 0.3, "edges read \(String(describing: e))")
    let white = [Float](repeating: 255, count: 512 * 256)
    #expect(
        white.withUnsafeBufferPointer {
            NoiseLevel.sigma(ofBlocks: NoiseLevel.blockSigmas($0, width: 512, height: 256))
        } == nil)
}

/// docs/quality-ladder-steps.tsv: every real RAW and the noisy crops made from them (`readback-ladder noisy`), each
/// frame's default encode at several qualities against its archival encode, at viewing size.
func committedSteps() throws -> [(image: String, sigma: Double, quality: Int, bpp: Double, mean: Double, worst: Double)]
{
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quality-ladder-steps.tsv")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        .filter { !$0.hasPrefix("#") && !$0.hasPrefix("image\t") }
        .map { line in
            let f = line.split(separator: "\t").map(String.init)
            try #require(f.count == 7, "\(line)")
            return (
                f[0], try #require(Double(f[1])), try #require(Int(f[2])), try #require(Double(f[4])),
                try #require(Double(f[5])), try #require(Double(f[6]))
            )
        }
}

/// The noise steps on real images: every real camera RAW of the corpus that converts and every noisy crop of one
/// keeps, at the quality the steps give its σ, SSIM-Y at viewing size against its archival encode of at least 0.975
/// (mean) and 0.95 (every block); from σ 3.5 up to the measured bound the default encode is at most 2 bit/px, and
/// above the bound some image keeps fidelity and size at no measured quality (the limit docs/quality-ladder.md states).
@Test func noiseStepsKeepEveryRealImageCloseToItsArchivalEncode() throws {
    let rows = try committedSteps()
    typealias Rule = NoiseLevel.RealImageRule
    let images = Set(rows.map(\.image))
    for real in [
        "photoprism_canon_eos_6d.dng", "tinydng_Canon550D_MagicLantern_colorchart.dng",
        "dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng", "hdrmerge_NikonD5000_sample1.dng",
        "hdrmerge_NikonD5000_sample2.dng",
    ] {
        #expect(images.contains(real), "\(real)")
        let base = String(real.dropLast(4))
        #expect(images.filter { $0.hasPrefix(base + "-iso") }.count >= 4, "\(real): noisy crops")
    }
    var sigmas: [String: Double] = [:]
    for r in rows { sigmas[r.image] = r.sigma }
    #expect(sigmas.values.filter { $0 >= Rule.sizeFromSigma }.count >= 12, "noisy crops above the size threshold")
    for (image, sigma) in sigmas {
        let q = NoiseLevel.quality(base: EncodingTarget.visuallyLossless.quality, sigma: sigma)
        let r = try #require(rows.first { $0.image == image && $0.quality == q }, "\(image): no row at q\(q)")
        #expect(r.mean >= Rule.minMean && r.worst >= Rule.minWorst, "\(image) σ \(sigma) q\(q): \(r.mean) / \(r.worst)")
        if sigma >= Rule.sizeFromSigma && sigma < Rule.sizeHoldsBelowSigma {
            #expect(r.bpp <= Rule.maxBitsPerPixel, "\(image) σ \(sigma) q\(q): \(r.bpp) bit/px")
        }
        // A lower quality would break the fidelity on some image: the steps are not set higher than needed.
    }
    let lowest = NoiseLevel.steps.map(\.quality).min()!
    let below = sigmas.filter { $0.value >= NoiseLevel.steps[0].minSigma }.keys.compactMap { image in
        rows.filter { $0.image == image && $0.quality < lowest }.max { $0.quality < $1.quality }
    }
    #expect(below.contains { $0.mean < Rule.minMean || $0.worst < Rule.minWorst }, "a lower step would still pass")
    // Above the bound, some image meets fidelity and size at no measured quality.
    let beyond = sigmas.filter { $0.value >= Rule.sizeHoldsBelowSigma }.keys
    #expect(
        beyond.contains { image in
            !rows.contains {
                $0.image == image && $0.mean >= Rule.minMean && $0.worst >= Rule.minWorst
                    && $0.bpp <= Rule.maxBitsPerPixel
            }
        })
}

/// docs/quality-ladder-steps-presets.tsv: the noisy real crops above the size bound, encoded with slower x265 presets.
/// Above σ 7 no preset keeps the fidelity within 2 bit/px (the bound is the data's, not the encoder setting's); just
/// above the bound (the Nikon crop, σ 4.84) the slow presets do.
@Test func noSlowerPresetKeepsFidelityWithinTheSizeBoundAboveSigmaSeven() throws {
    typealias Rule = NoiseLevel.RealImageRule
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quality-ladder-steps-presets.tsv")
    let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        .filter { !$0.hasPrefix("#") && !$0.hasPrefix("preset\t") }
        .map { line -> (preset: String, image: String, sigma: Double, bpp: Double, mean: Double, worst: Double) in
            let f = line.split(separator: "\t").map(String.init)
            try #require(f.count == 8, "\(line)")
            return (
                f[0], f[1], try #require(Double(f[2])), try #require(Double(f[5])), try #require(Double(f[6])),
                try #require(Double(f[7]))
            )
        }
    #expect(Set(rows.map(\.preset)) == ["ultrafast", "medium", "slow", "veryslow"])
    #expect(Set(rows.map(\.image)).count == 3)
    #expect(rows.allSatisfy { $0.sigma >= Rule.sizeHoldsBelowSigma })
    func meets(_ r: (preset: String, image: String, sigma: Double, bpp: Double, mean: Double, worst: Double)) -> Bool {
        r.mean >= Rule.minMean && r.worst >= Rule.minWorst && r.bpp <= Rule.maxBitsPerPixel
    }
    // Above σ 7 (the Sony and 550D crops) nothing meets the rule, whatever the preset.
    #expect(!rows.contains { $0.sigma > 7 && meets($0) }, "\(rows.filter { $0.sigma > 7 && meets($0) })")
    // The default preset meets it on none of the three; slow and veryslow on the one just above the bound.
    #expect(!rows.contains { $0.preset == "ultrafast" && meets($0) })
    #expect(Set(rows.filter(meets).map(\.preset)) == ["slow", "veryslow"])
    #expect(rows.filter(meets).allSatisfy { $0.sigma < 5 })
}
