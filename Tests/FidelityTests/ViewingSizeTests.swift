import Fidelity
import Foundation
import Testing

// The viewing-size measure (Fidelity/ViewingSize.swift) and the ladder rule judged on it.

@Test func downscaleAveragesNonOverlappingBlocksAndDropsPartialEdges() throws {
    // 5×3: the 2×2 blocks are (0,0) and (2,0); column 4 and row 2 are partial and left out.
    let p = try Plane(width: 5, height: 3, values: [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 99, 99, 99, 99, 99])
    let d = try ViewingSize.downscale(p)
    #expect(d.width == 2 && d.height == 1)
    #expect(d.values == [Float(0 + 1 + 10 + 11) / 4, Float(2 + 3 + 12 + 13) / 4])
    #expect(try ViewingSize.downscale(p, factor: 1) == p)
    #expect(throws: FidelityError.self) {
        try ViewingSize.downscale(try Plane(width: 1, height: 9, values: [0, 0, 0, 0, 0, 0, 0, 0, 0]))
    }
}

/// The measure is SSIM of the two 2×2-averaged planes (ssim.m with F = 2), nothing else.
@Test func viewingSizeIsSSIMOfTheDownscaledPlanes() throws {
    let x = try basePlane(128, 96)
    let y = try noisy(x, seed: 11, amp: 0.2)
    let direct = try SSIM.compare(ViewingSize.downscale(x), ViewingSize.downscale(y))
    let via = try ViewingSize.compare(ViewingSize.Reference(x), y)
    #expect(direct == via)
    #expect(throws: FidelityError.self) { try ViewingSize.compare(ViewingSize.Reference(x), try basePlane(64, 96)) }
}

/// Why the measure exists: fine noise that 1:1 SSIM counts in full is averaged down at viewing size (σ halves over
/// 2×2), while a blur of the structure still counts there. Fails if the downscale were skipped or the noise kept.
@Test func noiseWeighsLessAtViewingSizeThanAt1to1ButBlurStillCounts() throws {
    let x = try basePlane(160, 128)
    let grainy = try noisy(x, seed: 3, amp: 0.25)
    let oneToOne = try SSIM.compare(x, grainy).mean
    let viewing = try ViewingSize.compare(ViewingSize.Reference(x), grainy).mean
    #expect(viewing > oneToOne + 0.05, "1:1 \(oneToOne), viewing \(viewing)")
    // A 9×9 box blur of the picture loses structure that survives the downscale.
    var blurred = x.values
    for r in 4..<(x.height - 4) {
        for c in 4..<(x.width - 4) {
            var s: Float = 0
            for dr in -4...4 { for dc in -4...4 { s += x.values[(r + dr) * x.width + c + dc] } }
            blurred[r * x.width + c] = s / 81
        }
    }
    let blur = try Plane(width: x.width, height: x.height, values: blurred)
    #expect(try ViewingSize.compare(ViewingSize.Reference(x), blur).mean < 0.98)
}

/// Judged at viewing size, a threshold is a loss from the unencoded frame's own score: a noisy image whose frame
/// scores 0.85 against the clean scene passes at 0.845 and fails at 0.835; the archival measure ignores it.
@Test func viewingThresholdIsALossFromTheFrameScore() throws {
    func r(
        _ image: String, view: Double, frame: Double, worst: Double = 0.9, frameWorst: Double = 0.9,
        variant: String = "tune=ssim"
    )
        -> LadderRow
    {
        LadderRow(
            image: image, width: 100, height: 100, preset: "ultrafast", variant: variant, quality: 50, bytes: 100,
            encodeSeconds: 0.1, ssimMean: 0.9, ssimWorst: 0.8, psnrY: 40, psnrRGB: 40, viewMean: view,
            viewWorst: worst, viewFrameMean: frame, viewFrameWorst: frameWorst)
    }
    let vl = Ladder.visuallyLossless
    #expect(vl.measure == .viewing)
    #expect(vl.passes(r("a", view: 0.845, frame: 0.85)))
    #expect(!vl.passes(r("a", view: 0.835, frame: 0.85)))
    #expect(vl.passes(r("a", view: 0.90, frame: 0.85)))  // closer to the scene than the frame: no loss
    #expect(!vl.passes(r("a", view: 0.85, frame: 0.85, worst: 0.86, frameWorst: 0.9)))  // a block lost 0.04
    #expect(vl.passes(r("a", view: 0.85, frame: 0.85, worst: 0.871, frameWorst: 0.9)))
    // Archival judges the 1:1 numbers; no target takes a pre-encode denoise (the converter has none to ship).
    let archivalRow = LadderRow(
        image: "a", width: 100, height: 100, preset: "ultrafast", quality: 90, bytes: 100, encodeSeconds: 0.1,
        ssimMean: 0.996, ssimWorst: 0.99, psnrY: 50, psnrRGB: 50)
    #expect(Ladder.archival.passes(archivalRow))
    var denoised = archivalRow
    denoised.variant = "denoise=light,tune=ssim"
    #expect(!Ladder.archival.passes(denoised) && denoised.denoises && !archivalRow.denoises)
    #expect(!vl.passes(r("a", view: 0.86, frame: 0.85, variant: "denoise=light,tune=ssim")))
    // The rule groups by (preset, variant): a variant is its own candidate.
    let rows = [
        r("a", view: 0.85, frame: 0.85), r("b", view: 0.99, frame: 0.999),
        r("a", view: 0.86, frame: 0.85, variant: "tune=grain"),
        r("b", view: 0.995, frame: 0.999, variant: "tune=grain"),
    ]
    let c = try #require(Ladder.choose(rows, threshold: vl))
    #expect(c.variant == "tune=grain" || c.variant == "tune=ssim")
    #expect(
        Ladder.choose(rows.filter { $0.image == "a" || $0.variant == "tune=grain" }, threshold: vl)?.variant
            == "tune=grain")
}
