import Foundation
import HEIF
import Testing

@testable import HeifCodec

/// A frame with detail at every scale (a seeded pseudo-random texture over a gradient), 10-bit.
private func texture(_ w: Int, _ h: Int) -> HeifPixels {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var s = [UInt16](repeating: 0, count: w * h * 3)
    for i in 0..<(w * h) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Int(state >> 58)  // 0…63
        let base = (i % w) * 600 / w + (i / w) * 300 / h
        for c in 0..<3 { s[3 * i + c] = UInt16(min(1023, base + noise * (c + 2))) }
    }
    return .rgb16(width: w, height: h, bitDepth: 10, samples: s)
}

/// The coded picture (the primary item's slice data; the lists themselves go in the SPS) at veryfast, 16×16 trees.
private func encode(_ lists: String) throws -> [UInt8] {
    var s = HeifEncodeSettings(quality: 55, bitDepth: 10, preset: "veryfast")
    s.x265 = ["ctu": "16", "scaling-list": lists]
    let file = HEIFFile(bytes: try HeifEncoder.encode(texture(192, 128), settings: s))
    return try #require(file.primaryItemID.flatMap { file.payload(of: $0) }).map { $0 }
}

/// The list file renders HEVC's default lists exactly: x265 reading it codes the same picture as with its built-in
/// `default` (a mistranscribed entry, a transposed matrix or a wrong list name would change it or fail).
@Test func theListFileOfHEVCsDefaultsCodesAsX265sBuiltInDefaults() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-lists-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("default.txt")
    try X265ScalingLists.text(weightedLuma4x4: false).write(to: file, atomically: true, encoding: .utf8)
    let builtIn = try encode("default")
    #expect(try encode(file.path) == builtIn)
    #expect(try encode("off") != builtIn)
}

/// `default-4x4` weights the 4×4 intra luma list by the default 8×8 intra list at odd rows and columns, reaches
/// x265 through its file (a stream unlike the defaults' at veryfast, whose 8×8 units code 4×4 transforms), and
/// leaves no file behind in the temporary folder.
@Test func theWeighted4x4ListReachesX265WithoutAFileLeftBehind() throws {
    #expect(
        X265ScalingLists.weightedIntra4x4 == [16, 16, 19, 25, 16, 21, 27, 36, 19, 27, 44, 65, 25, 36, 65, 115])
    let before = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("readback-x265-") }
    let weighted = try encode("default-4x4")
    #expect(weighted != (try encode("default")))
    #expect(try X265ScalingLists.path(for: "default-4x4").hasPrefix("/proc/self/fd/"))
    let after = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("readback-x265-") }
    #expect(after == before, "left behind: \(after)")
    #expect(throws: HeifError.self) { try X265ScalingLists.path(for: "no-such-set") }
}
