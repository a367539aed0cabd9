import Testing

@testable import HEIF

@Test func simpleFileParsesCleanly() {
    let f = HEIFFile(bytes: V.simpleFile())
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.brands?.major == "heic")
    #expect(f.brands?.compatible == ["mif1", "heic"])
    #expect(f.primaryItemID == 1)
    #expect(f.items.map(\.type) == ["hvc1"])
    #expect(f.payload(of: 1) == [1, 2, 3, 4, 5])
    #expect(f.imageSize(of: 1)! == (64, 48))
    #expect(f.boxes.map(\.type) == ["ftyp", "meta", "mdat"])
    #expect(f.boxes[1].children.map(\.type) == ["hdlr", "pitm", "iinf", "iloc", "iprp"])
    #expect(f.serialize() == f.bytes)
}

@Test func fourCCDescribesUnprintableBytes() {
    #expect(FourCC("hvc1").description == "hvc1")
    #expect(FourCC(0x0041_4243).description == "\\x00ABC")
    #expect(FourCC(string: "abc") == nil)
}

/// Builds a file from meta children and an mdat body, with the mdat body at a known offset.
/// `entries` returns the meta children given the mdat body offset.
func fileWith(_ ftyp: [UInt8] = V.ftyp(), mdat: [UInt8], _ children: (Int) -> [[UInt8]]) -> [UInt8] {
    let m0 = V.meta(children(0))
    let off = ftyp.count + m0.count + 8
    return ftyp + V.meta(children(off)) + V.box("mdat", mdat)
}

@Test(arguments: [(0, 4, 4, 0, 0), (1, 8, 8, 0, 0), (1, 4, 4, 4, 4), (2, 8, 4, 8, 8), (1, 0, 4, 4, 0)])
func ilocVersionsAndFieldSizes(_ layout: (Int, Int, Int, Int, Int)) {
    let (version, offSize, lenSize, baseSize, idxSize) = layout
    let payload: [UInt8] = Array(0..<20)
    let bytes = fileWith(mdat: payload) { off in
        // Two extents: bytes 10..<20 then 0..<10, relative to a base offset when there is a base field.
        let base = baseSize > 0 ? off : 0
        let e: [(Int, Int)] = offSize == 0 ? [(0, 20)] : [(off - base + 10, 10), (off - base, 10)]
        return [
            V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1")]),
            V.iloc(
                [(1, 0, e)], version: version, offsetSize: offSize, lengthSize: lenSize, baseSize: baseSize,
                indexSize: idxSize, base: base),
            V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false)])])),
        ]
    }
    let f = HEIFFile(bytes: bytes)
    #expect(
        f.ilocLayout
            == ILocLayout(
                version: UInt8(version), offsetSize: offSize, lengthSize: lenSize, baseOffsetSize: baseSize,
                indexSize: version >= 1 ? idxSize : 0))
    if offSize == 0 {
        // No offset field: the extent starts at the base offset.
        #expect(f.payload(of: 1) == Array(payload))
    } else {
        #expect(f.payload(of: 1) == Array(payload[10..<20]) + Array(payload[0..<10]))
        #expect(f.locations[1]?.extents.count == 2)
        if idxSize > 0 && version >= 1 { #expect(f.locations[1]?.extents.map(\.index) == [1, 2]) }
    }
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.serialize() == bytes)
}

@Test func ilocConstructionMethodOneReadsIdat() {
    let grid = ImageGrid.payload(rows: 1, columns: 1, outputWidth: 300, outputHeight: 70_000)
    let bytes = fileWith(mdat: [9, 9, 9]) { off in
        [
            V.hdlr, V.pitm(2), V.iinf([V.infe(1, "hvc1", hidden: true), V.infe(2, "grid")]),
            V.iloc([(1, 0, [(off, 3)]), (2, 1, [(4, grid.count)])]),
            V.iref([("dimg", 2, [1])]),
            V.iprp([V.ispe(300, 70_000)], V.ipma([(1, [(1, false)]), (2, [(1, false)])])),
            V.box("idat", [0xEE, 0xEE, 0xEE, 0xEE] + grid),
        ]
    }
    let f = HEIFFile(bytes: bytes)
    #expect(f.payload(of: 2) == grid)
    #expect(
        f.grid(of: 2)
            == ImageGrid(rows: 1, columns: 1, outputWidth: 300, outputHeight: 70_000, tiles: [1], largeFields: true))
    #expect(f.findings.isEmpty, "\(f.findings)")
}

