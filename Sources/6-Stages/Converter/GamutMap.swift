// The render's gamut mapping: colours outside the output gamut (a negative channel after the working space → output
// primaries matrix) are compressed toward the neutral of the same luminance with a soft knee, instead of having
// their negative channels clipped. See docs/render-fidelity.md ("Gamut mapping").

extension HEICConverter {
    /// Relative chroma (1 = the gamut boundary) where the compression starts: colours below it are unchanged.
    public static let gamutThreshold: Float = 0.8
    /// Relative chroma that lands on the gamut boundary; colours beyond it are placed on the boundary.
    public static let gamutLimit: Float = 2.0
}

extension Renderer {
    /// The knee's scale `a` in d' = d / (1 + d / a) (d = chroma beyond the threshold), chosen so that the limit
    /// lands on the boundary: a = c (L − t) / ((L − t) − c), c = 1 − t.
    static let gamutKneeScale: Float = {
        let t = HEICConverter.gamutThreshold
        let span = HEICConverter.gamutLimit - t
        return (1 - t) * span / (span - (1 - t))
    }()

    /// Maps one linear output-primaries pixel into the gamut's non-negative side, keeping its luminance `Y` and its
    /// chromaticity's direction from the white point (its dominant wavelength): the pixel moves along the line to
    /// the grey of the same `Y`. Its relative chroma t = (Y − min) / Y (0 for grey, 1 on the boundary) is compressed
    /// above `gamutThreshold` by a curve of slope 1 at the knee reaching 1 at `gamutLimit`. A pixel without positive
    /// luminance has its negative channels clipped (no luminance to keep). Channels above 1 are left to the
    /// SDR roll-off, which scales the whole pixel.
    @inline(__always)
    static func gamutMap(_ r: Float, _ g: Float, _ b: Float, lum: (Float, Float, Float)) -> (Float, Float, Float) {
        let y = lum.0 * r + lum.1 * g + lum.2 * b
        let gb = g < b ? g : b
        let mn = r < gb ? r : gb
        let knee = HEICConverter.gamutThreshold
        if y > 0 && mn < (1 - knee) * y {
            let t = (y - mn) / y
            let d = t - knee
            let c = d / (1 + d / gamutKneeScale)
            let room = 1 - knee
            let s = (knee + (c < room ? c : room)) / t
            let rm = y + s * (r - y)
            let gm = y + s * (g - y)
            let bm = y + s * (b - y)
            return (rm >= 0 ? rm : 0, gm >= 0 ? gm : 0, bm >= 0 ? bm : 0)
        }
        return (r >= 0 ? r : 0, g >= 0 ? g : 0, b >= 0 ? b : 0)
    }
}
