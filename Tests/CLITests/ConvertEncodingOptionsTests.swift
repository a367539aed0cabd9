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
    // The first line mentioning --FLAG names its default as `default: VALUE`.
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
    #expect(helpDefault("effort") == d.effort.rawValue)
    for t in EncodingTarget.allCases { #expect(r.out.contains(t.summary)) }
    for e in EncodingEffort.allCases { #expect(r.out.contains(e.summary)) }
}

@Test func printDefaultsIsOneJSONObjectOfTheConverterDefaults() throws {
    func object(_ args: [String]) throws -> [String: Any] {
        let r = runCLI(["convert", "--print-defaults", "--json"] + args)
        #expect(r.code == .clean && r.err.isEmpty)
        #expect(r.out.split(separator: "\n").count == 1)
        return try #require(JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }
    let d = ConvertOptions()
    let o = try object([])
    // scripts/bench reads quality, speed, chroma and depth from these keys.
    #expect(o["quality"] as? Int == d.quality && o["speed"] as? String == d.speed)
    #expect(o["depth"] as? Int == d.bitDepth && o["chroma"] as? String == d.chroma.rawValue)
    #expect(o["tileSize"] as? Int == d.tileSize && o["hdr"] as? String == d.hdr.rawValue)
    #expect(o["gainMapQuality"] as? Int == d.gainMapQuality && o["gainMapSpeed"] as? String == d.gainMapSpeed)
    #expect(o["colorSpace"] as? String == d.colorSpace.rawValue)
    // scripts/bench's floor encodes with these x265 options too (NAME=VALUE, comma separated): the default target's
    // with the default effort's over them.
    let x265 = d.x265Options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    #expect(o["x265"] as? String == x265 && d.x265Options["aq-strength"] == "1.25")
    #expect(o["effort"] as? String == "balanced")
    #expect(o["target"] == nil)
    #expect(o["noisyFrames"] as? String == "q50 from noise σ 1.75")
    // --target: that target's quality at its default effort's preset and depth, the converter's values for the rest.
    for t in EncodingTarget.allCases {
        let j = try object(["--target", t.rawValue])
        let e = t.defaultEffort
        #expect(j["target"] as? String == t.rawValue && j["effort"] as? String == e.rawValue)
        #expect(j["quality"] as? Int == t.quality && j["speed"] as? String == e.preset)
        #expect(j["tileSize"] as? Int == d.tileSize && j["depth"] as? Int == e.bitDepth)
        #expect((j["noisyFrames"] != nil) == (t == .visuallyLossless), "\(t.rawValue)")
        #expect(
            j["x265"] as? String
                == e.x265Options(over: t.x265Options).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ","))
    }
    // --effort: that level's preset, depth and x265 options over the default target's.
    for e in EncodingEffort.allCases {
        let j = try object(["--effort", e.rawValue])
        #expect(j["effort"] as? String == e.rawValue && j["speed"] as? String == e.preset)
        #expect(j["depth"] as? Int == e.bitDepth && j["quality"] as? Int == d.quality)
        // scripts/bench's frontier adds the level's quality step to a frame's quality, as the converter does.
        #expect(j["qualityStep"] as? Int == e.qualityStep)
    }
    #expect(EncodingEffort.small.qualityStep == 2 && EncodingEffort.balanced.qualityStep == 0)
    // Small's noisy frames: the step's q50, one CRF step finer.
    #expect(try object(["--effort", "small"])["noisyFrames"] as? String == "q52 from noise σ 1.75")
    // Without --json one `key: value` line per setting, and neither SRC nor --out is needed.
    let text = runCLI(["convert", "--print-defaults"])
    #expect(text.code == .clean)
    #expect(text.out.contains("quality: \(d.quality)\n") && text.out.contains("tileSize: \(d.tileSize)\n"))
    #expect(runCLI(["convert", "--print-defaults", "--target", "tiny"]).code == .usageOrIO)
}

@Test func effortMapsToItsSettingsOverTheTarget() throws {
    // Each level: its preset, coded depth and x265 options, over the default target's quality and options.
    let fast = try convertOptions(["--effort", "fast"])
    #expect(fast.effort == .fast && fast.speed == "ultrafast" && fast.bitDepth == 8)
    #expect(fast.x265Options == EncodingTarget.visuallyLossless.x265Options)
    #expect(fast.quality == EncodingTarget.visuallyLossless.quality && fast.noiseAdaptive)
    for e in EncodingEffort.allCases {
        let o = try convertOptions(["--effort", e.rawValue])
        #expect(o.effort == e && o.speed == e.preset && o.bitDepth == e.bitDepth, "\(e.rawValue)")
        for (k, v) in e.x265Options { #expect(o.x265Options[k] == v, "\(e.rawValue) \(k)") }
        #expect(o.x265Options["aq-strength"] != nil, "\(e.rawValue): the target's options stay unless set over")
    }
    // The levels differ: balanced and small each change something fast does not.
    #expect(Set(EncodingEffort.allCases.map { "\($0.preset) \($0.bitDepth) \($0.x265Options)" }).count == 3)
    // The default is balanced, and is exactly what --effort balanced gives.
    #expect(try convertOptions(["--effort", "balanced"]) == ConvertOptions())
    #expect(ConvertOptions().effort == .balanced)
    // With a target: the level applies over it; archival keeps fast unless asked.
    #expect(try convertOptions(["--target", "archival"]).effort == .fast)
    let a = try convertOptions(["--target", "archival", "--effort", "small"])
    #expect(
        a.effort == .small && a.speed == EncodingEffort.small.preset && a.quality == EncodingTarget.archival.quality)
    #expect(a.chroma == .yuv444)
    // Explicit --speed and --depth win over the level's.
    let b = try convertOptions(["--effort", "small", "--speed", "fast", "--depth", "8"])
    #expect(b.speed == "fast" && b.bitDepth == 8 && b.effort == .small)
}

@Test func anUnknownEffortIsAOneLineUsageError() throws {
    let r = runCLI(["convert", "x.dng", "--out", NSTemporaryDirectory(), "--effort", "max"])
    #expect(r.code == .usageOrIO)
    // One line naming the option and its values, then the command's usage lines; nothing converted.
    let lines = r.err.split(separator: "\n")
    #expect(lines.first == "readback convert: --effort takes one of fast|balanced|small, not 'max'")
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("Usage: ") || $0.hasPrefix("Run ") } && r.out.isEmpty)
    #expect(throws: UsageError.self) { try convertOptions(["--effort", "Balanced"]) }
}
