import ColorScience
import Foundation

/// What comparing an output with a reference rendering of the same capture measured. Every number is at the
/// reference's size (capped at `RenderComparison.maxSide`), in CIELAB (D65), each image read through its own space.
public struct RenderMeasurement: Sendable, Equatable {
    /// The size compared (the reference's, after letterbox trimming and capping).
    public var width: Int
    public var height: Int
    /// Letterbox bars removed from the reference (top, bottom, left, right, in compared pixels), 0 when none.
    public var trimmedBars: [Int]
    /// Median of log2(Y_output / Y_reference) over the reference's mid-tones (L* 25–75); nil when fewer than
    /// `RenderComparison.minimumPixels` pixels are mid-tones.
    public var exposureStops: Double?
    /// The fraction of compared pixels that are mid-tones.
    public var midtoneFraction: Double
    /// Mean Δa* and Δb* (output − reference) over the reference's near-neutral pixels (C* < 8, L* 20–95), or over
    /// the whole frame when fewer than `RenderComparison.minimumNeutralFraction` of the pixels are near-neutral.
    public var castA: Double
    public var castB: Double
    /// The fraction of compared pixels that are near-neutral in the reference.
    public var neutralFraction: Double
    /// True when the cast was measured over near-neutral pixels, false when over the whole frame.
    public var castFromNeutrals: Bool
    /// The Exif orientation (1–8) that best maps the output onto the reference, and the normalised
    /// cross-correlations of the identity, the best and the runner-up.
    public var bestOrientation: Int
    public var correlationIdentity: Double
    public var correlationBest: Double
    public var correlationRunnerUp: Double
    /// p99 − p1 of L* of the output and of the reference.
    public var outputSpread: Double
    public var referenceSpread: Double
    /// CIEDE2000 median and 90th percentile over the frame.
    public var deltaEMedian: Double
    public var deltaEP90: Double
    /// Mean C* of the output ÷ mean C* of the reference over pixels with reference L* 10–95.
    public var chromaRatio: Double?
    /// How far the hues differ (degrees): the mean |Δh| between output and reference over pixels coloured in both
    /// (C* ≥ `RenderComparison.minimumHueChroma`, reference L* 10–95), weighted by the smaller C*; nil when fewer than
    /// `RenderComparison.minimumPixels` are. Near 0 when only saturation differs; a cast (a shift of every colour
    /// by one a*b* vector, or a rotation) turns the hues.
    public var hueDifference: Double? = nil
    /// Median L* of each.
    public var outputMedianL: Double
    public var referenceMedianL: Double

    /// |(Δa*, Δb*)|.
    public var cast: Double { hypot(castA, castB) }
}

/// The comparison itself: pure arithmetic over two `RenderImage`s.
public enum RenderComparison {
    /// The long side the reference is reduced to before comparing.
    public static let maxSide = 512
    /// The side of the small grey squares the 8 orientations are scored on.
    public static let orientationSide = 64
    /// Fewest pixels a statistic is computed over.
    public static let minimumPixels = 50
    /// Below this fraction of near-neutral reference pixels, the cast is the frame-wide mean shift.
    public static let minimumNeutralFraction = 0.02
    /// C* both images need at a pixel for its hue to count in `hueShift`.
    public static let minimumHueChroma = 10.0

