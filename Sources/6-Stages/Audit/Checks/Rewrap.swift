import Foundation
import HEIF
import HeifCodec

/// Wraps one image item of a file as the primary of a minimal HEIF that libheif can decode on its own.
enum Rewrap {
    /// The standalone file for `item` (`HEIFFile.standaloneFile(for:)`), or nil when it cannot be built.
    static func standalone(_ file: HEIFFile, _ item: UInt32) -> [UInt8]? {
        file.standaloneFile(for: item)
    }

    /// The primary's coded pictures for `HeifDecoder.decodeGridReduced`: a grid's tiles (`gridTiles`), or a primary
    /// coded as one 4:2:0 `hvc1` picture, with the primary's nclx and no transform, as a grid of one tile (libde265
    /// then decodes it on worker threads, which libheif 1.15's plugin does not start).
    static func codedTiles(_ file: HEIFFile, bytes: [UInt8]) -> (
        bytes: [UInt8], tileBytes: [Int], geometry: GridGeometry
    )? {
        guard let p = file.primaryItemID, let item = file.item(p) else { return nil }
        if item.type == "grid" { return gridTiles(file, bytes: bytes) }
        guard Checks.nclx(file, p) != nil, let size = file.imageSize(of: p), let stream = pictureStream(file, p)
        else { return nil }
        let (w, h) = (Int(size.width), Int(size.height))
        let geometry = GridGeometry(columns: 1, rows: 1, tileWidth: w, tileHeight: h, width: w, height: h)
        guard geometry.isConsistent else { return nil }
        return (bytes + stream, [stream.count], geometry)
    }

    /// A grid primary split for `HeifDecoder.decodeGridReduced`: the file's bytes followed by each tile's HEVC stream
    /// (its `hvcC` parameter sets, then its NAL units, each after a 4-byte big-endian length; raster order), the
    /// streams' lengths and the grid's shape. Nil unless the primary is a grid of 4:2:0 `hvc1` tiles of one size,
    /// each with the grid's nclx and no transform of its own, and no transform on the grid (irot, imir, clap:
    /// libheif applies those to the whole picture); at most `GridGeometry.maxTiles` tiles, each stream well formed.
    static func gridTiles(_ file: HEIFFile, bytes: [UInt8]) -> (
        bytes: [UInt8], tileBytes: [Int], geometry: GridGeometry
    )? {
        guard let p = file.primaryItemID, file.item(p)?.type == "grid", let g = file.grid(of: p),
            g.tiles.count == g.rows * g.columns, g.tiles.count <= GridGeometry.maxTiles, !transformed(file, p),
            let colour = Checks.nclx(file, p), let first = g.tiles.first, let size = file.imageSize(of: first)
        else { return nil }
        let geometry = GridGeometry(
            columns: g.columns, rows: g.rows, tileWidth: Int(size.width), tileHeight: Int(size.height),
            width: Int(g.outputWidth), height: Int(g.outputHeight))
        guard geometry.isConsistent else { return nil }
        var out = bytes
        var lengths: [Int] = []
        lengths.reserveCapacity(g.tiles.count)
        for t in g.tiles {
            guard let s = file.imageSize(of: t), s == size, Checks.nclx(file, t) == colour,
                let stream = pictureStream(file, t)
            else { return nil }
            out += stream
            lengths.append(stream.count)
        }
        return (out, lengths, geometry)
    }

    /// The HEVC stream (`nalStream`) of an `hvc1` item coded 4:2:0 (hvcC chroma_format_idc 1: libde265's planes are
    /// what libheif would convert) with no transform of its own; nil otherwise.
    private static func pictureStream(_ file: HEIFFile, _ item: UInt32) -> [UInt8]? {
        guard file.item(item)?.type == "hvc1", case .hvcC(let c)? = file.property("hvcC", of: item), c.chromaFormat == 1,
            !transformed(file, item), let data = file.payload(of: item)
        else { return nil }
        return nalStream(c, data)
    }

    /// True when `item` carries a transform (irot, imir, clap), which libheif applies to the whole picture.
    private static func transformed(_ file: HEIFFile, _ item: UInt32) -> Bool {
        file.properties(of: item).contains { ["irot", "imir", "clap"].contains($0.property.type) }
    }

    /// A tile's parameter sets and NAL units, each after a 4-byte big-endian length; nil when a length in `data`
    /// runs past it or is zero.
    private static func nalStream(_ c: HEVCConfig, _ data: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 256)
        func append(_ unit: ArraySlice<UInt8>) {
            let n = UInt32(unit.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            out += unit
        }
        for a in c.arrays where [32, 33, 34].contains(a.nalType) {
            for u in a.units where !u.isEmpty { append(u[...]) }
        }
        let size = Int(c.nalLengthSize)
        guard (1...4).contains(size) else { return nil }
        var at = 0
        while at < data.count {
            guard data.count - at >= size else { return nil }
            let n = data[at..<(at + size)].reduce(0) { $0 << 8 | Int($1) }
            guard n > 0, n <= data.count - at - size else { return nil }
            append(data[(at + size)..<(at + size + n)])
            at += size + n
        }
        return out
    }
}
