import Foundation

/// CIELAB (CIE 15:2004 §8.2.1) against the D65 white of Y = 1.
public enum CIELAB {
    /// D65 as XYZ, Y = 1 (from its xy chromaticity, `Chromaticity.d65`).
    public static let white: (Double, Double, Double) = (0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290)

    /// L*, a*, b* of an XYZ colour.
    @inline(__always)
    public static func lab(x: Double, y: Double, z: Double) -> (l: Double, a: Double, b: Double) {
        let fx = f(x / white.0)
        let fy = f(y / white.1)
        let fz = f(z / white.2)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    @inline(__always)
    static func f(_ t: Double) -> Double {
        let d = 6.0 / 29
        return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29
    }

    /// CIELAB planes and relative luminance Y of an image, one value per pixel.
    public struct Planes: Sendable {
        public var l: [Double] = []
        public var a: [Double] = []
        public var b: [Double] = []
        public var y: [Double] = []
    }

    /// The CIELAB (D65) planes and relative luminance of `img`, read through its own space.
    public static func planes(_ img: RenderImage) -> Planes {
        let n = img.width * img.height
        guard n > 0 else { return Planes() }
        let m = img.space.toXYZ
        let tf = img.space.transfer
        // Code values are 8-bit or finer; a 4096-entry table keeps the transfer exact to well under a ΔE of 0.01.
        let table = (0...4095).map { tf.decode(Double($0) / 4095) }
        @inline(__always) @Sendable func linear(_ v: Float) -> Double {
            let x = Double(min(max(v, 0), 1)) * 4095
            let i = min(Int(x), 4094)
            return table[i] + (table[i + 1] - table[i]) * (x - Double(i))
        }
        // Every pixel of the four planes is written once below, in bands of pixels on the pool, so the planes start
        // uninitialised (a 1024×683 preview's 22 MB were zeroed first, then written).
        let bands = max(1, min(64, n / 16_384))
        var p = Planes()
        p.l = [Double](unsafeUninitializedCapacity: n) { lb, lc in
            p.a = [Double](unsafeUninitializedCapacity: n) { ab, ac in
                p.b = [Double](unsafeUninitializedCapacity: n) { bb, bc in
                    p.y = [Double](unsafeUninitializedCapacity: n) { yb, yc in
                        // unchecked: each band writes its own pixels of the four planes.
                        let out = UnsafeSendable((lb.baseAddress!, ab.baseAddress!, bb.baseAddress!, yb.baseAddress!))
                        Parallel.forEach(bands) { band in
                            let (lp, ap, bp, yp) = out.value
                            img.samples.withUnsafeBufferPointer { s in
                                for i in (n * band / bands)..<(n * (band + 1) / bands) {
                                    let r = linear(s[3 * i])
                                    let g = linear(s[3 * i + 1])
                                    let b = linear(s[3 * i + 2])
                                    let x = m[0] * r + m[1] * g + m[2] * b
                                    let y = m[3] * r + m[4] * g + m[5] * b
                                    let z = m[6] * r + m[7] * g + m[8] * b
                                    let c = lab(x: x, y: y, z: z)
                                    (lp[i], ap[i], bp[i], yp[i]) = (c.l, c.a, c.b, y)
                                }
                            }
                        }
                        yc = n
                    }
                    bc = n
                }
                ac = n
            }
            lc = n
        }
        return p
    }
}
