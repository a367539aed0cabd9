import ColorScience

// The visible noise of a rendered frame, and the encoder quality the default target uses for it.
//
// Estimator: J. Immerkær, "Fast Noise Variance Estimation", Computer Vision and Image Understanding 64(2), 1996:
// the 3×3 mask N = [1 −2 1; −2 4 −2; 1 −2 1] (the difference of two Laplacians) cancels a locally planar signal, and
// for Gaussian noise σ = √(π/2) / 6 · mean |I ∗ N|. A photo is not planar everywhere: edges and texture add to the
// response. So the mean is taken per 16×16 block and the frame's σ is the 10th percentile of the blocks — the flattest
// tenth of the picture, where the response is the noise. Blocks that touch clipped black or white (a code ≤ 16 or
// ≥ 235) are left out: clipping removes the noise there, and a frame with a black border or a blown sky would
// otherwise read as clean. Measured on the 8-bit luma (BT.709 weights of the coded R′G′B′) the encoder receives, so
// σ is in 8-bit code values, what x265 spends its bits on.
//
// What it gives on whole frames (docs/quality-ladder.md "Noise"): the 24 MP chart 0.43 / 1.08 / 2.12 / 4.87 at
// ISO 100 / 800 / 3200 / 12800; the remosaiced photos 0.82–1.18 at ISO 800, 1.71–2.35 at 3200, 4.28–4.93 at 12800;
// the three real camera DNGs 0.31–1.33; fourteen real phone and camera HEICs 0.00–0.74, though their median block
// reads up to 4.2 on texture (a textured frame's flattest tenth still reads its noise).

/// The noise level of a frame and the quality rule built on it.
public enum NoiseLevel {
    /// Block side of the estimate.
    public static let block = 16
    /// The percentile of the block estimates taken as the frame's σ.
    public static let percentile = 0.10

    /// Codes at or beyond these are clipped black or white: a block touching one is left out.
    public static let clippedBelow: Float = 16
    public static let clippedAbove: Float = 235

    /// Immerkær's σ of each full `block`×`block` block of a luma plane (8-bit code values as floats) whose 3×3
    /// neighbourhood lies inside the plane and which touches no clipped code, row-major. Edge pixels are left out
    /// (Tai and Yang's refinement, "A fast method for image noise estimation using Laplacian operator and adaptive
    /// edge detection", ISCCSP 2008): a pixel whose Sobel magnitude |Gx| + |Gy| is in the top `edgeFraction` of the
    /// plane's is an edge, not noise; a block with fewer than half its pixels left measures nothing.
    public static func blockSigmas(_ luma: UnsafeBufferPointer<Float>, width: Int, height: Int) -> [Float] {
        let bw = (width - 2) / block
        let bh = (height - 2) / block
        guard bw > 0, bh > 0, luma.count >= width * height else { return [] }
        // Sobel magnitudes of the interior, and the plane's edge threshold.
        var grad = [Float](repeating: 0, count: width * height)
        grad.withUnsafeMutableBufferPointer { g in
            let (l, g) = (luma.baseAddress!, g.baseAddress!)
            for y in 1..<(height - 1) {
                let (up, mid, dn) = (l + (y - 1) * width, l + y * width, l + (y + 1) * width)
                for x in 1..<(width - 1) {
                    let gx = (up[x + 1] + 2 * mid[x + 1] + dn[x + 1]) - (up[x - 1] + 2 * mid[x - 1] + dn[x - 1])
                    let gy = (dn[x - 1] + 2 * dn[x] + dn[x + 1]) - (up[x - 1] + 2 * up[x] + up[x + 1])
                    g[y * width + x] = abs(gx) + abs(gy)
                }
            }
        }
        // The edge threshold: the order statistic a sort of every 7th magnitude puts at 1 − edgeFraction, selected.
        var sample = stride(from: 0, to: grad.count, by: 7).map { grad[$0] }
        let edge: Float
        if sample.isEmpty {
            edge = .infinity
        } else {
            let at = min(sample.count - 1, Int(Double(sample.count) * (1 - edgeFraction)))
            edge = OrderStatistic.value(&sample, at)
        }
        let k = Float((Double.pi / 2).squareRoot() / 6)
        var out: [Float] = []
        out.reserveCapacity(bw * bh)
        grad.withUnsafeBufferPointer { g in
            let (l, g) = (luma.baseAddress!, g.baseAddress!)
            for by in 0..<bh {
                for bx in 0..<bw {
                    var sum: Float = 0
                    var n = 0
                    var lo: Float = 255
                    var hi: Float = 0
                    for y in (1 + by * block)..<(1 + (by + 1) * block) {
                        let (up, mid, dn) = (l + (y - 1) * width, l + y * width, l + (y + 1) * width)
                        for x in (1 + bx * block)..<(1 + (bx + 1) * block) {
                            let c = mid[x]
                            lo = c < lo ? c : lo
                            hi = c > hi ? c : hi
                            guard g[y * width + x] <= edge else { continue }
                            let v =
                                up[x - 1] - 2 * up[x] + up[x + 1] - 2 * mid[x - 1] + 4 * c - 2 * mid[x + 1]
                                + dn[x - 1] - 2 * dn[x] + dn[x + 1]
                            sum += abs(v)
                            n += 1
                        }
                    }
                    if lo > clippedBelow && hi < clippedAbove && 2 * n >= block * block {
                        out.append(k * sum / Float(n))
                    }
                }
            }
        }
        return out
    }

