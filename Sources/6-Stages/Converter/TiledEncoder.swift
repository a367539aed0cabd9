import Foundation
import HEIF
import HeifCodec

// Tiled encoding (ISO/IEC 23008-12 §6.6.2.3 image grids): the image is cut into equal tiles in raster order, each
// coded as an independent hidden `hvc1` item by a bounded pool of encoder threads, and a `grid` derived item puts
// them back together; the grid's output size crops the padding of the right and bottom tiles.

/// One coded image ready for the builder: its properties (hvcC essential first) and its bitstream.
struct CodedItem {
    var properties: [(Property, essential: Bool)]
    var data: [UInt8]
    var width: Int
    var height: Int
}

/// A coded image: one item, or the tiles of a grid in raster order.
enum CodedImage {
    case single(CodedItem)
    case grid(TileLayout, [CodedItem])
}

/// Codes pixels into what the builder takes: one `hvc1` item (`encodeItem`), or the tiles of a `grid`
/// (`encodeGrid`), coded in parallel by a `TileEncodePool` while the next band of rows is filled.
enum TiledEncoder {
    /// Codes an image as tiles in parallel: `fill(y0, y1, band)` writes rows y0 ..< y1 (one tile row; interleaved
    /// samples, `UInt8` at 8 bits, `UInt16` otherwise) into the band buffer, then the band's tiles (edge-replicated
    /// at the right and bottom) go to a pool of encoder threads while the next band is filled; `afterLastBand` runs on
    /// the calling thread once every band is queued, while the workers finish.
    /// - Returns: the coded tiles in raster order.
    /// - Throws: `ConvertError` from any tile.
    static func encodeGrid(
        layout: TileLayout, channels: Int, bitDepth: Int, settings: HeifEncodeSettings, options: ConvertOptions,
        file: String, afterLastBand: () throws -> Void = {}, fill: (Int, Int, UnsafeMutableRawPointer) -> Void
    ) throws -> [CodedItem] {
        // Never more workers than tiles: a 1×1 grid (an odd image wrapped) keeps x265's own thread pool.
        let workers = min(
            layout.count,
            options.encodeWorkers > 0 ? options.encodeWorkers : ProcessInfo.processInfo.activeProcessorCount)
        // One thread per encoder when several encoders share the cores (x265's default pool has a thread per core in
        // every encoder); a single worker keeps that pool.
        let threads: Int? = workers > 1 ? 1 : nil
        let pool = TileEncodePool(workers: workers, capacity: layout.columns) { px in
            try encodeItem(px, settings: settings, threads: threads, file: file)
        }
        let w = layout.width
        let tw = layout.tileWidth
        let th = layout.tileHeight
        let bytesPerSample = bitDepth == 8 ? 1 : 2
        let band = UnsafeMutableRawPointer.allocate(byteCount: w * th * channels * bytesPerSample, alignment: 16)
        defer { band.deallocate() }
        do {
            for row in 0..<layout.rows {
                let y0 = row * th
                let y1 = min(layout.height, y0 + th)
                fill(y0, y1, band)
                for c in 0..<layout.columns {
                    let px: HeifPixels
                    if bitDepth == 8 {
                        let s = cutTile(
                            UnsafePointer(band.assumingMemoryBound(to: UInt8.self)), width: w, bandRows: y1 - y0,
                            x0: c * tw, tileWidth: tw, tileHeight: th, channels: channels)
                        px =
                            channels == 1
                            ? .mono8(width: tw, height: th, samples: s) : .rgb8(width: tw, height: th, samples: s)
                    } else {
                        let s = cutTile(
                            UnsafePointer(band.assumingMemoryBound(to: UInt16.self)), width: w, bandRows: y1 - y0,
                            x0: c * tw, tileWidth: tw, tileHeight: th, channels: channels)
                        px = .rgb16(width: tw, height: th, bitDepth: bitDepth, samples: s)
                    }
                    try pool.submit(row * layout.columns + c, px)
                }
            }
            // Producer-side work that needs every band but not the coded tiles runs while the workers drain.
            try afterLastBand()
        } catch {
            pool.abandon()
            throw error
        }
        return try pool.finish(count: layout.count)
    }

