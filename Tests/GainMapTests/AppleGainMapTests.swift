import Foundation
import Testing

@testable import GainMap

@Test func xmpAttributeFormIsRead() {
    let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"
           xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/"
           HDRGainMap:HDRGainMapVersion="131072" HDRGainMap:HDRGainMapHeadroom = '6.902454'
           apdi:AuxiliaryImageType="urn:com:apple:photo:2020:aux:hdrgainmap"/></rdf:RDF></x:xmpmeta>
        """
    let v = AppleGainMapXMP.parse(Array(xmp.utf8))
    #expect(v.version == 131072)
    #expect(v.headroom == 6.902454)
    #expect(v.declaresNamespace)
    #expect(v.auxiliaryImageType == AppleGainMap.auxiliaryURN)
}

@Test func xmpElementFormWithAnotherPrefixIsRead() {
    let xmp = """
        <rdf:Description xmlns:gm='http://ns.apple.com/HDRGainMap/1.0/'>
          <gm:HDRGainMapVersion>65536</gm:HDRGainMapVersion>
          <gm:HDRGainMapHeadroom> 4.880772 </gm:HDRGainMapHeadroom>
          <HDRGainMap:HDRGainMapHeadroom>9</HDRGainMap:HDRGainMapHeadroom>
        </rdf:Description>
        """
    let v = AppleGainMapXMP.parse(Array(xmp.utf8))
    #expect(v.version == 65536)
    #expect(v.headroom == 4.880772)  // the unbound "HDRGainMap:" prefix is not this namespace
}

@Test func xmpWithoutTheNamespaceHasNothing() {
    let v = AppleGainMapXMP.parse(Array("<x:xmpmeta HDRGainMapVersion=\"1\"/>".utf8))
    #expect(v.version == nil && v.headroom == nil && !v.declaresNamespace)
    // Garbage and truncation never crash.
    #expect(AppleGainMapXMP.parse([0xFF, 0x00, 0x3C]).version == nil)
    let cut = "<a xmlns:h=\"http://ns.apple.com/HDRGainMap/1.0/\" h:HDRGainMapHeadroom=\"4."
    #expect(AppleGainMapXMP.parse(Array(cut.utf8)).headroom == nil)
}

@Test func generatedXMPReadsBack() {
    let p = AppleGainMapXMP.packet(headroom: 4.5)
    let v = AppleGainMapXMP.parse(p)
    #expect(v.version == 131072 && v.headroom == 4.5 && v.auxiliaryImageType == AppleGainMap.auxiliaryURN)
}

/// An Apple MakerNote with tags 0x0021 and 0x0030 as SRATIONAL, offsets relative to the MakerNote start.
func appleMakerNote(headroom: (Int32, Int32), gain: (Int32, Int32)) -> [UInt8] {
    var b: [UInt8] = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)  // 14 bytes
    func u16(_ v: UInt16) { b += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: UInt32) { b += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    u16(3)  // entries
    u16(0x0001)
    u16(9)
    u32(1)
    u32(14)  // an unrelated SLONG
    u16(0x0021)
    u16(10)
    u32(1)
    u32(16 + 3 * 12 + 4)
    u16(0x0030)
    u16(10)
    u32(1)
    u32(16 + 3 * 12 + 12)
    u32(0)  // next IFD
    u32(UInt32(bitPattern: headroom.0))
    u32(UInt32(bitPattern: headroom.1))
    u32(UInt32(bitPattern: gain.0))
    u32(UInt32(bitPattern: gain.1))
    return b
}

@Test func makerNoteTagsAndHeadroomFormula() throws {
    let note = try #require(AppleMakerNote.parse(appleMakerNote(headroom: (101, 100), gain: (1, 200))))
    #expect(note.hdrHeadroom == 1.01)
    #expect(note.hdrGain == 0.005)
    // maker33 ≥ 1, maker48 ≤ 0.01 → −70·0.005 + 3 = 2.65 stops.
    #expect(abs(note.headroomStops! - 2.65) < 1e-12)
    #expect(abs(note.headroom! - exp2(2.65)) < 1e-9)
    // The other three branches.
    #expect(abs(AppleGainMap.headroomStops(maker33: 0.5, maker48: 0.005) - 1.7) < 1e-12)
    #expect(abs(AppleGainMap.headroomStops(maker33: 0.5, maker48: 1.0) - 1.5) < 1e-12)
    #expect(abs(AppleGainMap.headroomStops(maker33: 1.5, maker48: 1.0) - 2.0) < 1e-12)
    // Never below 0 stops.
    #expect(AppleGainMap.headroomStops(maker33: 1.5, maker48: 8.0) == 0)
}

@Test func makerNoteParserIsBounded() {
    let good = appleMakerNote(headroom: (1, 1), gain: (1, 1))
    for n in 0..<good.count { _ = AppleMakerNote.parse(Array(good.prefix(n))) }
    #expect(AppleMakerNote.parse(Array("Nikon\0".utf8) + [UInt8](repeating: 0, count: 20)) == nil)
    var hostile = good
    hostile[14] = 0xFF
    hostile[15] = 0xFF  // 65535 entries claimed
    #expect(AppleMakerNote.parse(hostile) != nil)
}

@Test func makerNoteIsFoundInsideExif() throws {
    // Little-endian TIFF: IFD0 with ExifIFD pointer; ExifIFD with MakerNote (UNDEFINED) pointing at the blob.
    let mn = appleMakerNote(headroom: (1, 2), gain: (8, 1))
    var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
    func u16(_ v: Int) { t += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: Int) { t += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
    u16(1)
    u16(0x8769)
    u16(4)
    u32(1)
    u32(26)
    u32(0)  // IFD0 at 8 → ExifIFD at 26
    u16(1)
    u16(0x927C)
    u16(7)
    u32(mn.count)
    u32(44)
    u32(0)  // ExifIFD at 26 → MakerNote at 44
    #expect(t.count == 44)
    t += mn
    // HEIF Exif item: 4-byte tiff_header_offset (6) then "Exif\0\0" then TIFF.
    let item: [UInt8] = [0, 0, 0, 6] + Array("Exif".utf8) + [0, 0] + t
    for blob in [t, item, Array("Exif".utf8) + [0, 0] + t] {
        let note = try #require(AppleMakerNote.find(inExif: blob))
        #expect(note.hdrHeadroom == 0.5 && note.hdrGain == 8)
        #expect(note.headroomStops == AppleGainMap.headroomStops(maker33: 0.5, maker48: 8))
    }
    for n in stride(from: 0, to: item.count, by: 3) { _ = AppleMakerNote.find(inExif: Array(item.prefix(n))) }
}

@Test func appleHeadroomMapsToISO() throws {
    let m = try #require(AppleGainMap.isoMetadata(fromHeadroom: 4))
    #expect(m.alternateHdrHeadroom == UFraction(2, 1) && m.baseHdrHeadroom == UFraction(0, 1))
    #expect(
        m.channels == [
            GainMapChannel(
                min: Fraction(0, 1), max: Fraction(2, 1), gamma: UFraction(1, 1), baseOffset: Fraction(0, 1),
                alternateOffset: Fraction(0, 1))
        ])
    #expect(GainMapValidation.validate(ToneMapImage(metadata: m)).isEmpty)
    #expect(abs(AppleGainMap.isoHeadroom(fromLinear: 6.902454) - 2.7871093683) < 1e-9)
    #expect(AppleGainMap.linearHeadroom(fromISO: 2) == 4)
    #expect(AppleGainMap.isoMetadata(fromHeadroom: 0.5) == nil)
}