@Test(arguments: [0, 1])
func irefSixteenAndThirtyTwoBitIDs(_ version: Int) {
    let bytes = fileWith(mdat: [1]) { off in
        [
            V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1"), V.infe(2, "Exif"), V.infe(3, "hvc1")]),
            V.iloc([(1, 0, [(off, 1)]), (2, 0, [(off, 1)]), (3, 0, [(off, 1)])]),
            V.iref([("cdsc", 2, [1]), ("thmb", 3, [1]), ("auxl", 3, [1])], version: version),
            V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false)]), (3, [(1, false)])])),
        ]
    }
    let f = HEIFFile(bytes: bytes)
    #expect(f.irefVersion == UInt8(version))
    #expect(f.references.map(\.type) == ["cdsc", "thmb", "auxl"])
    #expect(f.references(from: 3).count == 2)
    #expect(f.references(to: 1, type: "cdsc").map(\.from) == [2])
    #expect(f.thumbnails(of: 1) == [3])
    #expect(f.metadataItems(describing: 1) == [2])
    #expect(f.findings.isEmpty, "\(f.findings)")
}

@Test(arguments: [(0, false), (0, true), (1, false), (1, true)])
func ipmaVersionsAndIndexWidths(_ layout: (Int, Bool)) {
    let (version, wide) = layout
    let bytes = fileWith(mdat: [1]) { off in
        [
            V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1")]), V.iloc([(1, 0, [(off, 1)])]),
            V.iprp(
                [V.ispe(5, 6), V.box("irot", [3])],
                V.ipma([(1, [(1, false), (2, true)])], version: version, wide: wide)),
        ]
    }
    let f = HEIFFile(bytes: bytes)
    let props = f.properties(of: 1)
    #expect(props.map(\.index) == [1, 2])
    #expect(props.map(\.essential) == [false, true])
    #expect(props.map(\.property) == [.ispe(width: 5, height: 6), .irot(quarterTurns: 3)])
    #expect(f.orientation(of: 1).exif == 6)
    #expect(f.findings.isEmpty, "\(f.findings)")
}

@Test func largesizeAndSizeZeroBoxes() {
    let ft = V.ftyp()
    let free = V.u32(1) + V.cc("free") + V.u64(16 + 3) + [7, 7, 7]
    let mdatToEnd = V.u32(0) + V.cc("mdat") + [1, 2, 3, 4]
    let f = HEIFFile(bytes: ft + free + mdatToEnd)
    #expect(f.boxes.map(\.type) == ["ftyp", "free", "mdat"])
    #expect(f.boxes[1].headerSize == 16 && f.boxes[1].size == 19)
    #expect(f.boxes[2].extendsToEnd && f.boxes[2].size == 12)
    #expect(f.mdat == [(ft.count + 19 + 8)..<(ft.count + 19 + 12)])
    #expect(f.findings.map(\.code) == [.containerMetaMissing])
    #expect(f.serialize() == f.bytes)
}

@Test func truncatedBoxBecomesAFindingWithItsOffset() {
    let full = V.simpleFile(payload: Array(repeating: 5, count: 100))
    let cut = Array(full.prefix(full.count - 40))
    let f = HEIFFile(bytes: cut)
    let mdatOffset = full.count - 108
    let trunc = f.findings.first { $0.code == .containerBoxTruncated }
    #expect(trunc?.offset == mdatOffset)
    let past = f.findings.first { $0.code == .containerIlocExtentPastEof }
    #expect(past?.offset == mdatOffset + 8)
    #expect(f.payload(of: 1) == nil)
    #expect(f.serialize() == cut)
    // Every prefix of a valid file parses without trapping, and round-trips.
    for n in 0..<full.count {
        let g = HEIFFile(bytes: Array(full.prefix(n)))
        #expect(g.serialize() == Array(full.prefix(n)))
    }
}

@Test func infeVersionsAndMimeItems() {
    let infe3 = V.full("infe", 3, 1, V.u32(70_000) + V.u16(0) + V.cc("hvc1") + V.cc("tile") + [0])
    let infe0 = V.full("infe", 0, 0, V.u16(5) + V.u16(0) + V.cc("name") + [0] + V.cc("text/plain") + [0])
    let xmp = V.infe(6, "mime", hidden: true, contentType: "application/rdf+xml")
    let f = HEIFFile(bytes: V.ftyp() + V.meta([V.hdlr, V.iinf([infe3, infe0, xmp])]))
    #expect(f.items.map(\.id) == [70_000, 5, 6])
    #expect(f.item(70_000)?.hidden == true && f.item(70_000)?.name == "tile" && f.item(70_000)?.infeVersion == 3)
    #expect(f.item(5)?.type == "mime" && f.item(5)?.contentType == "text/plain")
    #expect(f.item(6)?.isXMP == true)
    #expect(f.xmpItems == [6])
}

@Test func exifTIFFSkipsTheDeclaredHeaderOffset() {
    var b = HEIFBuilder()
    let img = b.addCodedImage(properties: [(.ispe(width: 1, height: 1), false)], data: [1])
    b.setPrimary(img)
    let apple = b.addItem(Item(id: 0, type: "Exif"), payload: [0, 0, 0, 6] + Array("Exif\0\0".utf8) + Samples.tiff)
    b.addReference(type: "cdsc", from: apple, to: [img])
    let f = HEIFFile(bytes: b.build())
    #expect(f.exifTIFF(of: apple) == Samples.tiff)
    #expect(f.exifItems == [apple])
    #expect(!f.findings.contains { $0.code == .containerExifBadOffset })
}
