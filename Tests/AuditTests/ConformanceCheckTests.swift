import Findings
import Foundation
import HEIF
import HEIFConformance
import HeifCodec
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// libheif 1.15's own file for an odd-sized 4:2:0 picture: padded to even sides and cropped back with a `clap` of odd
/// size, its `ispe` the cropped size (the writer's bug that ComplianceWarden found in Readback's thumbnails).
private func libheifOddFile(width: Int = 63, height: Int = 47) throws -> [UInt8] {
    var s = HeifEncodeSettings()
    s.preset = "ultrafast"
    let px = (0..<(width * height * 3)).map { UInt8(($0 * 7) % 256) }
    return try HeifEncoder.encode(.rgb8(width: width, height: height, samples: px), settings: s)
}

/// The SPS reader against libheif's decode of the same stream (each item decoded alone, no transforms).
@Test(arguments: [(64, 64), (63, 47), (300, 201)])
func theSPSGivesTheSizeLibheifDecodes(width: Int, height: Int) throws {
    let f = HEIFFile(bytes: try libheifOddFile(width: width, height: height))
    let p = try #require(f.primaryItemID)
    guard case .hvcC(let c)? = f.property("hvcC", of: p) else { throw Constructed.Failure(what: "no hvcC") }
    let sps = try #require(HEVCPictureSize(c))
    let decoded = try HeifDecoder.decodePrimarySize(try #require(f.standaloneFile(for: p)))
    #expect(sps.width == decoded.width && sps.height == decoded.height, "\(sps) vs \(decoded)")
    #expect(sps.chromaFormat == 1)
    // libheif 1.15 sets x265's CTU to 64 whatever the preset, halved while the picture has a side shorter than it.
    let trees = min(width, height) >= 64 ? 64 : 32
    #expect(sps.lumaBitDepth == 8 && sps.codingTreeBlockSize == trees, "8 bits, \(trees)-sample trees: \(sps)")
}

/// The depth, coding tree block size and scaling lists the SPS reader gives are the ones x265 was asked for.
@Test(arguments: [(16, 10, true), (32, 8, false), (64, 10, false), (64, 8, true)])
func theSPSGivesTheDepthAndTreeSizeX265Coded(ctu: Int, depth: Int, lists: Bool) throws {
    var s = HeifEncodeSettings()
    s.preset = "ultrafast"
    s.bitDepth = depth
    s.x265 = ["ctu": "\(ctu)"].merging(lists ? ["scaling-list": "default"] : [:]) { a, _ in a }
    let px = (0..<(96 * 80 * 3)).map { ($0 * 7) % 256 }
    let pixels: HeifPixels =
        depth == 8
        ? .rgb8(width: 96, height: 80, samples: px.map { UInt8($0) })
        : .rgb16(width: 96, height: 80, bitDepth: depth, samples: px.map { UInt16($0 * 4) })
    let f = HEIFFile(bytes: try HeifEncoder.encode(pixels, settings: s))
    guard case .hvcC(let c)? = f.property("hvcC", of: try #require(f.primaryItemID)) else {
        throw Constructed.Failure(what: "no hvcC")
    }
    let sps = try #require(HEVCPictureSize(c))
    #expect(sps.lumaBitDepth == depth && sps.codingTreeBlockSize == ctu && sps.scalingLists == lists, "\(sps)")
    // An SPS cut before its coding block sizes (the longest cut that loses them) still gives the picture size.
    let nal = try #require(c.arrays.first { $0.nalType == 33 }?.units.first)
    let cut = (3..<nal.count).reversed().lazy.map { HEVCPictureSize(spsNAL: Array(nal.prefix($0))) }
        .first { $0?.codingTreeBlockSize == nil }
    #expect(cut??.width == sps.width && cut??.height == sps.height, "\(String(describing: cut))")
}

@Test func anOddClapAndAWrongIspeAreWarningsStandaloneAndWhenTheSourceHasThem() throws {
    let odd = try libheifOddFile()
    let alone = try auditBytes(source: nil, output: odd)
    // libheif 1.15 also leaves out the miaf brand (MIAF §7.2.1.2), a third conformance warning of the same file.
    let codes = Set(alone.findings.filter { $0.code.rawValue.hasPrefix("conformance.") }.map(\.code))
    #expect(
        codes == [.conformanceIspeMismatch, .conformanceClapOdd, .conformanceBrandMiafMissing],
        "\(alone.findings)")
    #expect(alone.findings.filter { $0.code.rawValue.hasPrefix("conformance.") }.allSatisfy { $0.severity == .warning })
    let clap = alone.findings.first { $0.code == .conformanceClapOdd }
    #expect(clap?.message.contains("§7.3.6.7") == true)
    // Expected: what libheif decodes the item to alone (64×64: it pads odd sides, and sides under 64 to 64).
    let f = HEIFFile(bytes: odd)
    let p = try #require(f.primaryItemID)
    let d = try HeifDecoder.decodePrimarySize(try #require(f.standaloneFile(for: p)))
    let ispe = alone.findings.first { $0.code == .conformanceIspeMismatch }
    #expect(ispe?.evidence?.expected == "\(d.width)×\(d.height)" && ispe?.evidence?.actual == "63×47")
    let shared = try auditBytes(source: odd, output: odd)
    #expect(
        shared.findings.filter { $0.code.rawValue.hasPrefix("conformance.") }.allSatisfy { $0.severity == .warning })
    #expect(shared.findings.contains { $0.code == .conformanceClapOdd })
}

@Test func aConversionThatIntroducesThemGetsErrors() throws {
    let even = try Constructed.heic()
    #expect(HEIFConformance.problems(HEIFFile(bytes: even)).isEmpty)
    let r = try auditBytes(source: even, output: try libheifOddFile())
    // The odd picture's two problems and libheif's missing miaf brand, none of which the source has.
    let conf = r.findings.filter { $0.code.rawValue.hasPrefix("conformance.") }
    #expect(conf.count == 3 && conf.allSatisfy { $0.severity == .error }, "\(conf)")
}