    /// Compares `output` with `reference`, both as a viewer shows them.
    public static func compare(reference ref0: RenderImage, output out0: RenderImage) -> RenderMeasurement {
        let out = out0.capped(maxSide: 2 * maxSide)
        var ref = ref0.capped(maxSide: maxSide)
        // Letterbox bars are trimmed when the trimmed reference's shape is closer to the output's (either way up).
        let bars = ref.letterbox()
        var trimmed = [0, 0, 0, 0]
        if bars != (0, 0, 0, 0) {
            let t = ref.cropped(x0: bars.left, y0: bars.top, x1: ref.width - bars.right, y1: ref.height - bars.bottom)
            if shapeDistance(t.aspect, out.aspect) < shapeDistance(ref.aspect, out.aspect) {
                ref = t
                trimmed = [bars.top, bars.bottom, bars.left, bars.right]
            }
        }
        // Orientation: the output's 8 transforms against the reference, as small blurred grey squares.
        let n = orientationSide
        let refSquare = ref.squareLuma(n)
        let outSquare = out.squareLuma(n)
        let scores = (1...8).map {
            correlation(refSquare, RenderImage.orientSquare(outSquare, n, ExifOrientation(exif: $0)))
        }
        let best = scores.indices.max { scores[$0] < scores[$1] }!
        let runnerUp = scores.indices.filter { $0 != best }.map { scores[$0] }.max() ?? 0

        // The two images' CIELAB planes at once (the output's resized first), then the per-pixel measures in two
        // halves: an audit's last step, which would otherwise leave the second core idle.
        let reference = ref
        let (labR, labO) = Parallel.both(
            { CIELAB.planes(reference) },
            { CIELAB.planes(out.resized(width: reference.width, height: reference.height)) })
        var m = RenderMeasurement(
            width: ref.width, height: ref.height, trimmedBars: trimmed, exposureStops: nil, midtoneFraction: 0,
            castA: 0, castB: 0, neutralFraction: 0, castFromNeutrals: false, bestOrientation: best + 1,
            correlationIdentity: scores[0], correlationBest: scores[best], correlationRunnerUp: runnerUp,
            outputSpread: 0, referenceSpread: 0, deltaEMedian: 0, deltaEP90: 0, chromaRatio: nil, outputMedianL: 0,
            referenceMedianL: 0)
        measureTone(&m, labR, labO)
        return m
    }

    /// What `measureTone` sums over a range of pixels; two ranges' sums are added in a fixed order.
    struct ToneSums {
        var logRatios: [Double] = []
        var neutral = 0
        var (nA, nB, fA, fB) = (0.0, 0.0, 0.0, 0.0)
        var (chromaR, chromaO, chromaN) = (0.0, 0.0, 0)
        var (hueSum, hueWeight, hueN) = (0.0, 0.0, 0)

        static func + (x: ToneSums, y: ToneSums) -> ToneSums {
            ToneSums(
                logRatios: x.logRatios + y.logRatios, neutral: x.neutral + y.neutral, nA: x.nA + y.nA, nB: x.nB + y.nB,
                fA: x.fA + y.fA, fB: x.fB + y.fB, chromaR: x.chromaR + y.chromaR, chromaO: x.chromaO + y.chromaO,
                chromaN: x.chromaN + y.chromaN, hueSum: x.hueSum + y.hueSum, hueWeight: x.hueWeight + y.hueWeight,
                hueN: x.hueN + y.hueN)
        }
    }

    /// Exposure, cast, ΔE00, chroma, hue and the L* spreads and medians of two aligned CIELAB images. The pixels are
    /// measured in two halves at once; the result does not depend on the number of cores.
    static func measureTone(_ m: inout RenderMeasurement, _ r: CIELAB.Planes, _ o: CIELAB.Planes) {
        let count = r.l.count
        var de = [Double](repeating: 0, count: count)
        let s = de.withUnsafeMutableBufferPointer { de in
            // Each half writes its own half of the ΔE buffer.
            let shared = UnsafeSendable(de)
            let (first, second) = Parallel.both(
                { toneSums(r, o, 0..<(count / 2), into: shared.value) },
                { toneSums(r, o, (count / 2)..<count, into: shared.value) })
            return first + second
        }
        let deltaE = de
        let (toneStats, lStats) = Parallel.both(
            {
                (
                    percentiles(deltaE, [50, 90]),
                    s.logRatios.count >= minimumPixels ? percentile(s.logRatios, 50) : nil
                )
            },
            { (percentiles(o.l, [1, 50, 99]), percentiles(r.l, [1, 50, 99])) })
        (m.deltaEMedian, m.deltaEP90, m.exposureStops) = (toneStats.0[0], toneStats.0[1], toneStats.1)
        let (ol, rl) = lStats
        (m.outputSpread, m.referenceSpread, m.outputMedianL, m.referenceMedianL) =
            (ol[2] - ol[0], rl[2] - rl[0], ol[1], rl[1])
        m.midtoneFraction = Double(s.logRatios.count) / Double(count)
        m.neutralFraction = Double(s.neutral) / Double(count)
        m.castFromNeutrals = s.neutral >= minimumPixels && m.neutralFraction >= minimumNeutralFraction
        (m.castA, m.castB) =
            m.castFromNeutrals
            ? (s.nA / Double(s.neutral), s.nB / Double(s.neutral)) : (s.fA / Double(count), s.fB / Double(count))
        if s.chromaN >= minimumPixels, s.chromaR > 1e-6 { m.chromaRatio = s.chromaO / s.chromaR }
        if s.hueN >= minimumPixels, s.hueWeight > 0 { m.hueDifference = s.hueSum / s.hueWeight * 180 / .pi }
    }

