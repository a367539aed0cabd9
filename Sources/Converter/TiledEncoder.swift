import Foundation
import HEIF
import HeifCodec

// Tiled encoding (ISO/IEC 23008-12 §6.6.2.3 image grids): the image is cut into equal tiles in raster order, each
// coded as an independent hidden `hvc1` item by a bounded pool of encoder threads, and a `grid` derived item puts
// them back together; the grid's output size crops the padding of the right and bottom tiles.

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
    /// Tiles are `tileSize` square, except that a side of the image shorter than one tile gets tiles of that side
    /// rounded up to a multiple of 64 (x265's CTU), so a 4000×40 strip is not coded as 512-row tiles of padding.
    /// - Throws: `ConvertError` when the grid would need more than 256 rows or columns (ImageGrid stores rows − 1
    ///   and columns − 1 in 8 bits).
    static func make(width: Int, height: Int, tileSize: Int, file: String) throws -> TileLayout? {
        guard tileSize > 0, width > tileSize || height > tileSize else { return nil }
        func align(_ v: Int) -> Int { max(64, (v + 63) / 64 * 64) }
        let tw = min(tileSize, align(width))
        let th = min(tileSize, align(height))
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
}

/// A bounded pool of encoder threads: `submit` hands a tile over (waiting while `capacity` tiles are queued), worker
/// threads encode tiles in parallel, `finish` returns the coded tiles in submission-index order.
///
/// Dedicated threads (not GCD) so that a producer waiting for room can never starve the workers of a thread, even
/// when several conversions run at once.
final class TileEncodePool: @unchecked Sendable {
    private let cond = NSCondition()
    private var queue: [(index: Int, pixels: HeifPixels)] = []
    private var results: [Int: Converter.CodedItem] = [:]
    private var failure: Error?
    private var closed = false
    private var running: Int
    private let capacity: Int
    private let encode: @Sendable (HeifPixels) throws -> Converter.CodedItem

    /// Starts `workers` threads.
    /// - Parameters:
    ///   - workers: encoder threads (≥ 1).
    ///   - capacity: tiles that may wait in the queue before `submit` blocks (≥ 1).
    ///   - encode: codes one tile; a throw stops the pool and is rethrown by `submit`/`finish`.
    init(workers: Int, capacity: Int, encode: @escaping @Sendable (HeifPixels) throws -> Converter.CodedItem) {
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
    func finish(count: Int) throws -> [Converter.CodedItem] {
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
