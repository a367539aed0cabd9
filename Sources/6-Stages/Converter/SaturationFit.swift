import ColorScience
import Foundation

// The camera's saturation: after the tone curve, the render's mean chroma against the embedded preview's, over the
// same cells and the same tones the render check's chroma ratio reads (reference L* 10…95). Where the render is
// clearly more saturated than the camera showed (the Nikon D5000 1/160 s frame: ×1.90), each channel is moved toward
// the pixel's luminance until the means agree; luminance and hue stay. See docs/render-fidelity.md ("The camera's
// saturation").

extension HEICConverter {
    /// Chroma ratios (render over preview) up to 1 + this are left as rendered: a camera's own saturation varies
    /// that much between scenes, and the render check's bound on it is 0.15.
    public static let saturationDeadZone = 0.10
    /// The least saturation the render takes (half the chroma): below it the preview is no longer a rendering of the
    /// same colours (a monochrome or sepia preview of a colour RAW).
    public static let minimumSaturation: Float = 0.5
}

/// The saturation `Renderer.saturation` takes from a reference rendering (see the file's header).
struct SaturationFit {
    /// The cells compared: about this many, strided over the preview's grid (a mean over 16,000 cells moves by well
    /// under 1 % with the stride's phase).
    static let maxCells = 1 << 14
    /// Bisection steps over `minimumSaturation…1` (2⁻⁸ of the range, 0.002: below what the ratio can resolve).
    static let steps = 8

    private var rgb: [Float] = []
    private var referenceChroma = 0.0
    private let renderer: Renderer
    private let toXYZ: [Double]

    /// - Parameters:
    ///   - cells: the neutral render's linear output RGB per preview cell, interleaved (`boxRGB`).
    ///   - reference: the preview's CIELAB planes, cell for cell.
    ///   - renderer: the render with the camera's tone curve (its saturation is replaced by each one tried).
    ///   - space: the output's primaries, for CIELAB.
    init(cells: [Float], reference: CIELAB.Planes, renderer: Renderer, space: ColorSpace.Output) {
        self.renderer = renderer
        toXYZ = space.space.toXYZ
        let n = min(cells.count / 3, reference.l.count)
        let stride = max(1, n / Self.maxCells)
        for i in Swift.stride(from: 0, to: n, by: stride) where reference.l[i] > 10 && reference.l[i] < 95 {
            rgb += [cells[3 * i], cells[3 * i + 1], cells[3 * i + 2]]
            referenceChroma += hypot(reference.a[i], reference.b[i])
        }
    }

    /// The render's mean chroma over the preview's at saturation `s`; nil when too few cells or no colour to compare.
    func ratio(_ s: Float) -> Double? {
        let n = rgb.count / 3
        guard n >= 256, referenceChroma > Double(n) * 0.5 else { return nil }
        let shown = renderer.with(saturation: s)
        let m = toXYZ
        var chroma = 0.0
        for i in 0..<n {
            let p = shown.look(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])
            let k = Renderer.sdrScale(p.r, p.g, p.b, p.y)
            let (rd, gd, bd) = (Double(p.r * k), Double(p.g * k), Double(p.b * k))
            let lab = CIELAB.lab(
                x: m[0] * rd + m[1] * gd + m[2] * bd, y: m[3] * rd + m[4] * gd + m[5] * bd,
                z: m[6] * rd + m[7] * gd + m[8] * bd)
            chroma += hypot(lab.a, lab.b)
        }
        return chroma / referenceChroma
    }

    /// The saturation that brings the render's mean chroma to the preview's, when the render is more saturated than
    /// the dead zone allows; nil when it keeps its own (within the zone, less saturated, or nothing to compare).
    func saturation() -> Float? {
        guard let atOne = ratio(1), atOne > 1 + HEICConverter.saturationDeadZone else { return nil }
        var (lo, hi) = (HEICConverter.minimumSaturation, Float(1))
        if let atLow = ratio(lo), atLow >= 1 { return lo }
        for _ in 0..<Self.steps {
            let mid = (lo + hi) / 2
            guard let r = ratio(mid) else { return nil }
            if r > 1 { hi = mid } else { lo = mid }
        }
        return (lo + hi) / 2
    }
}
