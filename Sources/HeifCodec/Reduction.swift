import Foundation

// The render check's reduced decode: libheif's RGB plane averaged down on the way out, on every core.

extension HeifDecoder {
    /// A plane handed to `reduce`'s bands, which read it or write disjoint rows of it.
    struct Plane<T>: @unchecked Sendable {
        let base: UnsafeMutablePointer<T>
        let stride: Int
        init(base: UnsafePointer<T>, stride: Int) {
            self.base = UnsafeMutablePointer(mutating: base)
            self.stride = stride
        }
        init(_ buf: UnsafeMutableBufferPointer<T>) {
            base = buf.baseAddress!
            stride = 0
        }
    }

    /// Interleaved 8-bit RGB reduced by `factor` (each output sample the rounded mean of a factor × factor block)
    /// into `width × height` pixels, in two bands of output rows at once.
    static func reduce(
        _ plane: Plane<UInt8>, factor f: Int, width rw: Int, height rh: Int, into out: Plane<UInt16>
    ) {
        let half = f * f / 2
        let bands = rh >= 2 ? 2 : 1
        DispatchQueue.concurrentPerform(iterations: bands) { b in
            var acc = [Int](repeating: 0, count: rw * 3)
            for ry in (b * rh / bands)..<((b + 1) * rh / bands) {
                for i in acc.indices { acc[i] = 0 }
                for y in (ry * f)..<(ry * f + f) {
                    let row = plane.base + y * plane.stride
                    for rx in 0..<rw {
                        var p = row + 3 * rx * f
                        for _ in 0..<f {
                            acc[3 * rx] += Int(p[0])
                            acc[3 * rx + 1] += Int(p[1])
                            acc[3 * rx + 2] += Int(p[2])
                            p += 3
                        }
                    }
                }
                for i in acc.indices { out.base[ry * rw * 3 + i] = UInt16((acc[i] + half) / (f * f)) }
            }
        }
    }
}
