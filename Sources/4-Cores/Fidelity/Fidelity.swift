import ColorScience
import Foundation

// Fidelity: image-quality metrics for the quality ladder. Pure Swift, imports no C module (layer 3).
//
// What is computed, exactly:
//   Luma   Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' (ITU-R BT.709-6 item 3.2 luma weights) on the NON-linear
//          (transfer-encoded) samples scaled to [0, 1], so the data range L is 1.
//   SSIM   Wang, Bovik, Sheikh, Simoncelli, "Image quality assessment: from error visibility to structural
//          similarity", IEEE TIP 13(4), 2004, eq. 13 with the paper's constants: an 11×11 circular-symmetric
//          Gaussian window, σ = 1.5 (radius 5, truncated and normalised to sum 1, separable), K1 = 0.01,
//          K2 = 0.03, C1 = (K1·L)², C2 = (K2·L)²; local statistics with population (1/N) moments. The map is
//          evaluated only where the whole window fits ("valid" region, (W−10)×(H−10) positions): identical to
//          scikit-image `structural_similarity(gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
//          data_range=1)`, which filters with reflection and then crops the 5-pixel border before averaging.
//   mean   The arithmetic mean of the valid SSIM map (MSSIM, paper eq. 17).
//   worst  The minimum over 64×64 blocks of the block's mean SSIM: blocks tile the valid map from its top-left
//          corner; partial blocks at the right and bottom edges are left out; a map smaller than one block is one
//          block. Large flat chart areas score ≈ 1 and inflate the mean; the worst block shows local damage.
//   PSNR   10·log10(peak² / MSE) over the given samples; +∞ when identical.

/// A single-channel image of `Float` samples, row-major.
public struct Plane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var values: [Float]

    /// - Throws: `FidelityError.sizeMismatch` when `values.count != width * height`.
    public init(width: Int, height: Int, values: [Float]) throws {
        guard width > 0, height > 0, values.count == width * height else {
            throw FidelityError.sizeMismatch(
                "plane \(width)×\(height) needs \(max(0, width * height)) samples, got \(values.count)")
        }
        self.width = width
        self.height = height
        self.values = values
    }

    /// The sub-rectangle starting at (`x`, `y`).
    /// - Throws: `FidelityError.sizeMismatch` when the rectangle leaves the plane.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) throws -> Plane {
        guard x >= 0, y >= 0, w > 0, h > 0, x + w <= width, y + h <= height else {
            throw FidelityError.sizeMismatch("crop \(w)×\(h)+\(x)+\(y) outside \(width)×\(height)")
        }
        var out = [Float](repeating: 0, count: w * h)
        for r in 0..<h {
            for c in 0..<w { out[r * w + c] = values[(y + r) * width + x + c] }
        }
        return try Plane(width: w, height: h, values: out)
    }
}

/// Why a metric could not be computed.
public enum FidelityError: Error, Equatable, CustomStringConvertible, Sendable {
    case sizeMismatch(String)
    case tooSmall(String)

    public var description: String {
        switch self {
        case .sizeMismatch(let s), .tooSmall(let s): return s
        }
    }
}

/// BT.709 luma from interleaved RGB.
public enum Luma {
    /// ITU-R BT.709-6 luma weights (R, G, B).
    public static let weights = LuminanceWeights.bt709

    /// Y' of interleaved non-linear RGB samples with values 0…`maxCode` (255 for 8-bit, 1023 for 10-bit).
    /// - Parameters:
    ///   - samples: R, G, B, R, G, B, … (`3 · width · height` values).
    ///   - maxCode: the code of full scale.
    /// - Returns: the luma plane in [0, 1].
    /// - Throws: `FidelityError.sizeMismatch` when the sample count is wrong.
    public static func plane<T: BinaryInteger>(rgb samples: [T], width: Int, height: Int, maxCode: Int) throws -> Plane
    {
        guard samples.count == 3 * width * height else {
            throw FidelityError.sizeMismatch(
                "RGB \(width)×\(height) needs \(3 * width * height) samples, got \(samples.count)")
        }
        let s = 1 / Double(maxCode)
        var out = [Float](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let r = Double(samples[3 * i])
            let g = Double(samples[3 * i + 1])
            let b = Double(samples[3 * i + 2])
            out[i] = Float((weights.r * r + weights.g * g + weights.b * b) * s)
        }
        return try Plane(width: width, height: height, values: out)
    }

