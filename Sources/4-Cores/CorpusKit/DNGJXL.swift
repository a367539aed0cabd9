import Foundation

/// DNG 1.7 files whose raw data is JPEG XL (Compression 52546), made from an uncompressed DNG of the same scene (its
/// twin, and the ground truth: a lossless file decodes to exactly its samples).
///
/// CorpusKit imports no C, so the JPEG XL encoder is handed in (`JXLTiling.encode`; the corpus and the tests pass
/// libjxl's, through JXLCodec).
public struct JXLTiling: Sendable {
    /// Encodes one tile: interleaved samples (`channels` per pixel, 0 … 2^bits − 1) of a `width × height` block.
    public typealias Encoder =
        @Sendable (_ samples: [UInt16], _ width: Int, _ height: Int, _ channels: Int, _ bits: Int) throws -> [UInt8]

    public var tileWidth: Int
    public var tileHeight: Int
    /// A CFA image stored as 2 × 2 fields (RowInterleaveFactor and ColumnInterleaveFactor 2, DNG 1.7): each tile then
    /// holds like colours side by side, which a lossy JPEG XL encoder needs.
    public var interleaved: Bool
    /// The right and bottom tiles encoded at the size left (else padded to whole tiles by repeating the edge).
    public var cropEdgeTiles: Bool
    public var encode: Encoder
    /// The preview as JPEG XL too: IFD0's 8-bit RGB image becomes one JPEG XL strip and the baseline-JPEG preview
    /// SubIFD goes, so the JPEG XL preview is the only one a reader can show.
    public var previewAsJPEGXL = false
    /// Encodes one tile of 32-bit float samples; when set, the raw data is written as floats (BitsPerSample 32,
    /// SampleFormat 3) holding the same code values, so a float file decodes to the same numbers as its twin.
    public var encodeFloats: FloatEncoder?

    public typealias FloatEncoder =
        @Sendable (_ samples: [Float], _ width: Int, _ height: Int, _ channels: Int) throws -> [UInt8]

    public init(
        tileWidth: Int = 256, tileHeight: Int = 256, interleaved: Bool = false, cropEdgeTiles: Bool = false,
        encodeFloats: FloatEncoder? = nil, encode: @escaping Encoder
    ) {
        self.encodeFloats = encodeFloats
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.interleaved = interleaved
        self.cropEdgeTiles = cropEdgeTiles
        self.encode = encode
    }
}