    /// Encodes with libheif into a small HEIF in memory and takes its primary's hvcC, ispe, colr, pixi and
    /// bitstream with the HEIF parser.
    static func encodeItem(
        _ pixels: HeifPixels, settings: HeifEncodeSettings, threads: Int? = nil, file: String
    ) throws -> CodedItem {
        let small: [UInt8]
        do { small = try HeifEncoder.encode(pixels, settings: settings, threads: threads) } catch let e as HeifError {
            throw ConvertError(file: file, reason: "HEVC encoding failed: \(e.description)")
        }
        let f = HEIFFile(bytes: small)
        guard let id = f.primaryItemID, f.item(id)?.type == "hvc1", let data = f.payload(of: id) else {
            throw ConvertError(file: file, reason: "libheif wrote an unexpected file layout (no hvc1 primary)")
        }
        var props: [(Property, essential: Bool)] = []
        var crop: [(Property, essential: Bool)] = []
        for a in f.properties(of: id) {
            switch a.property.type {
            case "hvcC": props.insert((a.property, true), at: 0)
            case "ispe", "colr", "pixi": props.append((a.property, false))
            // libheif pads odd sizes for 4:2:0 and crops back with `clap` (ISO/IEC 23008-12 §6.5.9): keep it,
            // after the descriptive properties and essential. Never irot/imir: the pixels are upright.
            case "clap": crop.append((a.property, true))
            default: break
            }
        }
        props += crop
        guard props.first?.0.type == "hvcC", props.contains(where: { $0.0.type == "ispe" }) else {
            throw ConvertError(file: file, reason: "libheif output lacks hvcC or ispe")
        }
        return CodedItem(properties: props, data: data, width: pixels.width, height: pixels.height)
    }
}

extension HEICConverter {
    /// The default tile size, 512 px (Apple's): tiled, peak memory stays under 3× the decoded 16-bit frame where
    /// untiled does not, for about 1 % more bytes on photographs and no loss of speed (measurements: docs/tiling.md,
    /// "Why the default is 512").
    public static let defaultTileSize = 512
}

/// How an image of `width` × `height` is cut into tiles.
struct TileLayout: Equatable {
    let width: Int
    let height: Int
    let tileWidth: Int
    let tileHeight: Int
    let columns: Int
    let rows: Int

    var count: Int { columns * rows }

    /// The layout for `tileSize`, or nil when the image is coded untiled: `tileSize` 0, or the image fits in one tile.
    ///
    /// Each side's tiles are `tileSize`, `tileSize` + 64 or `tileSize` − 64 px, whichever pads that side least (in
    /// that order on a tie): padding is coded and decoded like picture, so a 5760-row frame takes 576-row tiles
    /// (10 rows, no padding) rather than 512-row ones (12 rows, the last one three-quarters padding). A side of the
    /// image shorter than one tile gets tiles of that side rounded up to a multiple of 64 (x265's CTU), so a 4000×40
    /// strip is not coded as 512-row tiles of padding.
    /// - Throws: `ConvertError` when the grid would need more than 256 rows or columns (ImageGrid stores rows − 1
    ///   and columns − 1 in 8 bits).
    static func make(width: Int, height: Int, tileSize: Int, file: String) throws -> TileLayout? {
        guard tileSize > 0, width > tileSize || height > tileSize else { return nil }
        let tw = side(for: width, tileSize: tileSize)
        let th = side(for: height, tileSize: tileSize)
        let cols = (width + tw - 1) / tw
        let rows = (height + th - 1) / th
        guard cols <= 256, rows <= 256 else {
            throw ConvertError(
                file: file,
                reason:
                    "\(width)×\(height) needs a \(cols)×\(rows) grid of \(tileSize) px tiles; at most 256×256 (use a larger tile size)"
            )
        }
        return TileLayout(width: width, height: height, tileWidth: tw, tileHeight: th, columns: cols, rows: rows)
    }

    /// The tile side for an image side of `length` px: the side rounded up to a multiple of 64 when it fits in one
    /// tile, else the candidate (`tileSize`, then ± 64, each 64…4096 and at most 256 tiles) whose whole tiles overrun
    /// `length` least.
    static func side(for length: Int, tileSize: Int) -> Int {
        let aligned = max(64, (length + 63) / 64 * 64)
        if aligned <= tileSize { return aligned }
        var best = tileSize
        for c in [tileSize + 64, tileSize - 64] where c >= 64 && c <= 4096 && (length + c - 1) / c <= 256 {
            if (length + c - 1) / c * c < (length + best - 1) / best * best { best = c }
        }
        return best
    }

    /// How an image is coded: the tile layout of `make`, or, for an image coded untiled whose width or height is odd,
    /// a 1×1 grid over one tile padded to multiples of 64 (heif-enc too writes odd images as a 1×1 grid). A coded
    /// item of odd size would be padded by libheif and cropped back with a `clap` of odd width or height, which MIAF
    /// §7.3.6.7 forbids under 4:2:0, and its `ispe` would not be the size its stream decodes to (HEIF §6.5.3.1); the
    /// grid's output size crops the padding instead. A side under 64 px is wrapped too: libheif 1.15 pads it to 64
    /// without a conformance window, so the stream would decode larger than its `ispe`. Nil: one untiled item of even
    /// size, 64 px or more a side.
    static func coding(width: Int, height: Int, tileSize: Int, file: String) throws -> TileLayout? {
        if let layout = try make(width: width, height: height, tileSize: tileSize, file: file) { return layout }
        guard width % 2 == 1 || height % 2 == 1 || width < 64 || height < 64 else { return nil }
        // Multiples of 64, as MIAF §7.3.11.4.2 recommends for grid tiles (x265 pads to its 8 px coding units anyway).
        func align(_ v: Int) -> Int { (v + 63) / 64 * 64 }
        return TileLayout(
            width: width, height: height, tileWidth: align(width), tileHeight: align(height), columns: 1, rows: 1)
    }
}

