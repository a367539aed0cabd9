import CorpusKit
import Foundation
import TestSupport
import Testing

@testable import HEIF

/// Byte-level mutations aimed at box structure: sizes, counts, ids, truncation, splices.
func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var b = input
    let rounds = Int.random(in: 1...4, using: &rng)
    let interesting32: [UInt32] = [
        0, 1, 7, 8, 16, 0x7F, 0x80, 0xFF, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
    ]
    for _ in 0..<rounds {
        guard !b.isEmpty else { return [UInt8.random(in: 0...255, using: &rng)] }
        let i = Int.random(in: 0..<b.count, using: &rng)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: b[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
        case 1: b[i] = UInt8.random(in: 0...255, using: &rng)
        case 2:
            let v = interesting32.randomElement(using: &rng)!
            for k in 0..<4 where i + k < b.count { b[i + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * k)) }
        case 3: b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...16, using: &rng)))
        case 4:
            b.insert(
                contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng)
                }, at: i)
        case 5: b = Array(b.prefix(i))
        case 6:
            let j = Int.random(in: 0..<b.count, using: &rng)
            let n = min(Int.random(in: 1...64, using: &rng), b.count - j)
            b.insert(contentsOf: b[j..<(j + n)], at: i)
        default:
            b[i] = [0, 1, 0x7F, 0x80, 0xFF].randomElement(using: &rng)!
        }
    }
    return b
}

/// The seed files: built with HEIFBuilder, also written to Fixtures/ for the libFuzzer target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] {
    var seeds: [(String, [UInt8])] = [
        ("seed-gainmap.heic", Samples.gainMapBuilder().0.build()),
        ("seed-simple.heic", Samples.simpleBuilder().0.build()),
        ("seed-orient5.heic", Samples.gainMapBuilder(orientation: 5).0.build()),
    ]
    var b = HEIFBuilder(brands: Brands(major: "avif", compatible: ["mif1", "avif", "miaf"]))
    let av1 = Property.av1C(
        AV1Config(
            seqProfile: 0, seqLevelIdx0: 8, highBitdepth: true, twelveBit: false, monochrome: false,
            chromaSubsamplingX: true, chromaSubsamplingY: true, raw: [0x81, 0x08, 0x4C, 0x00]))
    let id = b.addCodedImage(
        type: "av01",
        properties: [
            (av1, true), (.ispe(width: 16, height: 16), false), (.pixi(bitsPerChannel: [10, 10, 10]), false),
        ], data: [0x12, 0, 0x0A])
    b.setPrimary(id)
    b.addXMP(Samples.xmp, describing: [id])
    seeds.append(("seed-avif.avif", b.build()))
    return seeds
}

@Test func fuzzSeedFixturesAreCurrent() throws {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    let record = ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil
    for (name, bytes) in fuzzSeeds() {
        let url = dir.appendingPathComponent(name)
        if record {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            Issue.record("re-recorded \(name); unset RECORD_GOLDENS and run again")
            continue
        }
        let onDisk = try [UInt8](Data(contentsOf: url))
        #expect(onDisk == bytes, "\(name) differs from what the builder makes; re-record with RECORD_GOLDENS=1")
        #expect(HEIFFile(bytes: onDisk).findings.isEmpty)
    }
}

/// A short fixed-seed version of the libFuzzer run: 20,000 mutated inputs, every accessor called on each.
@Test func mutationFuzzNeverBreaksAnInvariant() {
    var rng = SplitMix64(seed: 0x5EED_2026)
    let seeds = fuzzSeeds().map(\.bytes) + findingCases().map(\.bytes)
    var failures: [String] = []
    var withFindings = 0
    for n in 0..<20_000 {
        let input = mutate(seeds[n % seeds.count], &rng)
        if let broken = HEIFFuzz.exercise(input, limits: .fuzzing, deep: n % 10 == 0) {
            failures.append("input \(n): \(broken)")
            if failures.count > 5 { break }
        }
        if !HEIFFile(bytes: input, limits: .fuzzing).findings.isEmpty { withFindings += 1 }
    }
    #expect(failures.isEmpty, "\(failures)")
    // The mutator must actually break files, or the run proves nothing.
    #expect(withFindings > 5_000, "only \(withFindings) of 20000 mutated inputs had findings")
}

@Test func hostileCountsStayWithinLimits() {
    // iloc claiming 65535 items with 0-byte fields; ipma claiming 2^32 entries; grpl claiming 2^32 entities.
    let iloc = V.full("iloc", 1, 0, [0x00, 0x00] + V.u16(0xFFFF) + Array(repeating: 0, count: 64))
    let ipma = V.full("ipma", 0, 0, V.u32(0xFFFF_FFFF) + [0, 1, 0xFF])
    let grpl = V.box("grpl", V.full("altr", 0, 0, V.u32(1) + V.u32(0xFFFF_FFFF)))
    let f = HEIFFile(
        bytes: V.ftyp()
            + V.meta([
                V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1")]), iloc, V.box("iprp", V.box("ipco", []) + ipma), grpl,
            ]), limits: .fuzzing)
    #expect(f.locations.count <= Limits.fuzzing.maxItems)
    #expect(f.groups.isEmpty)
    #expect(f.findings.contains { $0.code == .containerBoxMalformed })
    // Deep nesting stops at maxDepth.
    var nested: [UInt8] = []
    for _ in 0..<100 { nested = V.box("iprp", nested) }
    let g = HEIFFile(bytes: nested, limits: .fuzzing)
    #expect(g.findings.contains { $0.code == .containerLimitsExceeded })
    #expect(g.serialize() == nested)
}
