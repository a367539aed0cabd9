internal import CDe265
internal import CHeif
import ColorScience
import Foundation

// The render check's reduced decode of a grid, tile by tile: libheif 1.15 assembles a grid in planar RGB, converting
// every tile from YCbCr and pasting it into a full-size canvas, though the check only wants block means at about
// 1024 px; asked for YCbCr it converts each tile to RGB and back. Here libheif still reads the whole file (its
// primary's size and colour), and each tile's HEVC stream goes to libde265, the decoder libheif itself uses: each
// pixel of its YCbCr 4:2:0 planes is converted as libheif converts it and summed straight into its block.

/// A grid primary as `decodeGridReduced` takes it: the tiles' size and count, raster order, and the output size.
public struct GridGeometry: Codable, Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    public var tileWidth: Int
    public var tileHeight: Int
    public var width: Int
    public var height: Int

    public init(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int, width: Int, height: Int) {
        (self.columns, self.rows, self.tileWidth, self.tileHeight) = (columns, rows, tileWidth, tileHeight)
        (self.width, self.height) = (width, height)
    }

    /// At most this many tiles take the tile-by-tile path (their sizes travel in a worker's request message).
    public static let maxTiles = 1024

    /// True when the tiles cover exactly the output size's tile grid (the last row and column may pad).
    public var isConsistent: Bool {
        columns > 0 && rows > 0 && columns * rows <= Self.maxTiles && tileWidth > 0 && tileHeight > 0
            && tileWidth % 2 == 0 && tileHeight % 2 == 0 && width > 0 && height > 0
            && (columns - 1) * tileWidth < width && columns * tileWidth >= width
            && (rows - 1) * tileHeight < height && rows * tileHeight >= height
    }
}

extension HeifDecoder {
    /// The reduced decode of `decodePrimaryReduced(_:minSide:)` for a grid primary, tile by tile: the same reduction
    /// factor and output size, each output pixel the mean of its block's pixels converted to RGB with the primary's
    /// nclx matrix (libheif's values within a code).
    /// - Parameters:
    ///   - bytes: the whole file (its first `fileBytes`), then each tile's HEVC stream, `tileBytes` long each, in
    ///     raster order: its `hvcC` parameter sets and then its NAL units, each after a 4-byte big-endian length.
    ///   - geometry: the grid.
    ///   - minSide: the smallest long side wanted.
    /// - Returns: nil when a grid's blocks are under 4 × 4 pixels, the primary's nclx is not full range with a BT.601,
    ///   BT.709 or BT.2020 matrix, or a tile does not decode to 8- to 12-bit YCbCr 4:2:0 of the grid's tile size (the
    ///   caller then decodes the whole file).
    /// - Throws: `HeifError` when libheif refuses the file, or a tile's stream is malformed or decodes to no picture.
    public static func decodeGridReduced(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry g: GridGeometry, minSide: Int
    ) throws -> (image: HeifDecodedImage, size: HeifDecodedSize)? {
        guard g.isConsistent, tileBytes.count == g.columns * g.rows, fileBytes >= 0,
            tileBytes.allSatisfy({ $0 > 0 }), fileBytes + tileBytes.reduce(0, +) <= bytes.count
        else { return nil }
        // libheif reads the whole file as a reader does; its primary gives the colour and the size.
        let (ctx, handle) = try primaryHandle(Array(bytes[0..<fileBytes]))
        let (nclx, icc) = withExtendedLifetime(ctx) { colour(handle) }
        // libheif converts a grid's tiles with the nclx it reads for them; ours repeat the grid's (docs/tiling.md).
        guard let m = nclx.flatMap(GridSums.matrix) else { return nil }
        let coded = Int(heif_image_handle_get_luma_bits_per_pixel(handle.ptr))
        let (w, h) = (Int(heif_image_handle_get_width(handle.ptr)), Int(heif_image_handle_get_height(handle.ptr)))
        guard w == g.width, h == g.height else { return nil }
        let f = max(1, max(w, h) / max(1, minSide))
        // A grid's blocks of 4 × 4 and more: below that, how libheif upsamples chroma shows in single pixels. One
        // picture at every factor, down to single pixels (within a code of libheif's: GridReductionTests).
        guard f >= 4 || g.columns * g.rows == 1 else { return nil }
        let (rw, rh) = (w / f, h / f)
        var starts = [fileBytes]
        for n in tileBytes { starts.append(starts[starts.count - 1] + n) }
        let codes = try bytes.withUnsafeBytes { all -> [UInt16]? in
            if g.columns * g.rows == 1 {
                let stream = UnsafeRawBufferPointer(rebasing: all[starts[0]..<starts[1]])
                return try GridSums.onePicture(stream, geometry: g, factor: f, width: rw, height: rh, matrix: m)
            }
            return try GridSums.sum(all, starts: starts, geometry: g, factor: f, width: rw, height: rh, matrix: m)?
                .rgb()
        }
        guard let codes else { return nil }
        let image = HeifDecodedImage(
            width: rw, height: rh, bitDepth: 8, channels: 3, samples: codes, nclx: nclx, icc: icc,
            codedBitDepth: coded)
        return (image, HeifDecodedSize(width: w, height: h, codedBitDepth: coded))
    }
}

