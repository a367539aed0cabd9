import ColorScience
import Testing

@testable import HEIF

@Test func builtGainMapFileReadsBackCompletely() throws {
    let (b, ids) = Samples.gainMapBuilder()
    let bytes = b.build()
    let f = HEIFFile(bytes: bytes)
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.boxes.map(\.type) == ["ftyp", "meta", "mdat"])
    #expect(f.boxes[1].children.map(\.type) == ["hdlr", "pitm", "iinf", "iloc", "iref", "iprp", "idat", "grpl"])
    let grid = ids["grid"]!
    #expect(f.primaryItemID == grid)
    let g = try #require(f.grid(of: grid))
    #expect(g.rows == 1 && g.columns == 2 && g.outputWidth == 128 && g.outputHeight == 64)
    #expect(g.tiles == [ids["t1"]!, ids["t2"]!])
    #expect(f.locations[grid]?.constructionMethod == 1)
    #expect(f.locations[ids["t1"]!]?.constructionMethod == 0)
    #expect(f.payload(of: ids["t2"]!) == [0, 0, 0, 2, 0x26, 0x02])
    #expect(f.appleGainMap(of: grid) == ids["gm"])
    #expect(f.auxiliaryType(of: ids["gm"]!) == HEIFFile.appleGainMapURN)
    #expect(f.toneMapItems == [ids["tmap"]!])
    let inputs = try #require(f.toneMapInputs(of: ids["tmap"]!))
    #expect(inputs.base == grid && inputs.gainMap == ids["gm"]!)
    #expect(f.groups.map(\.type) == ["altr"])
    #expect(f.groups[0].entities == [ids["tmap"]!, grid])
    #expect(f.groups[0].id == ids["altr"]!)
    #expect(f.thumbnails(of: grid) == [ids["thumb"]!])
    #expect(f.metadataItems(describing: grid) == [ids["exif"]!, ids["xmp"]!])
    #expect(f.exifTIFF(of: ids["exif"]!) == Samples.tiff)
    #expect(f.payload(of: ids["exif"]!) == [0, 0, 0, 0] + Samples.tiff)
    #expect(f.xmp(of: ids["xmp"]!) == Samples.xmp)
    #expect(f.item(ids["xmp"]!)?.contentType == "application/rdf+xml")
    #expect(f.orientation(of: grid).exif == 6)
    #expect(f.bitDepth(of: grid) == 8)
    #expect(f.chromaFormat(of: ids["gm"]!) == 0)
    #expect(f.item(ids["gm"]!)?.hidden == true)
    #expect(f.serialize() == bytes)
}

@Test func builderChoosesSmallestVersionsAndSharesProperties() {
    let (b, _) = Samples.simpleBuilder()
    let f = HEIFFile(bytes: b.build())
    #expect(f.ilocLayout == ILocLayout(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0))
    #expect(f.irefVersion == 0)
    let ipma = f.boxes[1].child("iprp")!.child("ipma")!
    #expect(f.bytes[ipma.offset + 8] == 0, "ipma version 0 for 16-bit ids")
    #expect(f.bytes[ipma.offset + 11] == 0, "ipma flags 0 for 7-bit indices")
    // Two items with the same ispe share one ipco entry.
    var b2 = HEIFBuilder()
    let a = b2.addCodedImage(properties: [(Samples.hvcC(), true), (.ispe(width: 8, height: 8), false)], data: [1])
    let c = b2.addCodedImage(properties: [(Samples.hvcC(), true), (.ispe(width: 8, height: 8), false)], data: [2])
    b2.setPrimary(a)
    let f2 = HEIFFile(bytes: b2.build())
    #expect(f2.propertyBoxes.count == 2)
    #expect(f2.properties(of: a).map(\.index) == f2.properties(of: c).map(\.index))
}

@Test func builderUsesWideFieldsWhenValuesNeedThem() {
    var b = HEIFBuilder()
    var props: [(Property, essential: Bool)] = [(.ispe(width: 1, height: 1), false)]
    for i in 0..<130 { props.append((.unknown(type: "zzzz", body: [UInt8(i)]), false)) }
    let big = b.addItem(Item(id: 70_000, type: "hvc1"), properties: props, payload: [9, 9])
    let small = b.addCodedImage(properties: [(.ispe(width: 2, height: 2), false)], data: [7])
    b.addReference(type: "thmb", from: small, to: [big])
    b.setPrimary(big)
    let f = HEIFFile(bytes: b.build())
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.ilocLayout?.version == 2)
    #expect(f.irefVersion == 1)
    #expect(f.item(big)?.infeVersion == 3)
    #expect(f.properties(of: big).count == 131)
    #expect(f.properties(of: big).last?.index == 131, "15-bit indices")
    #expect(f.payload(of: big) == [9, 9])
    #expect(f.references(from: small, type: "thmb").first?.to == [big])
    #expect(f.primaryItemID == 70_000)
}

