import Batch
import Converter
import Foundation
import Testing

@testable import ReadbackCLI

/// Parses a convert command line's options the way `readback convert` does.
func convertOptions(_ args: [String]) throws -> ConvertOptions {
    try ConvertCommand.conversionOptions(ParsedArguments.parse(args, specs: ConvertCommand().options))
}

@Test func targetSetsPresetAndQualityAndExplicitFlagsWin() throws {
    let a = try convertOptions(["--target", "archival"])
    #expect(a.quality == EncodingTarget.archival.quality && a.speed == EncodingTarget.archival.preset)
    let b = try convertOptions(["--quality", "88", "--target", "small"])
    #expect(b.quality == 88 && b.speed == EncodingTarget.small.preset)
    let c = try convertOptions(["--target", "visually-lossless", "--speed", "slow", "--chroma", "444", "--depth", "10"])
    #expect(c.quality == EncodingTarget.visuallyLossless.quality && c.speed == "slow")
    #expect(c.chroma == .yuv444 && c.bitDepth == 10)
    #expect(try convertOptions(["--tile-size", "0"]).tileSize == 0)
    #expect(try convertOptions(["--tile-size", "1024"]).tileSize == 1024)
    // Nothing given: the converter's defaults apply.
    let d = try convertOptions([])
    #expect(d == ConvertOptions())
}

@Test func badEncodingValuesAreOneLineUsageErrors() throws {
    let r = runCLI(["convert", "x.dng", "--out", NSTemporaryDirectory(), "--speed", "warp"])
    #expect(r.code == .usageOrIO)
    #expect(
        r.err.hasPrefix(
            "readback convert: --speed takes one of ultrafast|superfast|veryfast|faster|fast|medium|slow|slower|veryslow|placebo, not 'warp'"
        ))
    for bad in [
        ["--target", "tiny"], ["--chroma", "422"], ["--quality", "101"], ["--depth", "12"], ["--tile-size", "100"],
        ["--tile-size", "8192"],
    ] {
        #expect(throws: UsageError.self) { try convertOptions(bad) }
    }
}

@Test func helpPrintsTheRealDefaultsInTheFormTheBenchmarkParses() throws {
    let r = runCLI(["convert", "--help"])
    let d = ConvertOptions()
    // scripts/bench.py: the first line mentioning --FLAG with `default[:\s]+VALUE` gives the floor's setting.
    func helpDefault(_ flag: String) -> String? {
        for line in r.out.split(separator: "\n") where line.contains("--\(flag)") {
            if let m = line.firstMatch(of: /default[:\s]+([A-Za-z0-9]+)/) { return String(m.1) }
        }
        return nil
    }
    #expect(helpDefault("quality") == "\(d.quality)")
    #expect(helpDefault("speed") == d.speed)
    #expect(helpDefault("chroma") == d.chroma.rawValue)
    #expect(helpDefault("depth") == "\(d.bitDepth)")
    for t in EncodingTarget.allCases { #expect(r.out.contains(t.summary)) }
}
