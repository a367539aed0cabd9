import CorpusKit
import Findings
import Foundation
import HEIF
import TestSupport
import Testing

/// Reading what HEIF allows and a strict reader once refused: properties of entity groups, sequence-only files,
/// and orientation through chained `iden` derivations.
private func corpusFile(_ name: String) throws -> HEIFFile {
    let url = Repo.root.appendingPathComponent("Corpus/" + ConformanceCases.folder + "/" + name)
    return HEIFFile(bytes: [UInt8](try Data(contentsOf: url)))
}

private func codes(_ f: HEIFFile) -> [String] { f.findings.map(\.code.rawValue) }

@Test func ipmaMayNameAnEntityGroupButNotAnIdNobodyHas() throws {
    let f = try corpusFile("group-properties.heic")
    let altr = try #require(f.groups.first { $0.type == "altr" })
    #expect(!f.properties(of: altr.id).isEmpty, "the group's properties are read")
    #expect(!codes(f).contains(FindingCode.containerIpmaUnknownItem.rawValue), "\(f.findings)")
    // The builder keeps them through an edit.
    let again = HEIFFile(bytes: HEIFBuilder(file: f).build())
    #expect(again.properties(of: altr.id).map(\.property.type) == ["udes"])
    // An id that is neither an item nor a group is still reported.
    var b = HEIFBuilder(file: f)
    b.setGroupProperties(of: 999, [(.unknown(type: "udes", body: [0, 0, 0, 0, 0, 0, 0, 0]), false)])
    #expect(codes(HEIFFile(bytes: b.build())).contains(FindingCode.containerIpmaUnknownItem.rawValue))
}

@Test func aSequenceOnlyFileIsNoContainerError() throws {
    let f = try corpusFile("sequence-only.heic")
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.isImageSequence)
    #expect(f.sequenceDescription == "msf1 brand, pict track of hvc1 samples")
    // Without its moov it is a HEIF that lost its meta.
    let ftyp = Array(f.bytes[f.boxes[0].range])
    let bare = HEIFFile(bytes: ftyp)
    #expect(codes(bare).contains(FindingCode.containerMetaMissing.rawValue))
    #expect(!bare.isImageSequence)
}

@Test func orientationComposesThroughChainedIdentityDerivations() throws {
    let one = try corpusFile("iden-primary.heic")
    #expect(one.orientation(of: try #require(one.primaryItemID)).exif == 8)
    let chain = try corpusFile("iden-chain-rotations.heic")
    let p = try #require(chain.primaryItemID)
    #expect(chain.item(p)?.type == "iden")
    // Each iden alone says 90° anticlockwise (Exif 8); composed, 180° (Exif 3).
    #expect(chain.properties(of: p).contains { $0.property == .irot(quarterTurns: 1) })
    #expect(chain.orientation(of: p).exif == 3)
}