public enum DNGJXL {
    public struct Unusable: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The DNG 1.7 JPEG XL twin of an uncompressed DNG written by `DNGWriter` (one strip, 8 to 16 bits).
    /// - Throws: `Unusable` for a file that is not such a DNG, or the encoder's error.
    public static func compress(uncompressedDNG dng: [UInt8], tiling: JXLTiling) throws -> [UInt8] {
        guard let reader = TIFFReader(bytes: dng), var ifd0 = reader.readTree(),
            case .ifds(var subs)? = ifd0[330],
            let r = subs.firstIndex(where: { $0[254]?.integers?.first == 0 })
        else { throw Unusable(description: "not a DNG with a raw SubIFD") }
        var raw = subs[r]
        guard let data = raw.imageData, raw[259]?.integers?.first == 1,
            let w = raw[256]?.integers?.first, let h = raw[257]?.integers?.first,
            let bits = raw[258]?.integers?.first, (8...16).contains(bits)
        else { throw Unusable(description: "the raw IFD is not one uncompressed strip of 8 to 16 bits") }
        let spp = raw[277]?.integers?.first ?? 1
        var values = unpack(data, bits: bits, rowSamples: w * spp, rows: h, bigEndian: reader.order == .big)
        let cfa = spp == 1
        if tiling.interleaved && cfa { values = interleave(values, width: w, height: h) }
        var tiles: [[UInt8]] = []
        for y in stride(from: 0, to: h, by: tiling.tileHeight) {
            for x in stride(from: 0, to: w, by: tiling.tileWidth) {
                let tw = tiling.cropEdgeTiles ? min(tiling.tileWidth, w - x) : tiling.tileWidth
                let th = tiling.cropEdgeTiles ? min(tiling.tileHeight, h - y) : tiling.tileHeight
                var block = [UInt16](repeating: 0, count: tw * th * spp)
                for ty in 0..<th {
                    for tx in 0..<tw {
                        let (sx, sy) = (min(x + tx, w - 1), min(y + ty, h - 1))
                        for s in 0..<spp { block[(ty * tw + tx) * spp + s] = values[(sy * w + sx) * spp + s] }
                    }
                }
                if let f = tiling.encodeFloats {
                    tiles.append(try f(block.map(Float.init), tw, th, spp))
                } else {
                    tiles.append(try tiling.encode(block, tw, th, spp, bits))
                }
            }
        }
        raw.imageData = nil
        raw[278] = nil
        raw[259] = .shorts([52546])
        raw[322] = .longs([UInt32(tiling.tileWidth)])
        raw[323] = .longs([UInt32(tiling.tileHeight)])
        if tiling.interleaved && cfa {
            raw[50975] = .shorts([2])  // RowInterleaveFactor
            raw[52547] = .shorts([2])  // ColumnInterleaveFactor
        }
        if tiling.previewAsJPEGXL, let thumb = ifd0.imageData, let pw = ifd0[256]?.integers?.first,
            let ph = ifd0[257]?.integers?.first, thumb.count == pw * ph * 3
        {
            subs.removeAll { $0[254]?.integers?.first == 1 }
            ifd0.imageData = try tiling.encode(thumb.map(UInt16.init), pw, ph, 3, 8)
            ifd0[259] = .shorts([52546])
        }
        if tiling.encodeFloats != nil {
            raw[258] = .shorts(Array(repeating: 32, count: spp))
            raw[339] = .shorts(Array(repeating: 3, count: spp))  // SampleFormat: IEEE float
        }
        raw.tiles = tiles
        subs[subs.firstIndex { $0[254]?.integers?.first == 0 }!] = raw
        ifd0[330] = .ifds(subs)
        ifd0[50706] = .bytes([1, 7, 0, 0])  // DNGVersion
        ifd0[50707] = .bytes([1, 7, 0, 0])  // DNGBackwardVersion: a reader must know JPEG XL
        return TIFFWriter.serialize(ifd0, order: reader.order)
    }

    /// The stored order of a CFA image interleaved 2 × 2: even rows then odd rows, and within each row even columns
    /// then odd columns (so each quarter of the image holds one CFA position).
    static func interleave(_ v: [UInt16], width w: Int, height h: Int) -> [UInt16] {
        let rows = Array(stride(from: 0, to: h, by: 2)) + Array(stride(from: 1, to: h, by: 2))
        let cols = Array(stride(from: 0, to: w, by: 2)) + Array(stride(from: 1, to: w, by: 2))
        var out = [UInt16](repeating: 0, count: v.count)
        for (sr, r) in rows.enumerated() {
            for (sc, c) in cols.enumerated() { out[sr * w + sc] = v[r * w + c] }
        }
        return out
    }

    /// Inverse of `DNGWriter.pack`: 16-bit words in the file's order, or an MSB-first bit stream with byte-aligned
    /// rows.
    static func unpack(_ b: [UInt8], bits: Int, rowSamples: Int, rows: Int, bigEndian: Bool) -> [UInt16] {
        var out = [UInt16](repeating: 0, count: rowSamples * rows)
        if bits == 16 {
            for i in 0..<min(out.count, b.count / 2) {
                let (x, y) = (UInt16(b[2 * i]), UInt16(b[2 * i + 1]))
                out[i] = bigEndian ? x << 8 | y : y << 8 | x
            }
            return out
        }
        let rowBytes = (rowSamples * bits + 7) / 8
        for r in 0..<rows {
            var acc: UInt32 = 0
            var n = 0
            var p = r * rowBytes
            for s in 0..<rowSamples {
                while n < bits, p < b.count {
                    acc = acc << 8 | UInt32(b[p])
                    p += 1
                    n += 8
                }
                out[r * rowSamples + s] = UInt16((acc >> UInt32(n - bits)) & ((1 << UInt32(bits)) - 1))
                n -= bits
                acc &= (1 << UInt32(n)) - 1
            }
        }
        return out
    }
}
