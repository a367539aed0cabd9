import ColorScience
import Foundation

// A primary coded as one picture (as Readback codes a frame within HEVC level 4.1) reduced as a grid of one tile.
// libheif 1.15's libde265 plugin decodes on one thread, though x265 codes one picture in wavefront rows, which
// libde265 decodes side by side on worker threads (a 1224 × 816 10-bit picture: about 70 ms on one core, 45 ms on
// two, `libde265-dec265 -t`); the conversion then runs in bands of block rows, one per core.

extension GridSums {
    /// libde265's worker threads for a picture decoded alone: one per core, at most four (none on one core).
    static var pictureThreads: Int32 {
        let n = ProcessInfo.processInfo.activeProcessorCount
        return n > 1 ? Int32(min(4, n)) : 0
    }

    /// Block rows a one-picture lane sums at a time.
    static let chunk = 16

    /// The block means of one picture (`stream`: its parameter sets and NAL units, each after a 4-byte length) as
    /// interleaved 8-bit RGB codes, as `rgb()` gives them: each pixel converted as `accumulate` converts a tile's; nil
    /// when it is not 8- to 12-bit YCbCr 4:2:0 of the geometry's size.
    static func onePicture(
        _ stream: UnsafeRawBufferPointer, geometry g: GridGeometry, factor f: Int, width rw: Int, height rh: Int,
        matrix: (kr: Double, kb: Double)
    ) throws -> [UInt16]? {
        try withPicture(stream, threads: pictureThreads, label: "the primary") { pic -> [UInt16]? in
            guard let planes = planes(pic, width: g.tileWidth, height: g.tileHeight) else { return nil }
            let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, rh))
            var out = [UInt16](repeating: 0, count: 3 * rw * rh)
            out.withUnsafeMutableBufferPointer { buf in
                // Each lane sums its own band of block rows and writes its own rows of `out`.
                let (shared, source) = (UnsafeSendable(buf), UnsafeSendable(planes))
                Parallel.forEach(lanes) { lane in
                    // The band in passes of `chunk` block rows through one set of sums, which stays in cache.
                    let (b0, b1) = (rh * lane / lanes, rh * (lane + 1) / lanes)
                    var s = GridSums(
                        width: rw, height: min(chunk, b1 - b0), factor: f, matrix: matrix, firstBlockRow: b0)
                    for c0 in stride(from: b0, to: b1, by: chunk) {
                        s.restart(at: c0, rows: min(chunk, b1 - c0))
                        s.accumulate(source.value, x0: 0, y0: 0, tileWidth: g.tileWidth, tileHeight: g.tileHeight)
                        for (i, c) in s.rgb().enumerated() { shared.value[3 * rw * c0 + i] = c }
                    }
                }
            }
            return out
        }
    }
}
