import Foundation
import JXLCodec
import TIFFLayout

/// DNG 1.7's JPEG XL compression (Compression 52546) made readable to LibRaw, which identifies such files but needs
/// Adobe's DNG SDK for their pixels.
///
/// Each raw IFD (NewSubfileType 0) whose image data is JPEG XL is decoded tile by tile (or strip by strip) with
/// libjxl, undone from its row and column interleaving (RowInterleaveFactor 50975, ColumnInterleaveFactor 52547:
/// stored field after field over the whole image, as DNG SDK readers undo it), and written back as uncompressed
/// data of the same tile grid at the end of a copy of the file. The IFD's entries are rewritten in place
/// (Compression 1, the new offsets and counts, interleave factors 1; float data as 32-bit floats), so LibRaw then
/// takes the path every uncompressed DNG takes: linearisation, opcodes, colour, all from the same tags.
public enum JXLDNG {
    public static let compression = 52546

    /// Why a JPEG XL DNG could not be made readable.
    public struct Failure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// The raw IFDs of `layout` whose data is JPEG XL (empty for any other file).
    public static func jxlRawDirectories(_ layout: TIFFLayout) -> [TIFFLayout.Directory] {
        layout.directories.filter {
            layout.integer(259, in: $0) == compression && (layout.integer(254, in: $0) ?? 0) == 0
        }
    }

    /// True when `bytes` is a TIFF-based file with a JPEG XL raw IFD (cheap: reads the directories only).
    public static func isJXLDNG(_ bytes: Data) -> Bool {
        guard let layout = try? TIFFLayout(bytes) else { return false }
        return !jxlRawDirectories(layout).isEmpty
    }

    /// A copy of the file with every JPEG XL raw IFD (`every`: every JPEG XL IFD, previews too) decoded and stored
    /// uncompressed; nil when there is none.
    /// - Throws: `Failure` naming the IFD and tile that cannot be decoded or placed.
    public static func uncompressed(_ bytes: Data, every: Bool = false) throws(Failure) -> [UInt8]? {
        guard let layout = try? TIFFLayout(bytes) else { return nil }
        let dirs =
            every
            ? layout.directories.filter { layout.integer(259, in: $0) == compression } : jxlRawDirectories(layout)
        if dirs.isEmpty { return nil }
        var patch = TIFFPatch(bytes: [UInt8](layout.bytes), order: layout.order)
        for dir in dirs { try transcode(dir, layout: layout, into: &patch) }
        return patch.bytes
    }

    /// The geometry of one IFD's stored image.
    struct Geometry {
        var width: Int, height: Int, samples: Int, bits: Int
        var tileWidth: Int, tileHeight: Int
        var tiled: Bool
        var offsets: [Int], counts: [Int]
        var rowFactor: Int, columnFactor: Int
        var across: Int { (width + tileWidth - 1) / tileWidth }
    }

    static func geometry(_ dir: TIFFLayout.Directory, _ layout: TIFFLayout) throws(Failure) -> Geometry {
        func int(_ tag: UInt16) -> Int? { layout.integer(tag, in: dir) }
        guard let w = int(256), let h = int(257), w > 0, h > 0, w <= 1 << 17, h <= 1 << 17,
            w * h <= LibRawDecoder.maxPixels
        else {
            throw Failure(description: "the JPEG XL raw IFD has no usable ImageWidth/ImageLength")
        }
        let spp = int(277) ?? 1
        guard spp == 1 || spp == 3, (int(284) ?? 1) == 1 else {
            throw Failure(description: "JPEG XL raw data of \(spp) samples per pixel or planar layout")
        }
        let tiled = dir[324] != nil
        let (ot, ct): (UInt16, UInt16) = tiled ? (324, 325) : (273, 279)
        let tw = tiled ? int(322) ?? 0 : w
        let th = tiled ? int(323) ?? 0 : min(int(278) ?? h, h)
        guard tw > 0, th > 0, tw <= 1 << 16, th <= 1 << 17,
            let oe = dir[ot], let ce = dir[ct],
            let offsets = layout.integers(oe, limit: 1 << 20), let counts = layout.integers(ce, limit: 1 << 20)
        else { throw Failure(description: "the JPEG XL raw IFD has no usable tile or strip layout") }
        var g = Geometry(
            width: w, height: h, samples: spp, bits: int(258) ?? 16, tileWidth: tw, tileHeight: th, tiled: tiled,
            offsets: offsets, counts: counts, rowFactor: max(1, int(50975) ?? 1), columnFactor: max(1, int(52547) ?? 1))
        let down = (h + th - 1) / th
        guard offsets.count == g.across * down, counts.count == offsets.count,
            (1...16).contains(g.bits) || g.bits == 32,
            g.rowFactor <= 16, g.columnFactor <= 16
        else { throw Failure(description: "the JPEG XL raw IFD's tile count or bit depth does not match its size") }
        g.bits = min(g.bits, 32)
        return g
    }

