import ColorScience
import Foundation

/// The camera's tone look, fitted from its own rendering of the same capture (the RAW's embedded preview): a
/// monotone curve, in stops, that maps the converter's scene-linear luminance to the luminance the camera showed.
/// The converter applies it to each linear channel, as a camera applies its tone curve: it moves exposure and contrast,
/// and with contrast the saturation a camera's curve brings; it never moves white balance or the colour matrix.
///
/// The fit is a histogram match (quantile against quantile), which needs no pixel registration: a preview cropped,
/// turned or slightly differently framed gives the same curve. It is fitted only where the camera's rendering is
/// informative and the converter's own highlight roll-off does not act — reference luminance in
/// `referenceRange` (sRGB codes ≈ 9…194) — and continues outside with slope 1 (one gain), so the converter's shoulder,
/// its gain map and its shadows keep their detail. RawTherapee's default profile fits its curve to the preview in the
/// same spirit ("Auto-Matched Tone Curve").
public struct ToneMatch: Sendable, Equatable, Codable {
    /// Knot inputs: log2 of the converter's luminance (1.0 = SDR diffuse white), ascending, 0.5 stop apart.
    public var inputStops: [Double]
    /// Knot outputs: log2 of the luminance the camera shows for them.
    public var outputStops: [Double]

    /// Reference luminance fitted (display-linear, 1 = white): below, JPEG quantisation and black clip; above, the
    /// converter's own roll-off (`shoulderStart` 0.6) acts.
    public static let referenceRange: ClosedRange<Double> = 0.0027...0.55
    /// Knot spacing in stops.
    public static let knotStep = 0.5
    /// Below this mean departure from the neutral render over the fitted tones (stops), the camera's look is the
    /// neutral render.
    public static let neutralTolerance = 0.1
    /// The most the curve moves any tone (stops), and the slopes it may have between knots.
    public static let maxShift = 3.0
    public static let slopeRange: ClosedRange<Double> = 0.3...3.0
    /// Values each side's quantiles are taken from (more are strided down to about this many).
    public static let maxSamples = 1 << 17
    /// The fit needs the fitted tones to span at least this many stops of the converter's luminance.
    public static let minimumSpan = 2.0

    public init(inputStops: [Double], outputStops: [Double]) {
        precondition(inputStops.count == outputStops.count && inputStops.count >= 2, "a tone curve needs 2 knots")
        self.inputStops = inputStops
        self.outputStops = outputStops
    }

    /// log2 of the output luminance for input luminance 2^u (slope 1 outside the knots).
    public func stops(at u: Double) -> Double {
        let n = inputStops.count
        if u <= inputStops[0] { return outputStops[0] + (u - inputStops[0]) }
        if u >= inputStops[n - 1] { return outputStops[n - 1] + (u - inputStops[n - 1]) }
        var i = Int((u - inputStops[0]) / Self.knotStep)
        i = min(max(0, i), n - 2)
        while i > 0 && u < inputStops[i] { i -= 1 }
        while i < n - 2 && u > inputStops[i + 1] { i += 1 }
        let t = (u - inputStops[i]) / (inputStops[i + 1] - inputStops[i])
        return outputStops[i] + t * (outputStops[i + 1] - outputStops[i])
    }

    /// The gain for a pixel of luminance `y` (> 0): 2^(curve(log2 y) − log2 y).
    public func gain(_ y: Double) -> Double {
        guard y > 0 else { return 1 }
        let u = log2(y)
        return exp2(stops(at: u) - u)
    }

    /// Stops the curve moves 18 % grey (negative: darker than the neutral render).
    public var midGreyShift: Double {
        let u = log2(0.18)
        return stops(at: u) - u
    }

    /// The curve's slope around 18 % grey (over ±0.5 stop): 1 is the neutral contrast, above 1 more contrast.
    public var midGreyContrast: Double {
        let u = log2(0.18)
        return stops(at: u + 0.5) - stops(at: u - 0.5)
    }

    /// The largest departure from the neutral render over the knots, stops.
    public var largestShift: Double { zip(inputStops, outputStops).map { abs($1 - $0) }.max() ?? 0 }

    /// What a fit found.
    public enum Fit: Sendable, Equatable {
        /// A curve that moves the fitted tones by `neutralTolerance` or more on average.
        case curve(ToneMatch)
        /// The reference's tones are the neutral render's: on average over the fitted quantiles, the curve would move
        /// them by less than `neutralTolerance` stops.
        case neutral(meanShift: Double)
        /// The two images give no curve; why, in one line.
        case unusable(String)
    }

