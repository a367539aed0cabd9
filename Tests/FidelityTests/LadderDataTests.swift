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
/// the three real full-pixel camera DNGs; every measured setting is there for every image, once.
@Test func committedLadderIsComplete() throws {
    let rows = try committedLadder()
    let images = Set(rows.map(\.image))
    for iso in [100, 800, 3200, 12800] {
        #expect(images.contains("chart-24mp-rggb-14bit-iso\(iso)-o1.dng"), "ISO \(iso) chart")
    }
    #expect(images.filter { $0.hasPrefix("remosaic-") && $0.contains("-iso") }.count >= 4)
    for real in [
        "photoprism_canon_eos_6d.dng", "tinydng_Canon550D_MagicLantern_colorchart.dng",
        "dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng",
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
    let d = ConvertOptions()
    #expect(d.speed == EncodingTarget.visuallyLossless.preset)
    #expect(d.quality == EncodingTarget.visuallyLossless.quality)
    #expect(d.x265Options == EncodingTarget.visuallyLossless.x265Options)
    #expect(d.chroma == EncodingTarget.visuallyLossless.chroma)
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
