import ColorScience
import CorpusKit
import Findings
import HEIF
import Testing

@testable import GainMap

@Test func toneMapDecoderSurvivesHostileBodies() {
    var rng = SplitMix64(seed: 21496)
    var usable = 0
    for i in 0..<4000 {
        var body: [UInt8]
        if i % 2 == 0 {
            body = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !body.isEmpty && i % 4 == 0 { body[0] = 0 }
        } else {
            body = i % 3 == 0 ? Vectors.threeChannels : Vectors.oneChannel
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                body[Int.random(in: 0..<body.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
        }
        let d = ToneMapImage.decode(body)
        if let m = d.usableMetadata {
            usable += 1
            // Whatever the reader accepts, the writer can write back (flags aside) and the reader reads again.
            if m.reservedFlags == 0 && d.image?.layout == .standard && m.writerVersion == 0 {
                let again = try? ToneMapImage(metadata: m).encoded()
                #expect(again.map { ToneMapImage.decode($0).usableMetadata } == m)
            }
        }
        #expect(d.findings.allSatisfy { ($0.offset ?? 0) >= 0 && ($0.offset ?? 0) <= max(body.count, 142) })
    }
    #expect(usable > 100, "mutations should leave many bodies usable: \(usable)")
}

@Test func appleAndAdobeParsersSurviveHostileBytes() {
    var rng = SplitMix64(seed: 2020)
    let note = appleMakerNote(headroom: (101, 100), gain: (1, 200))
    let xmp = Array(AppleGainMapXMP.packet(headroom: 4.5))
    for _ in 0..<2000 {
        var n = note
        for _ in 0..<3 { n[Int.random(in: 14..<n.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
        _ = AppleMakerNote.parse(n)
        let junk = (0..<Int.random(in: 0...120, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        _ = AppleMakerNote.find(inExif: junk)
        _ = AppleMakerNote.find(inExif: [0x4D, 0x4D, 0, 0x2A] + junk)
        _ = AppleMakerNote.find(inExif: [0x49, 0x49, 0x2A, 0] + junk)
        var x = xmp
        let cut = Int.random(in: 0...x.count, using: &rng)
        x = Array(x.prefix(cut))
        if !x.isEmpty { x[Int.random(in: 0..<x.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
        _ = AppleGainMapXMP.parse(x)
        _ = AdobeGainMapXMP.parse(
            x + Array("<a xmlns:h=\"http://ns.adobe.com/hdr-gain-map/1.0/\"><h:GainMapMax><rdf:Seq><rdf:li>".utf8))
    }
}

@Test func adobeXMPBecomesISOMetadata() throws {
    let xmp = """
        <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"
          hdrgm:BaseRenditionIsHDR="True" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="1.5" hdrgm:OffsetSDR="0.015625">
          <hdrgm:GainMapMax><rdf:Seq><rdf:li>1.25</rdf:li><rdf:li>1.5</rdf:li><rdf:li>2</rdf:li></rdf:Seq></hdrgm:GainMapMax>
        </rdf:Description>
        """
    let a = try #require(AdobeGainMapXMP.parse(Array(xmp.utf8)))
    #expect(a.gainMapMax == [1.25, 1.5, 2])
    let m = try #require(a.isoMetadata)
    #expect(m.isMultichannel)
    #expect(m.channels.map(\.max.doubleValue) == [1.25, 1.5, 2])
    #expect(
        m.channels.allSatisfy {
            $0.min.doubleValue == 0 && $0.gamma.doubleValue == 1 && $0.baseOffset == Fraction(1, 64)
        })
    // Base is HDR: base headroom 1.5, alternate 0.
    #expect(m.baseHdrHeadroom.doubleValue == 1.5 && m.alternateHdrHeadroom.doubleValue == 0)
    #expect(GainMapValidation.validate(ToneMapImage(metadata: m)).isEmpty)
    #expect(AdobeGainMapXMP.parse(Array("<x/>".utf8)) == nil)
}

/// A gain-mapped file built in memory (fake bitstreams: the inspector does not decode without a decoder).
func builtGainMapFile(metadata: GainMapMetadata) throws -> (bytes: [UInt8], written: WrittenGainMap) {
    var b = HEIFBuilder()
    let cfg = Property.unknown(type: "hvcC", body: [1, 2, 3])
    let base = b.addCodedImage(
        properties: [(cfg, true), (.ispe(width: 64, height: 48), false), (.pixi(bitsPerChannel: [8, 8, 8]), false)],
        data: [0, 0, 0, 2, 0x26, 0x01])
    b.setPrimary(base)
    let w = try GainMapWriter.add(
        to: &b, baseItemID: base,
        gainMap: CodedGainMapImage(codecConfiguration: cfg, data: [0, 0, 0, 1, 0x26], width: 32, height: 24),
        metadata: metadata)
    return (b.build(), w)
}

@Test func inspectorJudgesABuiltFileWithoutDecoding() throws {
    let meta = oneChannelMeta(min: Fraction(0, 1), max: Fraction(3, 1), ha: UFraction(3, 1))
    let (bytes, w) = try builtGainMapFile(metadata: meta)
    let ins = GainMapInspector.inspect(HEIFFile(bytes: bytes))
    let r = try #require(ins.reports.first)
    #expect(r.parts.map(\.verdict) == [.pass, .pass, .unverified, .pass, .pass], "\(r.parts)")
    #expect(r.part(.data).evidence.contains("present, not decoded"))
    #expect(r.isoMetadata == meta)
    #expect(abs(r.appleHeadroom! - 8) < 1e-5)
    #expect(r.gainMapItemID == w.gainMapItemID)
}

@Test func inspectorFlagsEachBrokenPart() throws {
    let meta = oneChannelMeta(min: Fraction(0, 1), max: Fraction(3, 1), ha: UFraction(3, 1))
    let (bytes, w) = try builtGainMapFile(metadata: meta)
    let file = HEIFFile(bytes: bytes)
    func inspectEdited(_ edit: (inout HEIFBuilder) -> Void) throws -> GainMapReport {
        var b = HEIFBuilder(file: file)
        edit(&b)
        let first = GainMapInspector.inspect(HEIFFile(bytes: b.build())).reports.first
        return try #require(first)
    }
    func codes(_ r: GainMapReport) -> Set<FindingCode> { Set(r.findings.map(\.code)) }
    let base = try #require(file.primaryItemID)
    // Wrong altr order.
    var r = try inspectEdited { b in
        b.setGroups([EntityGroup(type: "altr", id: w.alternativeGroupID, entities: [base, w.toneMapItemID])])
    }
    #expect(codes(r) == [.gainmapAltrOrder] && r.part(.consistency).verdict == .fail)
    // No altr.
    r = try inspectEdited { b in b.setGroups([]) }
    #expect(codes(r) == [.gainmapAltrMissing])
    // No brand.
    r = try inspectEdited { b in b.brands.compatible.removeAll { $0 == "tmap" } }
    #expect(codes(r) == [.gainmapBrandMissing])
    // tmap ispe differs from the base's.
    r = try inspectEdited { b in
        b.removeProperties("ispe", of: w.toneMapItemID)
        b.setProperties(of: w.toneMapItemID, [(.ispe(width: 10, height: 10), false)])
    }
    #expect(codes(r).contains(.gainmapTmapIspeMismatch) && codes(r).contains(.gainmapTmapColrMissing))
    // A real transform on the tmap (libavif rejects it); irot 0 is not reported.
    r = try inspectEdited { b in
        b.setProperties(
            of: w.toneMapItemID,
            [
                (.ispe(width: 64, height: 48), false),
                (
                    .colrNCLX(
                        NCLX(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true)),
                    false
                ), (.irot(quarterTurns: 1), true),
            ])
    }
    #expect(codes(r) == [.gainmapTmapTransform] && r.part(.consistency).verdict == .warn)
    r = try inspectEdited { b in
        b.setProperties(
            of: w.toneMapItemID,
            [
                (.ispe(width: 64, height: 48), false),
                (
                    .colrNCLX(
                        NCLX(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true)),
                    false
                ), (.irot(quarterTurns: 0), true),
            ])
    }
    #expect(codes(r).isEmpty)
    // Gain map without pixi, colr, ispe.
    r = try inspectEdited { b in
        for t: FourCC in ["pixi", "colr", "ispe"] { b.removeProperties(t, of: w.gainMapItemID) }
    }
    #expect(codes(r) == [.gainmapDescriptionPixiMissing, .gainmapDescriptionIspeMissing, .gainmapColrMissing])
    #expect(r.part(.description).verdict == .fail && r.part(.colour).verdict == .warn)
    // Empty gain-map data.
    r = try inspectEdited { b in b.replacePayload(of: w.gainMapItemID, with: []) }
    #expect(codes(r) == [.gainmapDataMissing] && r.part(.data).verdict == .fail)
    // Apple XMP gone: the ISO form still stands, the Apple view fails its metadata.
    r = try inspectEdited { b in b.removeItem(w.appleXMPItemID!) }
    #expect(codes(r) == [.gainmapAppleXmpMissing])
    // Apple headroom that disagrees with the tmap.
    r = try inspectEdited { b in b.replacePayload(of: w.appleXMPItemID!, with: AppleGainMapXMP.packet(headroom: 2)) }
    #expect(codes(r) == [.gainmapHeadroomMismatch])
    // The tmap names a gain map that does not exist: description, data and dimg all say so.
    r = try inspectEdited { b in
        b.setReferences(
            b.references.map {
                var x = $0
                if x.type == "dimg" { x.to = [base, 999] }
                return x
            })
    }
    #expect(
        codes(r).isSuperset(of: [.gainmapDescriptionItemMissing, .gainmapDataMissing, .gainmapDimgInvalid]),
        "\(r.findings)")
    #expect(r.part(.description).verdict == .fail && r.part(.data).verdict == .fail)
    // A brand without any tmap item is a file-level finding.
    var b = HEIFBuilder(file: file)
    b.removeItem(w.toneMapItemID)
    let ins = GainMapInspector.inspect(HEIFFile(bytes: b.build()))
    #expect(ins.findings.map(\.code) == [.gainmapBrandWithoutTmap])
    #expect(ins.reports.map(\.forms) == [[.appleAux]])
    // A constant map is caught when decoding; an undecodable one too.
    let constant = GainMapInspector.inspect(file) { _ in
        DecodedPlane(width: 32, height: 24, bitDepth: 8, samples: .init(repeating: 7, count: 768))
    }
    #expect(constant.reports[0].findings.map(\.code) == [.gainmapDataConstant])
    struct Boom: Error {}
    let broken = GainMapInspector.inspect(file) { _ in throw Boom() }
    #expect(broken.reports[0].findings.map(\.code) == [.gainmapDataUndecodable])
}

@Test func inspectorSurvivesTruncatedFiles() throws {
    let (bytes, _) = try builtGainMapFile(metadata: oneChannelMeta(min: Fraction(0, 1), max: Fraction(3, 1)))
    for n in stride(from: 0, to: bytes.count, by: 7) {
        _ = GainMapInspector.inspect(HEIFFile(bytes: Array(bytes.prefix(n))))
    }
}
