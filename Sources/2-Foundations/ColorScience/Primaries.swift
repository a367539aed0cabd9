/// Luminance weights: the Y row of a linear RGB → XYZ matrix, which is also the luma row of the matching
/// RGB → YCbCr matrix.
///
/// Two precisions exist on purpose and each caller keeps its own, because outputs are compared byte for byte with
/// earlier builds: the four-decimal weights as the standards publish them (BT.709, BT.2020; Display P3 rounded the
/// same way), and six-decimal weights derived from the primaries' chromaticities and the D65 white point, which the
/// converter's renderer has always used for the HDR luminance and the SDR roll-off.
public struct LuminanceWeights: Sendable, Hashable {
    /// The weights of red, green and blue.
    public var r: Double, g: Double, b: Double

    /// Makes the weights.
    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// The weights in single precision. Each of the named weights converts to exactly the Float its decimal
    /// literal gives (a test holds this), so Float callers see the numbers they always had.
    public var float: (r: Float, g: Float, b: Float) { (Float(r), Float(g), Float(b)) }

    /// ITU-R BT.709-6 item 3.2 (and sRGB), four decimals.
    public static let bt709 = LuminanceWeights(r: 0.2126, g: 0.7152, b: 0.0722)
    /// ITU-R BT.2020-2 / BT.2100, four decimals.
    public static let bt2020 = LuminanceWeights(r: 0.2627, g: 0.6780, b: 0.0593)
    /// Display P3 (SMPTE EG 432-1 primaries, D65), four decimals.
    public static let displayP3 = LuminanceWeights(r: 0.2290, g: 0.6917, b: 0.0793)
    /// BT.709 / sRGB derived from the chromaticities and D65, six decimals (the converter's renderer).
    public static let bt709Derived = LuminanceWeights(r: 0.212639, g: 0.715169, b: 0.072192)
    /// Display P3 derived from the chromaticities and D65, six decimals (the converter's renderer).
    public static let displayP3Derived = LuminanceWeights(r: 0.228975, g: 0.691739, b: 0.079287)
}

/// Linear-light matrices between the RGB spaces the project converts, row-major 3×3 (`[m00, m01, m02, m10, …]`,
/// applied to a column vector).
public enum Primaries {
    /// Linear sRGB / BT.709 (D65) → XYZ, six decimals as dcraw and LibRaw tabulate it (`xyz_rgb`); its Y row is a
    /// third rounding of the BT.709 weights, kept because the corpus DNGs are built with it.
    public static let sRGBToXYZ: [Double] = [
        0.412453, 0.357580, 0.180423,
        0.212671, 0.715160, 0.072169,
        0.019334, 0.119193, 0.950227,
    ]
    /// XYZ → linear sRGB (D65), the inverse of `sRGBToXYZ`.
    public static let xyzToSRGB: [Double] = Matrix3.invert(sRGBToXYZ)

    /// Linear Display P3 → linear sRGB (both D65), four decimals: the matrix `readback corpus remosaic` takes an
    /// iPhone photo to sRGB primaries with (its DNGs depend on these digits).
    public static let displayP3ToSRGB: [Double] = [
        1.2249, -0.2247, 0, -0.0420, 1.0419, 0, -0.0197, -0.0786, 1.0979,
    ]

    /// Linear ProPhoto / ROMM (D50) → linear Display P3 (D65), Bradford-adapted: LibRaw's working space to the
    /// converter's default output.
    public static let proPhotoToDisplayP3: [Float] = [
        1.632564, -0.379769, -0.252796, -0.153702, 1.166713, -0.013011, 0.010393, -0.062808, 1.052415,
    ]
    /// Linear ProPhoto / ROMM (D50) → linear sRGB / BT.709 (D65), Bradford-adapted.
    public static let proPhotoToSRGB: [Float] = [
        2.034368, -0.727634, -0.306733, -0.228827, 1.231753, -0.002927, -0.008558, -0.153268, 1.161827,
    ]

    /// Linear Display P3 → XYZ with the white adapted to D50 by Bradford: its columns are an ICC profile's
    /// `rXYZ`, `gXYZ` and `bXYZ` colorants (ICC.1:2010 §9.2).
    public static let displayP3ToXYZD50: [Double] = [
        0.515104, 0.291967, 0.157154, 0.241183, 0.692235, 0.066582, -0.001049, 0.041882, 0.784384,
    ]
    /// Linear sRGB → XYZ with the white adapted to D50 by Bradford (the ICC colorants of sRGB).
    public static let sRGBToXYZD50: [Double] = [
        0.436030, 0.385104, 0.143092, 0.222479, 0.716896, 0.060624, 0.013926, 0.097092, 0.714197,
    ]
    /// Bradford chromatic adaptation XYZ(D65) → XYZ(D50), six decimals (an ICC `chad` tag, ICC.1:2010 Annex E).
    public static let bradfordD65ToD50: [Double] = [
        1.047861, 0.022910, -0.050162, 0.029574, 0.990473, -0.017062, -0.009240, 0.015052, 0.751976,
    ]
}

/// White points as XYZ with Y = 1.
public enum WhitePoint {
    /// CIE D50 as the ICC profile connection space rounds it (ICC.1:2010 §7.2.16).
    public static let d50: (x: Double, y: Double, z: Double) = (0.9642, 1.0, 0.8249)
}

/// Row-major 3×3 matrix arithmetic on `[Double]` of 9 elements.
public enum Matrix3 {
    /// The product `a · b`.
    public static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { r[3 * i + j] += a[3 * i + k] * b[3 * k + j] } } }
        return r
    }

    /// `diag(d) · m`: row i of `m` scaled by `d[i]`.
    public static func scaleRows(_ d: [Double], _ m: [Double]) -> [Double] {
        (0..<9).map { d[$0 / 3] * m[$0] }
    }

    /// `m · v` for a column vector.
    public static func apply(_ m: [Double], _ v: (Double, Double, Double)) -> (Double, Double, Double) {
        (
            m[0] * v.0 + m[1] * v.1 + m[2] * v.2, m[3] * v.0 + m[4] * v.1 + m[5] * v.2,
            m[6] * v.0 + m[7] * v.1 + m[8] * v.2
        )
    }

    /// The inverse (by cofactors; the caller ensures `m` is invertible).
    public static func invert(_ m: [Double]) -> [Double] {
        let a = m[0]
        let b = m[1]
        let c = m[2]
        let d = m[3]
        let e = m[4]
        let f = m[5]
        let g = m[6]
        let h = m[7]
        let i = m[8]
        let ca = e * i - f * h
        let cb = -(d * i - f * g)
        let cc = d * h - e * g
        let det = a * ca + b * cb + c * cc
        return [
            ca / det, -(b * i - c * h) / det, (b * f - c * e) / det,
            cb / det, (a * i - c * g) / det, -(a * f - c * d) / det,
            cc / det, -(a * h - b * g) / det, (a * e - b * d) / det,
        ]
    }
}
