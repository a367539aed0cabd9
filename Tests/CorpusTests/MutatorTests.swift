import Foundation
import HEIF
import Testing

@testable import CorpusKit

/// Each mutation of the committed good HEIC is produced and really contains the failure its code names.
@Test func everyMutationIsProducedAndCarriesItsFailure() throws {
    let goodBytes = try readBytes(corpusRoot.appendingPathComponent("heic/good.heic"))
    let good = HEIFFile(bytes: goodBytes)
    let primary = try #require(good.primaryItemID)
    // The input really is good: a gain map in both forms, Exif with GPS and DateTimeOriginal, nclx.
    #expect(!good.toneMapItems.isEmpty)
    #expect(good.appleGainMap(of: primary) != nil)
    let ms = Mutator.mutations(of: goodBytes)
    #expect(ms.map(\.code) == Mutator.codes)
    let skipped = ms.filter { !$0.applied }.map { "\($0.code): \($0.note)" }
    #expect(skipped.isEmpty, "\(skipped)")
    func file(_ code: String) throws -> HEIFFile {
        HEIFFile(bytes: try #require(ms.first { $0.code == code }?.bytes, "\(code) produced no file"))
    }
    func exifTags(_ f: HEIFFile) throws -> TIFFIFD {
        let exif = try #require(f.metadataItems(describing: f.primaryItemID!).first { f.item($0)?.isExif == true })
        let p = try #require(f.payload(of: exif))
        let start = try #require(ExifEdit.tiffStart(p))
        return try #require(TIFFReader(bytes: Array(p[start...]))?.readTree())
    }
    let goodExif = try exifTags(good)
    #expect(goodExif[34853] != nil)

    let noGain = try file("gainmap.missing")
    #expect(noGain.toneMapItems.isEmpty && noGain.appleGainMap(of: primary) == nil)
    #expect(noGain.item(primary) != nil)

    let noXMP = try file("gainmap.apple.xmp-missing")
    let aux = try #require(noXMP.appleGainMap(of: primary))
    #expect(noXMP.metadataItems(describing: aux).allSatisfy { noXMP.item($0)?.isXMP != true })

    let noColr = try file("gainmap.tmap.colr-missing")
    let tmap = try #require(noColr.toneMapItems.first)
    #expect(!noColr.properties(of: tmap).contains { $0.property.type == "colr" })

    let noData = try file("gainmap.data-missing")
    let noDataTmap = try #require(noData.toneMapItems.first)
    let gm = try #require(noData.toneMapInputs(of: noDataTmap)?.gainMap)
    #expect((noData.payloadLength(of: gm) ?? 0) == 0)

    #expect(try exifTags(try file("metadata.lost"))[34853] == nil)
    let changed = try exifTags(try file("metadata.changed"))
    guard case .ifd(let exifIFD)? = changed[34665] else {
        Issue.record("no Exif IFD")
        return
    }
    #expect(exifIFD[36867]?.string == "2001:02:03 04:05:06")

    let twice = try file("orientation.double-rotation")
    #expect(twice.properties(of: primary).contains { $0.property == .irot(quarterTurns: 3) })
    #expect(try exifTags(twice)[274] == .shorts([6]))

    let noNCLX = try file("signalling.nclx-missing")
    #expect(!noNCLX.properties(of: primary).contains { if case .colrNCLX = $0.property { true } else { false } })

    let cut = try #require(ms.first { $0.code == "container.truncated" }?.bytes)
    #expect(cut.count < goodBytes.count && Array(goodBytes.prefix(cut.count)) == cut)
    #expect(!HEIFFile(bytes: cut).findings.isEmpty)

    #expect(ms.first { $0.code == "output.missing" }?.bytes == nil)
}

/// Exif edits keep everything else: removing GPS leaves DateTimeOriginal and the MakerNote intact.
@Test func exifEditsKeepTheRest() throws {
    let spec = Corpus.tiny[0].spec
    let tiff = Corpus.exifTIFF(spec)
    let noGPS = try #require(ExifEdit.removeGPS(tiff))
    let tree = try #require(TIFFReader(bytes: noGPS)?.readTree())
    #expect(tree[34853] == nil)
    guard case .ifd(let exif)? = tree[34665] else {
        Issue.record("no Exif IFD")
        return
    }
    #expect(exif[36867]?.string == spec.capture.dateTimeOriginal)
    #expect(exif[37500] == .undefined(DNGWriter.makerNote(seed: spec.seed)))
    #expect(ExifEdit.removeGPS(noGPS) == nil)
}

/// The mutator never traps on damaged input: truncations and byte flips of the good HEIC, and non-HEIF bytes.
@Test func mutatorSurvivesDamagedInput() throws {
    let good = try readBytes(corpusRoot.appendingPathComponent("heic/good.heic"))
    var rng = SplitMix64(seed: 11)
    var produced = 0
    for n in stride(from: 0, to: good.count, by: max(1, good.count / 40)) {
        produced += Mutator.mutations(of: Array(good.prefix(n))).filter { $0.bytes != nil }.count
    }
    for _ in 0..<40 {
        var m = good
        for _ in 0..<6 { m[Int(rng.next() % UInt64(m.count))] = UInt8(truncatingIfNeeded: rng.next()) }
        produced += Mutator.mutations(of: m).filter { $0.bytes != nil }.count
    }
    let junk = Mutator.mutations(of: Array("definitely not a HEIF file".utf8))
    #expect(junk.allSatisfy { !$0.applied || $0.code == "output.missing" })
    #expect(produced > 0)
}