extension HeifDecoder {
    /// `decodeGridReduced`, or `decodePrimaryReduced` of the file (its first `fileBytes`) when that returns nil.
    public static func reducedGridOrWhole(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry: GridGeometry, minSide: Int
    ) throws -> (image: HeifDecodedImage, size: HeifDecodedSize) {
        if let r = try decodeGridReduced(
            bytes, fileBytes: fileBytes, tileBytes: tileBytes, geometry: geometry, minSide: minSide)
        {
            return r
        }
        return try decodePrimaryReduced(Array(bytes[0..<min(max(0, fileBytes), bytes.count)]), minSide: minSide)
    }
}

/// Block sums of R, G and B over a grid's tiles, two tiles at a time: each pixel converted from YCbCr and clipped as a
/// reader shows it (a block mean converted once would differ where highlights clip).
struct GridSums {
    let width: Int
    private(set) var height: Int
    let factor: Int
    /// The first block row these sums hold (0 for the whole picture; a one-picture lane holds a band of rows).
    private(set) var firstBlockRow: Int
    var r: [Int]
    var g: [Int]
    var b: [Int]
    /// The tiles' full-range YCbCr → RGB: Kr and Kb.
    let matrix: (kr: Double, kb: Double)

    init(width: Int, height: Int, factor: Int, matrix: (kr: Double, kb: Double), firstBlockRow: Int = 0) {
        (self.width, self.height, self.factor, self.matrix) = (width, height, factor, matrix)
        self.firstBlockRow = firstBlockRow
        r = [Int](repeating: 0, count: width * height)
        g = r
        b = r
    }

    /// Starts over, zeroed, at block row `first` with `rows` block rows (no more than these sums were made with).
    mutating func restart(at first: Int, rows: Int) {
        precondition(rows >= 0 && rows * width <= r.count, "more rows than the sums hold")
        (firstBlockRow, height) = (first, rows)
        for i in 0..<(rows * width) { (r[i], g[i], b[i]) = (0, 0, 0) }
    }

    /// Every tile decoded and summed, the even tiles on one thread and the odd ones on another; nil when a tile is
    /// not 8- to 12-bit YCbCr 4:2:0 of the tile size.
    static func sum(
        _ all: UnsafeRawBufferPointer, starts: [Int], geometry g: GridGeometry, factor f: Int, width rw: Int,
        height rh: Int, matrix: (kr: Double, kb: Double)
    ) throws -> GridSums? {
        let lanes = g.columns * g.rows > 1 ? 2 : 1
        let results = UnsafeMutableBufferPointer<Result<GridSums?, Error>>.allocate(capacity: lanes)
        results.initialize(repeating: .success(nil))
        defer { results.deallocate() }
        let (slots, memory) = (UnsafeSendable(results), UnsafeSendable(all))
        Parallel.forEach(lanes) { lane in
            slots.value[lane] = Result {
                var s = GridSums(width: rw, height: rh, factor: f, matrix: matrix)
                for t in stride(from: lane, to: g.columns * g.rows, by: lanes) {
                    let tile = UnsafeRawBufferPointer(rebasing: memory.value[starts[t]..<starts[t + 1]])
                    guard try s.add(tile, x0: (t % g.columns) * g.tileWidth, y0: (t / g.columns) * g.tileHeight, g)
                    else { return nil }
                }
                return s
            }
        }
        // The other lane's sums are added into the first's, in place (its slot no longer holds them).
        guard var total = try results[0].get() else { return nil }
        results[0] = .success(nil)
        for lane in 1..<lanes {
            guard let s = try results[lane].get() else { return nil }
            add(s.r, to: &total.r)
            add(s.g, to: &total.g)
            add(s.b, to: &total.b)
        }
        return total
    }