    /// Fits the curve by histogram matching.
    /// - Parameters:
    ///   - ours: the converter's linear luminance (before its roll-off) at about the reference's size, box-averaged.
    ///   - reference: the camera rendering's display-linear luminance (0…1), same scene.
    public static func fit(ours: [Float], reference: [Float]) -> Fit {
        guard ours.count >= 1000, reference.count >= 1000 else {
            return .unusable("too few pixels to compare (\(min(ours.count, reference.count)))")
        }
        // Quantiles from at most `maxSamples` evenly strided values of each (sorting is the fit's whole cost: the two
        // sorts run side by side).
        @Sendable func sample(_ v: [Float]) -> [Float] {
            let step = (v.count + maxSamples - 1) / maxSamples
            return step <= 1 ? v.sorted() : stride(from: 0, to: v.count, by: step).map { v[$0] }.sorted()
        }
        let (o, r) = Parallel.both({ sample(ours) }, { sample(reference) })
        // Quantile pairs at 400 levels, kept where the reference is informative.
        var us: [Double] = []
        var vs: [Double] = []
        let levels = 400
        for i in 0..<levels {
            let q = (Double(i) + 0.5) / Double(levels)
            let ov = Double(o[min(o.count - 1, Int(q * Double(o.count)))])
            let rv = Double(r[min(r.count - 1, Int(q * Double(r.count)))])
            guard referenceRange.contains(rv), ov > 1e-6 else { continue }
            us.append(log2(ov))
            vs.append(log2(rv))
        }
        guard us.count >= 40, let lo = us.first, let hi = us.last else {
            return .unusable(
                "too few of the rendering's tones lie between its black and its highlights (\(us.count) of \(levels)"
                    + " quantiles)")
        }
        guard hi - lo >= minimumSpan else {
            return .unusable(
                String(
                    format: "its mid-tones span %.1f stops of the scene, fewer than %.0f: too little to fit a curve",
                    hi - lo, minimumSpan))
        }
        // Knots every half stop across the fitted span; each knot's value averages the pairs within half a step
        // (triangle weights), which smooths the steps that 8-bit codes leave in the reference's dark quantiles.
        let first = (lo / knotStep).rounded(.up) * knotStep
        let last = (hi / knotStep).rounded(.down) * knotStep
        var knots: [Double] = []
        var k = first
        while k <= last + 1e-9 {
            knots.append(k)
            k += knotStep
        }
        guard knots.count >= 2 else { return .unusable("the rendering's mid-tones span too little to fit a curve") }
        var values: [Double] = []
        for k in knots {
            var sw = 0.0
            var sv = 0.0
            for (u, v) in zip(us, vs) where abs(u - k) < knotStep {
                let w = 1 - abs(u - k) / knotStep
                sw += w
                sv += w * (v - u)
            }
            // A knot with no pair near it (a gap in the histogram) takes the offset of the nearest pair.
            let offset = sw > 0 ? sv / sw : zip(us, vs).min { abs($0.0 - k) < abs($1.0 - k) }.map { $0.1 - $0.0 } ?? 0
            values.append(max(-maxShift, min(maxShift, offset)))
        }
        // Offsets smoothed over neighbouring knots (1-2-1): a chart's few discrete tones, or a JPEG's coarse dark codes,
        // make adjacent knots jitter by ± 0.15 stop where a camera's curve is smooth.
        values = values.indices.map { i in
            let l = i > 0 ? values[i - 1] : values[i]
            let r = i < values.count - 1 ? values[i + 1] : values[i]
            return knots[i] + (l + 2 * values[i] + r) / 4
        }
        let out = bounded(knots: knots, values: values)
        let curve = ToneMatch(inputStops: knots, outputStops: out)
        // Neutral when the curve moves the fitted tones, on average over the quantiles, by less than the tolerance.
        let mean = us.reduce(0) { $0 + abs(curve.stops(at: $1) - $1) } / Double(us.count)
        return mean < neutralTolerance ? .neutral(meanShift: mean) : .curve(curve)
    }

    /// Knot outputs made monotone with slopes in `slopeRange`, built outward from the knot nearest 18 % grey (which
    /// keeps its value), no tone moved more than `maxShift`.
    static func bounded(knots: [Double], values: [Double]) -> [Double] {
        let pivot = knots.indices.min { abs(knots[$0] - log2(0.18)) < abs(knots[$1] - log2(0.18)) } ?? 0
        var out = values
        for i in stride(from: pivot + 1, to: knots.count, by: 1) {
            let s = (values[i] - out[i - 1]) / knotStep
            out[i] = out[i - 1] + knotStep * min(slopeRange.upperBound, max(slopeRange.lowerBound, s))
        }
        for i in stride(from: pivot - 1, through: 0, by: -1) {
            let s = (out[i + 1] - values[i]) / knotStep
            out[i] = out[i + 1] - knotStep * min(slopeRange.upperBound, max(slopeRange.lowerBound, s))
        }
        for i in out.indices { out[i] = knots[i] + max(-maxShift, min(maxShift, out[i] - knots[i])) }
        return out
    }

    /// How much two luminance images of the same size look like the same picture: the Pearson correlation of their
    /// log luminance over a coarse grid (at most 32 cells a side, box-averaged, so a few percent of crop or
    /// misregistration costs little). A camera's preview of the frame scores near 1; a placeholder ("no preview")
    /// or another picture scores near 0.
    public static func similarity(_ a: [Float], _ b: [Float], width: Int, height: Int) -> Double {
        precondition(a.count == width * height && b.count == width * height, "images of one size")
        let gw = min(32, width)
        let gh = min(32, height)
        var sa = [Double](repeating: 0, count: gw * gh)
        var sb = [Double](repeating: 0, count: gw * gh)
        var n = [Double](repeating: 0, count: gw * gh)
        for y in 0..<height {
            for x in 0..<width {
                let c = (y * gh / height) * gw + x * gw / width
                sa[c] += Double(a[y * width + x])
                sb[c] += Double(b[y * width + x])
                n[c] += 1
            }
        }
        let la = zip(sa, n).map { log2(max($0 / max($1, 1), 1e-4)) }
        let lb = zip(sb, n).map { log2(max($0 / max($1, 1), 1e-4)) }
        let ma = la.reduce(0, +) / Double(la.count)
        let mb = lb.reduce(0, +) / Double(lb.count)
        var (cov, va, vb) = (0.0, 0.0, 0.0)
        for (x, y) in zip(la, lb) {
            cov += (x - ma) * (y - mb)
            va += (x - ma) * (x - ma)
            vb += (y - mb) * (y - mb)
        }
        // A flat image (variance at float rounding) correlates with nothing.
        return va > 1e-9 && vb > 1e-9 ? cov / (va * vb).squareRoot() : 0
    }

    /// Below this `similarity`, a preview is not taken for a rendering of the frame.
    public static let minimumSimilarity = 0.5
}