@Test func transformsComeAfterIspeAndAreEssential() {
    var b = HEIFBuilder()
    let id = b.addCodedImage(
        properties: [
            (.irot(quarterTurns: 1), false), (Samples.hvcC(), true), (.imir(axis: 0), false),
            (.ispe(width: 4, height: 4), false),
        ],
        data: [1])
    b.setPrimary(id)
    let f = HEIFFile(bytes: b.build())
    #expect(f.properties(of: id).map(\.property.type) == ["hvcC", "ispe", "irot", "imir"])
    let transforms = f.properties(of: id).filter { $0.property.isTransformative }
    #expect(transforms.count == 2 && transforms.allSatisfy { $0.essential })
    #expect(f.findings.isEmpty, "\(f.findings)")
}

@Test(arguments: 1...8)
func orientationRoundTripsThroughIrotImir(_ exif: Int) {
    let (b, ids) = Samples.gainMapBuilder(orientation: exif)
    let f = HEIFFile(bytes: b.build())
    #expect(f.orientation(of: ids["grid"]!).exif == exif)
    #expect(f.findings.isEmpty)
}

@Test func knownOrientationProperties() {
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 1) == [])
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 6) == [.irot(quarterTurns: 3)])
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 8) == [.irot(quarterTurns: 1)])
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 3) == [.irot(quarterTurns: 2)])
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 2) == [.imir(axis: 1)])
    #expect(HEIFFile.transformProperties(forEXIFOrientation: 4) == [.imir(axis: 0)])
}

@Test func editingAParsedFileRemovesAndReplaces() throws {
    let (b, ids) = Samples.gainMapBuilder()
    let original = HEIFFile(bytes: b.build())
    var e = HEIFBuilder(file: original)
    // Unchanged: same model.
    let same = HEIFFile(bytes: e.build())
    #expect(
        same.items
            == original.items.map {
                var i = $0
                i.offset = same.item($0.id)?.offset
                return i
            })
    #expect(same.references.map(\.to) == original.references.map(\.to))
    for it in original.items { #expect(same.payload(of: it.id) == original.payload(of: it.id)) }
    // Remove the tmap: its dimg goes, the altr group loses it.
    e.removeItem(ids["tmap"]!)
    e.replacePayload(of: ids["xmp"]!, with: Array("<new/>".utf8))
    e.removeProperties("irot", of: ids["grid"]!)
    let edited = HEIFFile(bytes: e.build())
    #expect(edited.toneMapItems.isEmpty)
    #expect(edited.references(from: ids["tmap"]!).isEmpty)
    #expect(edited.groups.first?.entities == [ids["grid"]!])
    #expect(edited.xmp(of: ids["xmp"]!) == Array("<new/>".utf8))
    #expect(edited.orientation(of: ids["grid"]!).exif == 1)
    #expect(edited.findings.map(\.code).contains(.containerTmapBrandWithoutItem))
}

