import JXLCodec

/// A raw image decoded from JPEG XL tiles, as stored (interleaved fields until `deinterleave`): integer or float
/// samples, row-major, `samples` per pixel.
struct StoredImage {
    let width: Int, height: Int, samples: Int
    private(set) var integers: [UInt16] = []
    private(set) var floats: [Float] = []
    private var kind: Bool? = nil  // nil until the first tile: true for float

    var isFloat: Bool { kind == true }

    init(width: Int, height: Int, samples: Int) {
        self.width = width
        self.height = height
        self.samples = samples
    }

    /// Copies the part of `tile` inside the image to (x, y).
    mutating func place(_ tile: JXLImage, x: Int, y: Int, tile index: Int) throws(JXLDNG.Failure) {
        if kind == nil {
            kind = tile.isFloat
            if tile.isFloat {
                floats = [Float](repeating: 0, count: width * height * samples)
            } else {
                integers = [UInt16](repeating: 0, count: width * height * samples)
            }
        }
        guard kind == tile.isFloat else {
            throw JXLDNG.Failure(description: "JPEG XL tile \(index) mixes float and integer samples with the others")
        }
        let w = min(tile.width, width - x) * samples
        for r in 0..<min(tile.height, height - y) {
            let src = r * tile.width * samples
            let dst = ((y + r) * width + x) * samples
            if tile.isFloat {
                floats.replaceSubrange(dst..<(dst + w), with: tile.floats[src..<(src + w)])
            } else {
                integers.replaceSubrange(dst..<(dst + w), with: tile.integers[src..<(src + w)])
            }
        }
    }

    /// Where each stored line of an image interleaved `factor` ways lies (the fields one after the other, field f
    /// holding lines f, f + factor, f + 2·factor …).
    static func actualLines(count: Int, factor: Int) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        for field in 0..<factor { out += stride(from: field, to: count, by: factor) }
        return out
    }

    /// Undoes row and column interleaving: every sample moves from its stored place to its place in the picture.
    mutating func deinterleave(rows: Int, columns: Int) {
        let rowOf = Self.actualLines(count: height, factor: rows)
        let colOf = Self.actualLines(count: width, factor: columns)
        func move<T>(_ src: [T]) -> [T] {
            var dst = src
            for sr in 0..<height {
                let (from, to) = (sr * width, rowOf[sr] * width)
                for sc in 0..<width {
                    for s in 0..<samples { dst[(to + colOf[sc]) * samples + s] = src[(from + sc) * samples + s] }
                }
            }
            return dst
        }
        if isFloat { floats = move(floats) } else { integers = move(integers) }
    }

    /// The samples of the `width × height` block at (x, y) as uncompressed TIFF data: 16-bit or 32-bit float words
    /// in the file's byte order, 8-bit bytes, or other depths as an MSB-first bit stream with each row starting on a
    /// byte boundary. Samples beyond the image (a whole tile's padding) are 0; integers above the depth's maximum
    /// are clipped to it.
    func encode(x: Int, y: Int, width w: Int, height h: Int, bits: Int, bigEndian: Bool) -> [UInt8] {
        let rowSamples = w * samples
        let rowBytes = (rowSamples * bits + 7) / 8
        var out = [UInt8](repeating: 0, count: rowBytes * h)
        let maxCode = bits >= 16 ? UInt32(UInt16.max) : UInt32((1 << bits) - 1)
        for r in 0..<h where y + r < height {
            var p = r * rowBytes
            var acc: UInt64 = 0
            var n = 0
            for s in 0..<rowSamples {
                let col = x + s / samples
                let i = ((y + r) * width + col) * samples + s % samples
                let inside = col < width
                if bits == 32 {
                    let v = inside ? floats[i].bitPattern : 0
                    put(v, 4, at: p, into: &out, bigEndian: bigEndian)
                    p += 4
                    continue
                }
                let v = inside ? min(UInt32(integers[i]), maxCode) : 0
                if bits == 16 {
                    put(v, 2, at: p, into: &out, bigEndian: bigEndian)
                    p += 2
                    continue
                }
                acc = acc << UInt64(bits) | UInt64(v)
                n += bits
                while n >= 8 {
                    out[p] = UInt8(truncatingIfNeeded: acc >> UInt64(n - 8))
                    p += 1
                    n -= 8
                }
                acc &= (1 << UInt64(n)) - 1
            }
            if n > 0 { out[p] = UInt8(truncatingIfNeeded: acc << UInt64(8 - n)) }
        }
        return out
    }

    private func put(_ v: UInt32, _ size: Int, at p: Int, into out: inout [UInt8], bigEndian: Bool) {
        for k in 0..<size {
            let shift = UInt32(8 * (bigEndian ? size - 1 - k : k))
            out[p + k] = UInt8(truncatingIfNeeded: v >> shift)
        }
    }
}
