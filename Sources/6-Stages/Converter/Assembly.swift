import ColorScience
import Foundation
import GainMap
import HEIF

/// What the encoders produced for one output, ready to assemble.
struct EncodedParts {
    var primary: CodedImage?
    var gainMap: EncodedGainMap?
    var thumbnail: CodedItem?
}

/// Puts the coded parts and the metadata together into one HEIC file (HEIFBuilder).
enum HEICAssembler {
    /// Adds a coded image: one `hvc1` item, or a `grid` over hidden tiles whose `colr` and `pixi` it repeats (as
    /// Apple's grids do; libheif 1.15 takes a grid's colour from the grid item: docs/platform.md).
    static func addImage(
        _ image: CodedImage, to b: inout HEIFBuilder, hidden: Bool, name: String,
        extra: [(Property, essential: Bool)] = []
    ) -> UInt32 {
        switch image {
        case .single(let item):
            return b.addCodedImage(
                type: "hvc1", properties: item.properties + extra, data: item.data, hidden: hidden, name: name)
        case .grid(let layout, let tiles):
            let gridProps = (tiles.first?.properties ?? []).filter { $0.0.type == "colr" || $0.0.type == "pixi" }
            return b.addGrid(
                columns: layout.columns, rows: layout.rows, outputWidth: UInt32(layout.width),
                outputHeight: UInt32(layout.height), tiles: tiles.map { ($0.properties, $0.data) },
                properties: gridProps.map { ($0.0, false) } + extra, hidden: hidden, name: name
            ).grid
        }
    }

    /// The HEIC file: the primary, the gain map with its `tmap`, `altr` and Apple view, the thumbnail, Exif, XMP.
    static func assemble(
        _ parts: EncodedParts, exif: [UInt8]?, xmp: [UInt8]?, width: Int, height: Int, file: String
    ) throws -> [UInt8] {
        guard let primary = parts.primary else { throw ConvertError(file: file, reason: "no primary image encoded") }
        var b = HEIFBuilder(brands: Brands(major: "heic", compatible: ["mif1", "heic", "miaf"]))
        let p = addImage(primary, to: &b, hidden: false, name: "Image")
        b.setPrimary(p)
        if let gm = parts.gainMap {
            // GainMapWriter writes the map (one coded item or a grid of tiles) with the tmap, altr and Apple view.
            let (first, size, grid): (CodedItem, (Int, Int), GainMapGrid?)
            switch gm.image {
            case .single(let item):
                (first, size, grid) = (item, (item.width, item.height), nil)
            case .grid(let layout, let tiles):
                let g = GainMapGrid(
                    columns: layout.columns, rows: layout.rows, tileWidth: UInt32(layout.tileWidth),
                    tileHeight: UInt32(layout.tileHeight),
                    tiles: tiles.map { GainMapGrid.Tile(codecConfiguration: $0.properties[0].0, data: $0.data) })
                (first, size, grid) = (tiles[0], (layout.width, layout.height), g)
            }
            var nclx = NCLX.gainMap
            for (prop, _) in first.properties { if case .colrNCLX(let n) = prop { nclx = n } }
            var coded = CodedGainMapImage(
                codecConfiguration: first.properties[0].0, data: first.data, width: UInt32(size.0),
                height: UInt32(size.1), bitsPerChannel: [8], nclx: nclx)
            coded.grid = grid
            do {
                try GainMapWriter.add(
                    to: &b, baseItemID: p, gainMap: coded, metadata: gm.metadata, alternate: gm.alternate,
                    appleHeadroom: gm.appleHeadroom)
            } catch {
                throw ConvertError(file: file, reason: "gain map could not be written: \(error)")
            }
        }
        if let t = parts.thumbnail {
            let th = b.addCodedImage(
                type: "hvc1", properties: t.properties, data: t.data, hidden: false, name: "Thumbnail")
            b.addReference(type: "thmb", from: th, to: [p])
        }
        if let exif { _ = b.addExif(tiff: exif, describing: [p]) }
        if let xmp { _ = b.addXMP(xmp, describing: [p]) }
        return b.build()
    }
}