    /// Y' of interleaved non-linear RGB already scaled to [0, 1] (e.g. a float render before quantisation).
    /// - Throws: `FidelityError.sizeMismatch` when the sample count is wrong.
    public static func plane(rgb samples: [Float], width: Int, height: Int) throws -> Plane {
        guard samples.count == 3 * width * height else {
            throw FidelityError.sizeMismatch(
                "RGB \(width)×\(height) needs \(3 * width * height) samples, got \(samples.count)")
        }
        var out = [Float](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let r = Double(samples[3 * i])
            let g = Double(samples[3 * i + 1])
            let b = Double(samples[3 * i + 2])
            out[i] = Float(weights.r * r + weights.g * g + weights.b * b)
        }
        return try Plane(width: width, height: height, values: out)
    }
}

/// The SSIM of a distorted plane against a reference.
public struct SSIMResult: Sendable, Equatable {
    /// Mean of the valid SSIM map (MSSIM).
    public var mean: Double
    /// Minimum over `blockSize`² blocks of the block's mean SSIM.
    public var worstBlock: Double
    /// Top-left corner of the worst block in image coordinates.
    public var worstBlockX: Int
    public var worstBlockY: Int
    public var blockSize: Int
}

/// Structural similarity (Wang et al. 2004) with the Gaussian window; see the file header for every detail.
public enum SSIM {
    public static let k1 = 0.01
    public static let k2 = 0.03
    public static let sigma = 1.5
    /// Window radius: `Int(3.5 · σ + 0.5)` = 5 (scipy's truncate 3.5), so the window is 11×11.
    public static let radius = 5
    /// Side of the blocks for `SSIMResult.worstBlock`.
    public static let defaultBlockSize = 64

    /// The normalised 1-D Gaussian taps (2·radius + 1 of them).
    public static let kernel: [Double] = {
        let k = (-radius...radius).map { x in exp(-0.5 * Double(x * x) / (sigma * sigma)) }
        let s = k.reduce(0, +)
        return k.map { $0 / s }
    }()

    /// A reference plane with its local mean and mean-square maps computed once, for comparing many encodes.
    public struct Reference: Sendable {
        public let plane: Plane
        let mu: [Double]
        let muSq: [Double]

        /// - Throws: `FidelityError.tooSmall` when the plane is smaller than the 11×11 window.
        public init(_ plane: Plane) throws {
            guard plane.width > 2 * SSIM.radius, plane.height > 2 * SSIM.radius else {
                throw FidelityError.tooSmall("SSIM needs at least 11×11 pixels, got \(plane.width)×\(plane.height)")
            }
            self.plane = plane
            let x = plane.values.map(Double.init)
            mu = SSIM.filterValid(x, plane.width, plane.height)
            muSq = SSIM.filterValid(x.map { $0 * $0 }, plane.width, plane.height)
        }
    }

    /// SSIM of `distorted` against `reference`.
    /// - Parameters:
    ///   - reference: the reference plane (e.g. the float render).
    ///   - distorted: the decoded plane, same size.
    ///   - dataRange: L, the dynamic range of the samples (1 for planes in [0, 1]).
    ///   - blockSize: side of the worst-block tiles.
    /// - Returns: mean and worst-block SSIM.
    /// - Throws: `FidelityError` on a size mismatch or a plane under 11×11.
    public static func compare(
        _ reference: Plane, _ distorted: Plane, dataRange: Double = 1, blockSize: Int = defaultBlockSize
    ) throws -> SSIMResult {
        try compare(Reference(reference), distorted, dataRange: dataRange, blockSize: blockSize)
    }

