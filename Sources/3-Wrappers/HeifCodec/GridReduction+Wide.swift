// Tiles coded at more than 8 bits (Readback's own outputs are 10-bit): libheif 1.15 converts each such tile to
// planar RGB at the tile's depth (its `Op_YCbCr_to_RGB<uint16_t>`: chroma nearest-neighbour upsampled, single-precision
// arithmetic, + 0.5 and truncated, clipped to the depth's range), pastes it into the grid's canvas, and brings the
// canvas to 8 bits by dropping the low bits (`Op_to_sdr_planes`, no rounding). The sums below do the same per pixel.

extension GridSums {
    /// Adds the tile's pixels (`bits` per sample, 9 to 12), converted to 8-bit RGB as libheif converts them, to the
    /// blocks they fall in (the traversal of `accumulate`).
    mutating func accumulateWide(
        _ planes: [(UnsafePointer<UInt16>, Int)], bits: Int, x0: Int, y0: Int, tileWidth tw: Int, tileHeight th: Int
    ) {
        let n = max(0, min(x0 + tw, width * factor) - x0)
        let ((py, sy), (pb, sb), (pr, sr)) = (planes[0], planes[1], planes[2])
        // libheif's coefficients, in single precision from its Kr and Kb: R = Y + r_cr·Cr', G = Y + g_cb·Cb' + g_cr·Cr',
        // B = Y + b_cb·Cb', with Cb' and Cr' centred on half the range.
        let (kr, kb) = (Float(matrix.kr), Float(matrix.kb))
        let rCr = 2 * (-kr + 1)
        let gCb = 2 * kb * (-kb + 1) / (kb + kr - 1)
        let gCr = 2 * kr * (-kr + 1) / (kb + kr - 1)
        let bCb = 2 * (-kb + 1)
        let half = Int32(1) << (bits - 1)
        let maxValue = Int32((1 << bits) - 1)
        let shift = Int32(bits - 8)
        // Per column: the centred chroma of the current chroma row.
        let chroma = UnsafeMutablePointer<Float>.allocate(capacity: 2 * max(1, n))
        defer { chroma.deallocate() }
        let (cbs, crs) = (chroma, chroma + n)
        @inline(__always) func code(_ v: Float) -> Int32 {
            // (long)(v + 0.5f), clipped to 0…max, then the low bits dropped.
            let x = Int32(v + 0.5)  // truncates toward zero, as the C cast; |v| < 2^12
            return min(maxValue, max(0, x)) >> shift
        }
        walkRows(
            x0: x0, y0: y0, tileWidth: tw, tileHeight: th,
            chroma: { row in
                let (lb, lr) = (pb + row * sb, pr + row * sr)
                for x in 0..<n {
                    cbs[x] = Float(Int32(lb[x >> 1]) - half)
                    crs[x] = Float(Int32(lr[x >> 1]) - half)
                }
            },
            luma: { ty, cr, cg, cb in
                let ly = py + ty * sy
                for x in 0..<n {
                    let y = Float(ly[x])
                    let (u, v) = (cbs[x], crs[x])
                    cr[x] &+= code(y + rCr * v)
                    cg[x] &+= code(y + gCb * u + gCr * v)
                    cb[x] &+= code(y + bCb * u)
                }
            })
    }
}
