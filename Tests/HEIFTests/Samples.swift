import ColorScience

@testable import HEIF

/// Files built with `HEIFBuilder` for the tests (and the fuzz seeds).
enum Samples {
    /// A syntactically valid hvcC record (ISO/IEC 14496-15 §8.3.3.1) with one VPS-typed NAL array.
    static func hvcC(chroma: UInt8 = 1, bitDepth: UInt8 = 8) -> Property {
        let raw: [UInt8] = [
            1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0x5A, 0xF0, 0x00, 0xFC, 0xFC | chroma, 0xF8 | (bitDepth - 8),
            0xF8 | (bitDepth - 8), 0, 0, 0x0F, 1, 0xA0, 0x00, 0x01, 0x00, 0x04, 0x40, 0x01, 0x0C, 0x01,
        ]
        var r = ByteReader(raw, from: 0, to: raw.count)
        return .hvcC(Property.parseHVCC(&r)!)
    }

    static let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]
    static let xmp: [UInt8] = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)

    /// An iOS 18-like gain-map file: primary grid 2×1 of hvc1 tiles, Apple aux gain map, tmap [base, gain map],
    /// altr [tmap, base], Exif and XMP (cdsc → primary), a thumbnail, an orientation.
    static func gainMapBuilder(orientation: Int = 6) -> (HEIFBuilder, ids: [String: UInt32]) {
        var b = HEIFBuilder(brands: Brands(major: "heic", compatible: ["mif1", "heic", "tmap"]))
        let tileProps: [(Property, essential: Bool)] = [(hvcC(), true), (.ispe(width: 64, height: 64), false)]
        let t1 = b.addCodedImage(properties: tileProps, data: [0, 0, 0, 2, 0x26, 0x01], hidden: true)
        let t2 = b.addCodedImage(properties: tileProps, data: [0, 0, 0, 2, 0x26, 0x02], hidden: true)
        let nclx = Property.colrNCLX(
            NCLX(colourPrimaries: 1, transferCharacteristics: 13, matrixCoefficients: 6, fullRange: true))
        var gridProps: [(Property, essential: Bool)] = [(.ispe(width: 128, height: 64), false), (nclx, false)]
        gridProps += HEIFFile.transformProperties(forEXIFOrientation: orientation).map { ($0, true) }
        let grid = b.addDerivedImage(
            type: "grid", payload: ImageGrid.payload(rows: 1, columns: 2, outputWidth: 128, outputHeight: 64),
            inputs: [t1, t2],
            properties: gridProps)
        b.setPrimary(grid)
        let gm = b.addCodedImage(
            properties: [
                (hvcC(chroma: 0), true), (.ispe(width: 64, height: 32), false),
                (.auxC(urn: HEIFFile.appleGainMapURN, subtype: []), false),
            ],
            data: [0, 0, 0, 1, 0x26], hidden: true)
        b.addReference(type: "auxl", from: gm, to: [grid])
        let thumb = b.addCodedImage(
            properties: [(hvcC(), true), (.ispe(width: 32, height: 16), false)], data: [0, 0, 0, 1, 0x27])
        b.addReference(type: "thmb", from: thumb, to: [grid])
        let hdr = Property.colrNCLX(
            NCLX(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true))
        let tmap = b.addDerivedImage(
            type: "tmap", payload: [0] + Array(repeating: 1, count: 61), inputs: [grid, gm],
            properties: [
                (.ispe(width: 128, height: 64), false), (hdr, false), (.clli(maxCLL: 1000, maxPALL: 400), false),
            ])
        let altr = b.addEntityGroup(type: "altr", entities: [tmap, grid])
        let exif = b.addExif(tiff: tiff, describing: [grid])
        let xmp = b.addXMP(xmp, describing: [grid])
        return (
            b,
            [
                "t1": t1, "t2": t2, "grid": grid, "gm": gm, "thumb": thumb, "tmap": tmap, "altr": altr, "exif": exif,
                "xmp": xmp,
            ]
        )
    }

    /// A plain one-image HEIC with Exif.
    static func simpleBuilder() -> (HEIFBuilder, UInt32) {
        var b = HEIFBuilder()
        let id = b.addCodedImage(
            properties: [(hvcC(), true), (.ispe(width: 64, height: 48), false)], data: [0, 0, 0, 2, 0x26, 0x01])
        b.setPrimary(id)
        b.addExif(tiff: tiff, describing: [id])
        return (b, id)
    }
}