/// A bounded pool of encoder threads: `submit` hands a tile over (waiting while `capacity` tiles are queued), worker
/// threads encode tiles in parallel, `finish` returns the coded tiles in submission-index order.
///
/// Dedicated threads (not GCD) so that a producer waiting for room can never starve the workers of a thread, even
/// when several conversions run at once.
// unchecked: every mutable field is read and written under `cond`.
final class TileEncodePool: @unchecked Sendable {
    private let cond = NSCondition()
    private var queue: [(index: Int, pixels: HeifPixels)] = []
    private var results: [Int: CodedItem] = [:]
    private var failure: Error?
    private var closed = false
    private var running: Int
    private let capacity: Int
    private let encode: @Sendable (HeifPixels) throws -> CodedItem

    /// Starts `workers` threads.
    /// - Parameters:
    ///   - workers: encoder threads (≥ 1).
    ///   - capacity: tiles that may wait in the queue before `submit` blocks (≥ 1).
    ///   - encode: codes one tile; a throw stops the pool and is rethrown by `submit`/`finish`.
    init(workers: Int, capacity: Int, encode: @escaping @Sendable (HeifPixels) throws -> CodedItem) {
        self.capacity = max(1, capacity)
        self.encode = encode
        running = max(1, workers)
        for _ in 0..<running {
            let t = Thread { [self] in work() }
            t.stackSize = 8 << 20
            t.start()
        }
    }

    private func work() {
        while true {
            cond.lock()
            while queue.isEmpty && !closed && failure == nil { cond.wait() }
            if queue.isEmpty || failure != nil {
                running -= 1
                cond.broadcast()
                cond.unlock()
                return
            }
            let job = queue.removeFirst()
            cond.broadcast()
            cond.unlock()
            do {
                let coded = try encode(job.pixels)
                cond.lock()
                results[job.index] = coded
                cond.unlock()
            } catch {
                cond.lock()
                if failure == nil { failure = error }
                cond.broadcast()
                cond.unlock()
            }
        }
    }

    /// Queues one tile; waits while the queue is full.
    /// - Throws: the first error of a worker.
    func submit(_ index: Int, _ pixels: HeifPixels) throws {
        cond.lock()
        defer { cond.unlock() }
        while queue.count >= capacity && failure == nil { cond.wait() }
        if let failure { throw failure }
        queue.append((index, pixels))
        cond.broadcast()
    }

    /// Waits for every queued tile and stops the threads.
    /// - Parameter count: how many tiles were submitted (indices 0 ..< count).
    /// - Returns: the coded tiles by index.
    /// - Throws: the first error of a worker.
    func finish(count: Int) throws -> [CodedItem] {
        cond.lock()
        closed = true
        cond.broadcast()
        while running > 0 { cond.wait() }
        let failure = failure
        let results = results
        cond.unlock()
        if let failure { throw failure }
        return try (0..<count).map { i in
            guard let r = results[i] else {
                throw ConvertError(file: "", reason: "tile \(i) was not encoded")
            }
            return r
        }
    }

    /// Stops the threads without waiting for queued tiles (after an error on the producer's side).
    func abandon() {
        cond.lock()
        queue.removeAll()
        closed = true
        cond.broadcast()
        while running > 0 { cond.wait() }
        cond.unlock()
    }
}

/// Copies one tile out of a band of rendered rows, replicating the last column and row into the padding.
/// - Parameters:
///   - band: interleaved samples, `bandRows` rows of `width` pixels × `channels`.
///   - width: the image width.
///   - bandRows: rows present in the band (≤ tile height).
///   - x0: the tile's first column.
///   - layout: the tile size.
///   - channels: 3 (RGB) or 1 (gain map).
/// - Returns: `tileWidth × tileHeight × channels` samples.
func cutTile<T: FixedWidthInteger>(
    _ band: UnsafePointer<T>, width: Int, bandRows: Int, x0: Int, tileWidth: Int, tileHeight: Int, channels: Int
) -> [T] {
    let rowSamples = tileWidth * channels
    return [T](unsafeUninitializedCapacity: rowSamples * tileHeight) { out, n in
        let inside = max(0, min(tileWidth, width - x0))
        for ty in 0..<tileHeight {
            let src = band + min(ty, bandRows - 1) * width * channels
            let dst = out.baseAddress! + ty * rowSamples
            (dst).update(from: src + x0 * channels, count: inside * channels)
            if inside < tileWidth {
                let last = src + (width - 1) * channels
                for tx in inside..<tileWidth {
                    for c in 0..<channels { dst[tx * channels + c] = last[c] }
                }
            }
        }
        n = rowSamples * tileHeight
    }
}