@Test func standaloneFileWrapsOneItemOrAGrid() throws {
    let (b, ids) = Samples.gainMapBuilder()
    let f = HEIFFile(bytes: b.build())
    let gm = HEIFFile(bytes: try #require(f.standaloneFile(for: ids["gm"]!)))
    #expect(gm.findings.isEmpty, "\(gm.findings)")
    #expect(gm.items.count == 1)
    let p = try #require(gm.primaryItemID)
    #expect(gm.payload(of: p) == f.payload(of: ids["gm"]!))
    #expect(gm.properties(of: p).map(\.property.type) == ["hvcC", "ispe"])
    #expect(gm.properties(of: p).first?.essential == true)
    let grid = HEIFFile(bytes: try #require(f.standaloneFile(for: ids["grid"]!)))
    #expect(grid.findings.isEmpty, "\(grid.findings)")
    let gp = try #require(grid.primaryItemID)
    #expect(grid.grid(of: gp)?.tiles.count == 2)
    #expect(grid.grid(of: gp)?.tiles.allSatisfy { grid.item($0)?.hidden == true } == true)
    #expect(grid.colours(of: gp).count == 1)
    #expect(grid.orientation(of: gp).exif == 1)
    #expect(f.standaloneFile(for: ids["tmap"]!) == nil)
    #expect(f.standaloneFile(for: 999) == nil)
}

@Test func propertiesEncodeAndParseBack() {
    let props: [Property] = [
        .ispe(width: 4032, height: 3024), .pixi(bitsPerChannel: [10, 10, 10]),
        .colrNCLX(NCLX(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true)),
        .colrICC(type: "prof", profile: [1, 2, 3]), .colrICC(type: "rICC", profile: [4]), .irot(quarterTurns: 3),
        .imir(axis: 1),
        .clap(
            CleanAperture(
                widthN: 10, widthD: 1, heightN: 8, heightD: 1, horizOffN: -2, horizOffD: 2, vertOffN: 0, vertOffD: 1)),
        .pasp(hSpacing: 1, vSpacing: 1), .auxC(urn: "urn:mpeg:hevc:2015:auxid:1", subtype: [7, 8]),
        Samples.hvcC(bitDepth: 10),
        .clli(maxCLL: 1000, maxPALL: 400),
        .mdcv(
            MasteringDisplay(
                primaries: [1, 2, 3, 4, 5, 6], whitePointX: 7, whitePointY: 8, maxLuminance: 10_000_000,
                minLuminance: 50)),
        .unknown(type: "abcd", body: [1, 2]),
    ]
    for p in props {
        let box = p.encoded()
        let back = Property.parse(type: p.type, bytes: box, body: 8..<box.count)
        #expect(back == p, "\(p.type)")
    }
    if case .hvcC(let c) = Samples.hvcC(chroma: 0, bitDepth: 10) {
        #expect(c.chromaFormat == 0 && c.bitDepthLuma == 10 && c.bitDepthChroma == 10 && c.nalLengthSize == 4)
        #expect(c.arrays.count == 1 && c.arrays[0].nalType == 32 && c.arrays[0].units == [[0x40, 0x01, 0x0C, 0x01]])
    }
}

// MARK: - Grids

@Test func addGridWritesAnImageGridWithHiddenTilesAndOneSharedConfig() throws {
    var b = HEIFBuilder()
    let cfg = Samples.hvcC()
    let tiles = (0..<6).map { i in
        (
            properties: [(cfg, essential: true), (Property.ispe(width: 512, height: 512), essential: false)],
            data: [0, 0, 0, 2, 0x26, UInt8(i)]
        )
    }
    let (grid, ids) = b.addGrid(
        columns: 3, rows: 2, outputWidth: 1100, outputHeight: 700, tiles: tiles,
        properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)])
    b.setPrimary(grid)
    let f = HEIFFile(bytes: b.build())
    #expect(!f.hasErrors, "\(f.findings)")
    #expect(f.primaryItemID == grid)
    let g = try #require(f.grid(of: grid))
    #expect(g.rows == 2 && g.columns == 3 && g.outputWidth == 1100 && g.outputHeight == 700 && !g.largeFields)
    #expect(g.tiles == ids)
    #expect(f.payload(of: grid) == [0, 0, 1, 2, 0x04, 0x4C, 0x02, 0xBC])
    #expect(f.properties(of: grid).first?.property == .ispe(width: 1100, height: 700))
    #expect(f.property("pixi", of: grid) == .pixi(bitsPerChannel: [8, 8, 8]))
    let indices = Set(ids.compactMap { f.properties(of: $0).first { $0.property.type == "hvcC" }?.index })
    #expect(indices.count == 1)
    for (k, t) in ids.enumerated() {
        #expect(f.item(t)?.hidden == true)
        #expect(f.payload(of: t) == [0, 0, 0, 2, 0x26, UInt8(k)])
    }
}

@Test func addGridUses32BitSizesOver65535() throws {
    var b = HEIFBuilder()
    let cfg = Samples.hvcC()
    let tiles = (0..<2).map { _ in
        (
            properties: [(cfg, essential: true), (Property.ispe(width: 40000, height: 64), essential: false)],
            data: [UInt8](repeating: 1, count: 4)
        )
    }
    let (grid, _) = b.addGrid(columns: 2, rows: 1, outputWidth: 70000, outputHeight: 60, tiles: tiles, properties: [])
    let f = HEIFFile(bytes: b.build())
    let g = try #require(f.grid(of: grid))
    #expect(g.largeFields && g.outputWidth == 70000 && g.outputHeight == 60)
    #expect(f.payload(of: grid) == [0, 1, 0, 1, 0, 1, 0x11, 0x70, 0, 0, 0, 60])
}
