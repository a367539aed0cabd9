import CorpusKit
import GainMap
import Testing

/// The JPEG gain-map reader never traps and never invents a complete gain map from damaged bytes: every prefix of
/// the generated files, and each of them with bytes overwritten along the way.
@Test(arguments: JPEGGainMapCorpus.Form.allCases)
func jpegReaderSurvivesEveryTruncationAndOverwrite(_ form: JPEGGainMapCorpus.Form) throws {
    let good = JPEGGainMapCorpus.build(form)
    let whole = try #require(JPEGGainMapReader.inspect(good))
    #expect(whole.inspection.reports.first?.isComplete == true)
    var completeCuts = 0
    for n in stride(from: 0, to: good.count, by: 7) {
        let cut = Array(good.prefix(n))
        guard let i = JPEGGainMapReader.inspect(cut) else { continue }
        // A cut inside the gain-map image is a finding, never a complete map.
        if let e = i.gainMapEntry.flatMap({ i.mpf?.entries[$0] }), n < e.fileOffset + e.size,
            i.inspection.reports.first?.isComplete == true
        {
            completeCuts += 1
        }
    }
    #expect(completeCuts == 0)
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<400 {
        var b = good
        for _ in 0..<4 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            b[Int(seed >> 33) % b.count] = UInt8(truncatingIfNeeded: seed >> 17)
        }
        _ = JPEGGainMapReader.inspect(b)
        _ = JPEGInspectionView(bytes: b, name: "x")
    }
}
