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

@Test func committedLadderIsComplete() throws {
    let rows = try committedLadder()
    let images = Set(rows.map(\.image))
    #expect(images.count >= 4)
    #expect(images.contains { $0.hasPrefix("chart-24mp") })
    #expect(images.contains { $0.hasPrefix("remosaic-") })
    let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"]
    let qualities = [40, 50, 60, 65, 70, 75, 80, 85, 90]
    for image in images {
        for p in presets {
            for q in qualities {
                #expect(
                    rows.filter { $0.image == image && $0.preset == p && $0.quality == q }.count == 1,
                    "\(image) \(p) q\(q)")
            }
        }
    }
    for r in rows {
        #expect(r.ssimMean > 0 && r.ssimMean <= 1 && r.ssimWorst <= 1, "\(r.image) \(r.preset) q\(r.quality)")
        #expect(r.bytes > 0 && r.encodeSeconds > 0)
    }
}

@Test func defaultsAndTargetsAreWhatTheRulePicksFromTheCommittedData() throws {
    let rows = try committedLadder()
    for target in EncodingTarget.allCases {
        let choice = try #require(
            Ladder.choose(rows, threshold: target.threshold), "\(target.rawValue): nothing passes")
        #expect(choice.preset == target.preset, "\(target.rawValue)")
        #expect(choice.quality == target.quality, "\(target.rawValue)")
    }
    let d = ConvertOptions()
    #expect(d.speed == EncodingTarget.visuallyLossless.preset)
    #expect(d.quality == EncodingTarget.visuallyLossless.quality)
    var o = ConvertOptions()
    EncodingTarget.archival.apply(to: &o)
    #expect(o.speed == EncodingTarget.archival.preset && o.quality == EncodingTarget.archival.quality)
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