    /// Adds `x` to `y` element by element (a loop the compiler vectorises).
    private static func add(_ x: [Int], to y: inout [Int]) {
        x.withUnsafeBufferPointer { x in
            y.withUnsafeMutableBufferPointer { y in
                for i in 0..<min(x.count, y.count) { y[i] &+= x[i] }
            }
        }
    }

    /// Decodes one tile's stream with libde265 and adds its pixels inside the reduced area to the blocks; false when
    /// it is not 8- to 12-bit YCbCr 4:2:0 of the tile size.
    mutating func add(_ stream: UnsafeRawBufferPointer, x0: Int, y0: Int, _ g: GridGeometry) throws -> Bool {
        try GridSums.withPicture(stream, threads: 0, label: "grid tile at \(x0),\(y0)") { pic in
            guard let planes = GridSums.planes(pic, width: g.tileWidth, height: g.tileHeight) else { return false }
            accumulate(planes, x0: x0, y0: y0, tileWidth: g.tileWidth, tileHeight: g.tileHeight)
            return true
        }
    }

    /// Decodes one HEVC stream (`stream`: NAL units, each after its 4-byte length) with libde265 and gives `body` the
    /// picture, valid only inside it.
    /// - Parameter threads: libde265's worker threads (0: it decodes on the calling thread).
    static func withPicture<T>(
        _ stream: UnsafeRawBufferPointer, threads: Int32, label: String, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let ctx = de265_new_decoder() else {
            throw HeifError(operation: "de265_new_decoder", message: "NULL")
        }
        defer { de265_free_decoder(ctx) }
        func fail(_ what: String) -> HeifError {
            HeifError(operation: "libde265 decode", message: "\(label): \(what)")
        }
        if threads > 0 {
            let e = de265_start_worker_threads(ctx, threads)
            guard de265_isOK(e) != 0 else { throw fail(String(cString: de265_get_error_text(e))) }
        }
        // The NAL units, each after its 4-byte length, pushed as libheif's plugin pushes them.
        var at = 0
        while at < stream.count {
            guard stream.count - at >= 4 else { throw fail("a truncated NAL length") }
            let n = stream[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard n > 0, n <= stream.count - at - 4 else { throw fail("a NAL length of \(n) past the stream") }
            let e = de265_push_NAL(ctx, stream.baseAddress! + at + 4, Int32(n), 0, nil)
            guard de265_isOK(e) != 0 else { throw fail(String(cString: de265_get_error_text(e))) }
            at += 4 + n
        }
        _ = de265_flush_data(ctx)
        // As libheif's plugin: decode until the picture is out (libde265 reports more work while a picture waits in
        // its output queue), at most one step per NAL unit and a few more: never a loop without an end.
        var more: Int32 = 1
        var pic: OpaquePointer?
        for _ in 0..<(stream.count / 4 + 16) where more != 0 && pic == nil {
            let e = de265_decode(ctx, &more)
            if e == DE265_ERROR_WAITING_FOR_INPUT_DATA { break }
            guard de265_isOK(e) != 0 else { throw fail(String(cString: de265_get_error_text(e))) }
            pic = de265_get_next_picture(ctx)
        }
        if pic == nil { pic = de265_get_next_picture(ctx) }
        guard let pic else { throw fail("no picture") }
        return try body(pic)
    }

    /// A decoded picture's planes: 8-bit, or 9- to 12-bit as 16-bit samples (strides in samples); nil unless it is
    /// YCbCr 4:2:0 of `width` × `height` with one depth in all three planes.
    enum Planes {
        case narrow([(UnsafePointer<UInt8>, Int)])
        case wide([(UnsafePointer<UInt16>, Int)], bits: Int)
    }

    static func planes(_ pic: OpaquePointer, width: Int, height: Int) -> Planes? {
        let bits = Int(de265_get_bits_per_pixel(pic, 0))
        guard de265_get_chroma_format(pic) == de265_chroma_420,
            Int(de265_get_image_width(pic, 0)) == width, Int(de265_get_image_height(pic, 0)) == height,
            (8...12).contains(bits), (1..<3).allSatisfy({ Int(de265_get_bits_per_pixel(pic, $0)) == bits })
        else { return nil }
        var planes: [(UnsafePointer<UInt8>, Int)] = []
        for c: Int32 in 0..<3 {
            var stride: Int32 = 0
            guard let p = de265_get_image_plane(pic, c, &stride) else { return nil }
            planes.append((p, Int(stride)))
        }
        if bits == 8 { return .narrow(planes) }
        // More than 8 bits: 16-bit samples, the stride in bytes.
        return .wide(
            planes.map { p, stride in (UnsafeRawPointer(p).assumingMemoryBound(to: UInt16.self), stride / 2) },
            bits: bits)
    }

    /// Adds the pixels of `planes` (a tile at `x0`, `y0`) inside these sums' block rows to their blocks.
    mutating func accumulate(_ planes: Planes, x0: Int, y0: Int, tileWidth tw: Int, tileHeight th: Int) {
        switch planes {
        case .narrow(let p): accumulate(p, x0: x0, y0: y0, tileWidth: tw, tileHeight: th)
        case .wide(let p, let bits): accumulateWide(p, bits: bits, x0: x0, y0: y0, tileWidth: tw, tileHeight: th)
        }
    }

    /// Adds the tile's pixels, converted to 8-bit RGB (chroma nearest-neighbour upsampled, as libheif 1.15 converts
    /// 4:2:0; 8 fractional bits, rounded, clipped to 0…255), to the blocks they fall in. Each chroma row's terms are
    /// spread to the columns first, so that each luma row converts column by column (a loop the compiler vectorises).
    private mutating func accumulate(
        _ planes: [(UnsafePointer<UInt8>, Int)], x0: Int, y0: Int, tileWidth tw: Int, tileHeight th: Int
    ) {
        let n = max(0, min(x0 + tw, width * factor) - x0)
        let ((py, sy), (pb, sb), (pr, sr)) = (planes[0], planes[1], planes[2])
        // Full range: R = Y + 2(1 − Kr)·Cr', B = Y + 2(1 − Kb)·Cb', G from the two, with Cb' = Cb − 128 and
        // Cr' = Cr − 128. Each chroma sample's three terms × 256 are (k · C' + 128) >> 8, k the coefficient × 65 536.
        let (kr, kb) = matrix
        let kg = 1 - kr - kb
        let k = { (c: Double) in Int32((c * 65536).rounded()) }
        let (kR, kB) = (k(2 * (1 - kr)), k(2 * (1 - kb)))
        let (kGU, kGV) = (k(-2 * kb * (1 - kb) / kg), k(-2 * kr * (1 - kr) / kg))
        // Per column: the chroma terms of the current chroma row.
        let terms = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * max(1, n))
        defer { terms.deallocate() }
        let (dr, dg, db) = (terms, terms + n, terms + 2 * n)
        walkRows(
            x0: x0, y0: y0, tileWidth: tw, tileHeight: th,
            chroma: { row in
                let (lb, lr) = (pb + row * sb, pr + row * sr)
                for x in 0..<n {
                    let (u, v) = (Int32(lb[x >> 1]) - 128, Int32(lr[x >> 1]) - 128)
                    dr[x] = (kR &* v &+ 128) >> 8
                    db[x] = (kB &* u &+ 128) >> 8
                    dg[x] = (kGU &* u &+ kGV &* v &+ 128) >> 8
                }
            },
            luma: { ty, cr, cg, cb in
                let ly = py + ty * sy
                for x in 0..<n {
                    let l = Int32(ly[x]) << 8 &+ 128
                    cr[x] &+= min(255, max(0, (l &+ dr[x]) >> 8))
                    cg[x] &+= min(255, max(0, (l &+ dg[x]) >> 8))
                    cb[x] &+= min(255, max(0, (l &+ db[x]) >> 8))
                }
            })
    }

