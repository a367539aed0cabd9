// Fidelity at viewing size: SSIM-Y after a 2× downscale, against the clean scene where it is known.
//
// Why: SSIM at 1:1 against the noisy render (the archival measure, Fidelity.swift) counts every grain of sensor noise
// an encoder does not keep, yet a viewer looking at the whole picture on a screen does not see grain at that scale.
// Wang et al.'s reference implementation of SSIM (ssim.m, https://ece.uwaterloo.ca/~z70wang/research/ssim/) makes the
// same point and therefore downsamples first: "The precisely right scale depends on both the image resolution and
// the viewing distance […] for images viewed from a typical distance (say 3~5 times of the image height or width):
// 1) Let F = max(1, round(N/256)), where N is the number of pixels in image height (or width); 2) Average local F
// by F pixels and then downsample the image by a factor of F; and 3) apply the ssim_index.m program."
//
// What is computed, exactly:
//   downscale  each non-overlapping F×F block of the luma plane (Y' as in Fidelity.swift, non-linear, [0, 1]) is
//              averaged into one sample; a partial block at the right or bottom edge is left out. This is ssim.m's
//              `imfilter(img, ones(F,F)/F², 'symmetric', 'same')` followed by `img(1:F:end, 1:F:end)` for even F,
//              except for its one mirrored edge row/column on odd sizes.
//   F          fixed at 2, not Wang's formula: that formula assumes a viewing distance of 3–5 picture heights and gives
//              F = 16 for a 6000×4000 frame (F = 6 for the ladder's 2048×1536 crops), while F = 2 is the whole 24 MP
//              frame shown on a 4K screen (3840×2160 is 0.54× of 6000×4000) — a much closer look, so a stricter test.
//   SSIM       `SSIM.compare` (Gaussian 11×11, σ 1.5, K1 0.01, K2 0.03, L 1) on the two downscaled planes; mean and
//              worst 64×64 block, so a block here covers 128×128 pixels of the frame.
//   reference  the render of the clean scene (the noisy DNG's noiseless twin) when it is known; for a real camera
//              file, whose clean scene is unknown, the render of the file itself.

/// Fidelity at viewing size: SSIM-Y after an F×F box downscale.
public enum ViewingSize {
    /// The downscale factor (see the file header for why 2).
    public static let factor = 2

    /// The plane averaged over non-overlapping `factor`×`factor` blocks (partial edge blocks left out).
    /// - Throws: `FidelityError.tooSmall` when the plane has fewer than `factor` rows or columns.
    public static func downscale(_ p: Plane, factor f: Int = factor) throws -> Plane {
        guard f >= 1 else { throw FidelityError.tooSmall("downscale factor must be ≥ 1, got \(f)") }
        let w = p.width / f
        let h = p.height / f
        guard w > 0, h > 0 else {
            throw FidelityError.tooSmall("a \(p.width)×\(p.height) plane has no \(f)×\(f) block")
        }
        if f == 1 { return p }
        var out = [Float](repeating: 0, count: w * h)
        let inv = 1 / Double(f * f)
        p.values.withUnsafeBufferPointer { v in
            for y in 0..<h {
                for x in 0..<w {
                    var s = 0.0
                    for dy in 0..<f {
                        let row = (y * f + dy) * p.width + x * f
                        for dx in 0..<f { s += Double(v[row + dx]) }
                    }
                    out[y * w + x] = Float(s * inv)
                }
            }
        }
        return try Plane(width: w, height: h, values: out)
    }

    /// A reference prepared once for many comparisons: the downscaled reference plane and its SSIM statistics.
    public struct Reference: Sendable {
        public let ssim: SSIM.Reference

        /// - Parameter plane: the full-size reference luma.
        /// - Throws: `FidelityError` when the downscaled plane is under 11×11.
        public init(_ plane: Plane, factor: Int = ViewingSize.factor) throws {
            ssim = try SSIM.Reference(ViewingSize.downscale(plane, factor: factor))
        }
    }

    /// SSIM of `distorted` against `reference` at viewing size.
    /// - Parameters:
    ///   - reference: the prepared reference (clean render, or the file's own render).
    ///   - distorted: the full-size luma of the decoded encode, the size of the reference's plane.
    /// - Throws: `FidelityError` on a size mismatch.
    public static func compare(_ reference: Reference, _ distorted: Plane, factor: Int = ViewingSize.factor) throws
        -> SSIMResult
    {
        try SSIM.compare(reference.ssim, downscale(distorted, factor: factor))
    }
}