    /// The fraction of a plane's pixels, by Sobel magnitude, taken as edges and left out of the estimate.
    public static let edgeFraction = 0.10

    /// Fewer unclipped blocks than this measure nothing (a frame almost all black or white): no σ.
    public static let minimumBlocks = 32

    /// The frame's σ from its block estimates: their `percentile`; nil with fewer than `minimumBlocks`.
    public static func sigma(ofBlocks blocks: [Float]) -> Double? {
        guard blocks.count >= minimumBlocks else { return nil }
        let i = min(blocks.count - 1, Int((Double(blocks.count - 1) * percentile).rounded()))
        var values = blocks
        return Double(OrderStatistic.value(&values, i))
    }

    /// One step of the default target's rule: from `minSigma` up, quality `quality`, or `qualityWithScalingLists`
    /// for an encoder that codes HEVC's default scaling lists.
    public struct Step: Sendable, Equatable {
        public let minSigma: Double
        public let quality: Int
        /// One x265 CRF step finer than `quality` (q50, CRF 25, for q47, CRF 26): the lists quantise grain coarser,
        /// and at CRF 26 six of the Canon 6D's seven noisy crops fall under `RealImageRule.minMean`; at CRF 25 every
        /// noisy crop of the five real DNGs keeps at least 0.9785 (mean) and 0.9709 (every block), in 3–14 % fewer
        /// bits than flat lists at CRF 26 (docs/quality-ladder.md "Effort").
        public let qualityWithScalingLists: Int
    }

    /// The default target's quality by noise (`EncodingTarget.visuallyLossless` below the first step). Why these:
    /// docs/quality-ladder.md "Noise". Every ladder image at or above a step's σ passes the visually-lossless rule at
    /// the step's quality; every real camera DNG and photo measured so far lies below the first step.
    public static let steps: [Step] = [Step(minSigma: 1.75, quality: 47, qualityWithScalingLists: 50)]

    /// What the steps keep on every real image (docs/quality-ladder.md "Noise", docs/quality-ladder-steps.tsv): the
    /// default encode against the archival target's encode of the same frame, both decoded, SSIM-Y after the 2×
    /// downscale (`ViewingSize`) at least `minMean` (mean) and `minWorst` (every 64×64 block); and from noise σ
    /// `sizeFromSigma` up, at most `maxBitsPerPixel`, where the data allow it (`sizeHoldsBelowSigma`).
    public enum RealImageRule {
        public static let minMean = 0.975
        public static let minWorst = 0.95
        public static let maxBitsPerPixel = 2.0
        public static let sizeFromSigma = 3.5
        /// Above this σ no quality of the default setting keeps both the fidelity and the size on every real image
        /// measured: the fidelity is kept and the size is what it costs.
        public static let sizeHoldsBelowSigma = 4.83
    }

    /// The quality for a frame of noise `sigma` under the default target whose quality for a clean frame is `base`:
    /// the lowest step reached (its `qualityWithScalingLists` when `scalingLists`), never above `base`.
    public static func quality(base: Int, sigma: Double?, scalingLists: Bool = false) -> Int {
        guard let sigma, let step = steps.last(where: { sigma >= $0.minSigma }) else { return base }
        return min(base, scalingLists ? step.qualityWithScalingLists : step.quality)
    }
}