    static func transcode(_ dir: TIFFLayout.Directory, layout: TIFFLayout, into patch: inout TIFFPatch) throws(Failure)
    {
        let g = try geometry(dir, layout)
        var image = StoredImage(width: g.width, height: g.height, samples: g.samples)
        for (i, (o, c)) in zip(g.offsets, g.counts).enumerated() {
            guard o >= 0, c > 0, o + c <= layout.bytes.count else {
                throw Failure(description: "tile \(i) of the JPEG XL raw image lies outside the file")
            }
            let tile: JXLImage
            do {
                tile = try JXL.typed { try layout.bytes[o..<(o + c)].withUnsafeBytes { try JXL.decode($0) } }
            } catch {
                throw Failure(description: "JPEG XL tile \(i) cannot be decoded: \(error)")
            }
            let (x0, y0) = ((i % g.across) * g.tileWidth, (i / g.across) * g.tileHeight)
            guard tile.channels == g.samples, tile.width <= g.tileWidth, tile.height <= g.tileHeight,
                tile.width >= min(g.tileWidth, g.width - x0), tile.height >= min(g.tileHeight, g.height - y0)
            else {
                throw Failure(
                    description: "JPEG XL tile \(i) is \(tile.width)×\(tile.height)×\(tile.channels), the IFD says "
                        + "\(g.tileWidth)×\(g.tileHeight)×\(g.samples)")
            }
            try image.place(scaled(tile, toBits: g.bits), x: x0, y: y0, tile: i)
        }
        if g.rowFactor > 1 || g.columnFactor > 1 { image.deinterleave(rows: g.rowFactor, columns: g.columnFactor) }
        guard image.isFloat || g.bits <= 16 else {
            throw Failure(description: "integer JPEG XL tiles in an IFD of \(g.bits) bits per sample")
        }
        let outBits = image.isFloat ? 32 : g.bits
        var offsets: [UInt32] = []
        var counts: [UInt32] = []
        let down = g.offsets.count / g.across
        for t in 0..<(g.across * down) {
            let (x0, y0) = ((t % g.across) * g.tileWidth, (t / g.across) * g.tileHeight)
            // Tiles are always whole (TIFF 6.0 §15); the last strip holds only the rows left.
            let rows = g.tiled ? g.tileHeight : min(g.tileHeight, g.height - y0)
            let data = image.encode(
                x: x0, y: y0, width: g.tileWidth, height: rows, bits: outBits, bigEndian: patch.order == .big)
            offsets.append(UInt32(patch.append(data)))
            counts.append(UInt32(data.count))
        }
        let (ot, ct): (UInt16, UInt16) = g.tiled ? (324, 325) : (273, 279)
        patch.set(dir[ot]!, type: 4, values: offsets)
        patch.set(dir[ct]!, type: 4, values: counts)
        patch.set(dir[259]!, type: 3, values: [1])
        for tag: UInt16 in [50975, 52547] {
            if let e = dir[tag] { patch.set(e, type: e.type == 4 ? 4 : 3, values: [1]) }
        }
        // libjxl hands back RGB: a preview signalled YCbCr (as a JPEG preview is) now holds RGB.
        if g.samples == 3, layout.integer(262, in: dir) == 6, let e = dir[262] { patch.set(e, type: 3, values: [2]) }
        if image.isFloat, let e = dir[258] {
            patch.set(e, type: 3, values: Array(repeating: 32, count: g.samples))
        }
    }
}

extension JXLDNG {
    /// A tile's integers on the IFD's scale. A codestream as deep as BitsPerSample, or deeper (a writer that put
    /// 12-bit codes in a 16-bit JPEG XL image), holds the codes as they are; a shallower one (a writer that kept
    /// fewer bits than the IFD declares) is scaled up to BitsPerSample's range, as a reader taking libjxl's 16-bit
    /// output would see it.
    static func scaled(_ tile: JXLImage, toBits bits: Int) -> JXLImage {
        guard !tile.isFloat, tile.bitsPerSample < bits, bits <= 16 else { return tile }
        var t = tile
        let factor = Double((1 << bits) - 1) / Double((1 << tile.bitsPerSample) - 1)
        t.integers = tile.integers.map { UInt16((Double($0) * factor).rounded()) }
        t.bitsPerSample = bits
        return t
    }
}

/// A file being rewritten: entries patched in place, new data appended at the end.
struct TIFFPatch {
    var bytes: [UInt8]
    let order: TIFFLayout.ByteOrder

    /// Appends `data` at a 4-byte boundary. - Returns: where it starts.
    mutating func append(_ data: [UInt8]) -> Int {
        while bytes.count % 4 != 0 { bytes.append(0) }
        let at = bytes.count
        bytes += data
        return at
    }

    /// Rewrites `entry` as `values` of `type` (3 SHORT, 4 LONG): inside the entry when they fit, else appended.
    mutating func set(_ entry: TIFFLayout.Entry, type: UInt16, values: [UInt32]) {
        var value: [UInt8] = []
        for v in values { value += type == 3 ? field(UInt32(UInt16(truncatingIfNeeded: v)), 2) : field(v, 4) }
        let p = entry.position
        put(field(UInt32(type), 2), at: p + 2)
        put(field(UInt32(values.count), 4), at: p + 4)
        if value.count <= 4 {
            put(value + [UInt8](repeating: 0, count: 4 - value.count), at: p + 8)
        } else {
            put(field(UInt32(append(value)), 4), at: p + 8)
        }
    }

    private mutating func put(_ b: [UInt8], at p: Int) { for (i, x) in b.enumerated() { bytes[p + i] = x } }

    private func field(_ v: UInt32, _ size: Int) -> [UInt8] {
        let le = (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
        return order == .little ? le : le.reversed()
    }
}