    /// Walks the tile's rows inside the reduced area: `chroma(row)` when a chroma row starts, `luma(row, r, g, b)` for
    /// each luma row, adding its converted pixels into per-column sums (index 0 is column `x0`), which go into the
    /// blocks once per block row.
    @inline(__always)
    mutating func walkRows(
        x0: Int, y0: Int, tileWidth tw: Int, tileHeight th: Int, chroma: (Int) -> Void,
        luma: (Int, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Void
    ) {
        let f = factor
        let xEnd = min(x0 + tw, width * f)
        let yStart = max(y0, firstBlockRow * f)
        let yEnd = min(y0 + th, (firstBlockRow + height) * f)
        guard xEnd > x0, yEnd > yStart else { return }
        let n = xEnd - x0
        let sums = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * n)
        defer { sums.deallocate() }
        sums.initialize(repeating: 0, count: 3 * n)
        let (cr, cg, cb) = (sums, sums + n, sums + 2 * n)
        var blockRow = yStart / f
        var chromaRow = -1
        for gy in yStart...yEnd {
            if gy == yEnd || gy / f != blockRow {
                // The block row is complete in this tile: its column sums go into the blocks.
                addColumnSums((cr, cg, cb), blockRow: blockRow - firstBlockRow, x0: x0, xEnd: xEnd)
                guard gy < yEnd else { break }
                sums.update(repeating: 0, count: 3 * n)
                blockRow = gy / f
            }
            let ty = gy - y0
            if ty >> 1 != chromaRow {
                chromaRow = ty >> 1
                chroma(chromaRow)
            }
            luma(ty, cr, cg, cb)
        }
    }

