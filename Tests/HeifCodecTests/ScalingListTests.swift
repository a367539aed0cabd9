import Foundation
import HEIF
import Testing

@testable import HeifCodec

/// The coded picture (the primary item's slice data; the lists themselves go in the SPS) at veryfast, 16×16 trees.
private func encode(_ lists: String) throws -> [UInt8] {
    var s = HeifEncodeSettings(quality: 55, bitDepth: 10, preset: "veryfast")
    s.x265 = ["ctu": "16", "scaling-list": lists]
    let file = HEIFFile(bytes: try HeifEncoder.encode(texturedFrame(192, 128), settings: s))
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