    /// The sums of `measureTone` over `range`, and each pixel's ΔE00 written into `de`.
    static func toneSums(
        _ r: CIELAB.Planes, _ o: CIELAB.Planes, _ range: Range<Int>, into de: UnsafeMutableBufferPointer<Double>
    ) -> ToneSums {
        var s = ToneSums()
        for i in range {
            let (l, cr) = (r.l[i], (r.a[i] * r.a[i] + r.b[i] * r.b[i]).squareRoot())
            if l > 25 && l < 75 { s.logRatios.append(log2((o.y[i] + 1e-4) / (r.y[i] + 1e-4))) }
            let da = o.a[i] - r.a[i]
            let db = o.b[i] - r.b[i]
            s.fA += da
            s.fB += db
            if cr < 8 && l > 20 && l < 95 {
                s.neutral += 1
                s.nA += da
                s.nB += db
            }
            if l > 10 && l < 95 {
                s.chromaR += cr
                let co = (o.a[i] * o.a[i] + o.b[i] * o.b[i]).squareRoot()
                s.chromaO += co
                s.chromaN += 1
                if cr >= minimumHueChroma && co >= minimumHueChroma {
                    // The angle between the two (a*, b*) vectors.
                    let w = min(cr, co)
                    let turn = atan2(r.a[i] * o.b[i] - r.b[i] * o.a[i], r.a[i] * o.a[i] + r.b[i] * o.b[i])
                    s.hueSum += w * abs(turn)
                    s.hueWeight += w
                    s.hueN += 1
                }
            }
            de[i] = CIEDE2000.difference(r.l[i], r.a[i], r.b[i], o.l[i], o.a[i], o.b[i])
        }
        return s
    }

    /// |log| distance between two aspect ratios, the second taken either way up.
    static func shapeDistance(_ a: Double, _ b: Double) -> Double { min(abs(log(a / b)), abs(log(a * b))) }

    /// Normalised cross-correlation of two equally long series (0 when either is constant).
    static func correlation(_ x: [Float], _ y: [Float]) -> Double {
        let n = Double(x.count)
        let mx = x.reduce(0.0) { $0 + Double($1) } / n
        let my = y.reduce(0.0) { $0 + Double($1) } / n
        var (sxy, sxx, syy) = (0.0, 0.0, 0.0)
        for i in x.indices {
            let a = Double(x[i]) - mx
            let b = Double(y[i]) - my
            sxy += a * b
            sxx += a * a
            syy += b * b
        }
        let d = (sxx * syy).squareRoot()
        return d > 0 ? sxy / d : 0
    }

    /// The `q`th percentile (0–100) with linear interpolation between order statistics (numpy's default).
    public static func percentile(_ v: [Double], _ q: Double) -> Double { percentiles(v, [q])[0] }

    /// `percentile` at each of `qs`, selected on one copy of `v` (NaN each when `v` is empty).
    public static func percentiles(_ v: [Double], _ qs: [Double]) -> [Double] {
        guard !v.isEmpty else { return qs.map { _ in .nan } }
        let xs = qs.map { $0 / 100 * Double(v.count - 1) }
        // The two order statistics a sort would put at i and i + 1.
        let pairs = OrderStatistic.pairValues(v, xs.map { Int($0) })
        return zip(xs, pairs).map { x, p in p.1.map { p.0 + ($0 - p.0) * (x - Double(Int(x))) } ?? p.0 }
    }
}