    /// SSIM of `distorted` against a precomputed reference (see `compare(_:_:dataRange:blockSize:)`).
    /// - Throws: `FidelityError` on a size mismatch.
    public static func compare(
        _ reference: Reference, _ distorted: Plane, dataRange: Double = 1, blockSize: Int = defaultBlockSize
    ) throws -> SSIMResult {
        let w = reference.plane.width
        let h = reference.plane.height
        guard distorted.width == w, distorted.height == h else {
            throw FidelityError.sizeMismatch("SSIM of \(distorted.width)×\(distorted.height) against \(w)×\(h)")
        }
        guard blockSize > 0 else { throw FidelityError.tooSmall("block size must be positive") }
        let y = distorted.values.map(Double.init)
        let x = reference.plane.values
        let uy = filterValid(y, w, h)
        let uyy = filterValid(y.map { $0 * $0 }, w, h)
        var xy = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) { xy[i] = Double(x[i]) * y[i] }
        let uxy = filterValid(xy, w, h)
        let c1 = (k1 * dataRange) * (k1 * dataRange)
        let c2 = (k2 * dataRange) * (k2 * dataRange)
        let mw = w - 2 * radius
        let mh = h - 2 * radius
        var map = [Double](repeating: 0, count: mw * mh)
        var sum = 0.0
        for i in 0..<(mw * mh) {
            let ux = reference.mu[i]
            let uyv = uy[i]
            let vx = reference.muSq[i] - ux * ux
            let vy = uyy[i] - uyv * uyv
            let vxy = uxy[i] - ux * uyv
            let a1 = 2 * ux * uyv + c1
            let a2 = 2 * vxy + c2
            let b1 = ux * ux + uyv * uyv + c1
            let b2 = vx + vy + c2
            let s = (a1 * a2) / (b1 * b2)
            map[i] = s
            sum += s
        }
        // Worst block: full blocks only, tiled from the map's top-left; a map smaller than a block is one block.
        let bx = mw / blockSize
        let by = mh / blockSize
        var worst = Double.infinity
        var wx = 0
        var wy = 0
        if bx == 0 || by == 0 {
            worst = sum / Double(mw * mh)
        } else {
            for j in 0..<by {
                for i in 0..<bx {
                    var s = 0.0
                    for r in (j * blockSize)..<((j + 1) * blockSize) {
                        let row = r * mw
                        for c in (i * blockSize)..<((i + 1) * blockSize) { s += map[row + c] }
                    }
                    let m = s / Double(blockSize * blockSize)
                    if m < worst {
                        worst = m
                        wx = i * blockSize
                        wy = j * blockSize
                    }
                }
            }
        }
        return SSIMResult(
            mean: sum / Double(mw * mh), worstBlock: worst, worstBlockX: wx + radius, worstBlockY: wy + radius,
            blockSize: blockSize)
    }

    /// Separable Gaussian filtering, "valid" part only: (w − 10) × (h − 10) outputs.
    static func filterValid(_ src: [Double], _ w: Int, _ h: Int) -> [Double] {
        let k = kernel
        let n = k.count
        let mw = w - n + 1
        let mh = h - n + 1
        var tmp = [Double](repeating: 0, count: mw * h)
        src.withUnsafeBufferPointer { s in
            k.withUnsafeBufferPointer { kk in
                tmp.withUnsafeMutableBufferPointer { t in
                    for y in 0..<h {
                        let row = y * w
                        let orow = y * mw
                        for x in 0..<mw {
                            var acc = 0.0
                            for j in 0..<n { acc += kk[j] * s[row + x + j] }
                            t[orow + x] = acc
                        }
                    }
                }
            }
        }
        var out = [Double](repeating: 0, count: mw * mh)
        tmp.withUnsafeBufferPointer { t in
            k.withUnsafeBufferPointer { kk in
                out.withUnsafeMutableBufferPointer { o in
                    for y in 0..<mh {
                        let orow = y * mw
                        for j in 0..<n {
                            let kj = kk[j]
                            let trow = (y + j) * mw
                            for x in 0..<mw { o[orow + x] += kj * t[trow + x] }
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Peak signal-to-noise ratio.
public enum PSNR {
    /// 10·log10(peak² / MSE) of `b` against `a`.
    /// - Parameters:
    ///   - a: reference samples.
    ///   - b: distorted samples, same count.
    ///   - peak: the full-scale value (1 for [0, 1] data, 255 for 8-bit codes).
    /// - Returns: decibels; `+∞` when the samples are identical.
    /// - Throws: `FidelityError.sizeMismatch` when the counts differ or are zero.
    public static func decibels(_ a: [Float], _ b: [Float], peak: Double = 1) throws -> Double {
        guard a.count == b.count, !a.isEmpty else {
            throw FidelityError.sizeMismatch("PSNR of \(b.count) samples against \(a.count)")
        }
        var se = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - Double(b[i])
            se += d * d
        }
        if se == 0 { return .infinity }
        return 10 * log10(peak * peak / (se / Double(a.count)))
    }
}