    /// Adds one block row's per-column sums (columns `x0 ..< xEnd` of the tile, from index 0) into its blocks.
    mutating func addColumnSums(
        _ sums: (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>),
        blockRow: Int, x0: Int, xEnd: Int
    ) {
        let (cr, cg, cb) = sums
        let row = blockRow * width
        var gx = x0
        while gx < xEnd {
            let rx = gx / factor
            let end = min(xEnd, (rx + 1) * factor)
            var (tr, tg, tb) = (0, 0, 0)
            for x in (gx - x0)..<(end - x0) {
                tr &+= Int(cr[x])
                tg &+= Int(cg[x])
                tb &+= Int(cb[x])
            }
            r[row + rx] &+= tr
            g[row + rx] &+= tg
            b[row + rx] &+= tb
            gx = end
        }
    }

    /// Kr and Kb of a full-range nclx: BT.601 (5, 6), BT.709 (1) or BT.2020 non-constant (9); nil otherwise (a
    /// limited-range file decodes whole).
    static func matrix(_ n: NCLX) -> (kr: Double, kb: Double)? {
        guard n.fullRange else { return nil }
        switch n.matrixCoefficients {
        case 1: return (0.2126, 0.0722)
        case 5, 6: return (0.299, 0.114)
        case 9: return (0.2627, 0.0593)
        default: return nil
        }
    }

    /// The block means as interleaved 8-bit RGB codes, rounded as `HeifDecoder.reduce` rounds them.
    func rgb() -> [UInt16] {
        let n = factor * factor
        var out = [UInt16](repeating: 0, count: 3 * width * height)
        for i in 0..<(width * height) {
            out[3 * i] = UInt16((r[i] + n / 2) / n)
            out[3 * i + 1] = UInt16((g[i] + n / 2) / n)
            out[3 * i + 2] = UInt16((b[i] + n / 2) / n)
        }
        return out
    }
}
