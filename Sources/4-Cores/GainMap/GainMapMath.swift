import ColorScience
import Foundation

/// A planar image of Float samples in linear light (1.0 = SDR diffuse white), the unit of all gain-map math.
///
/// Plane `c` occupies `pixels[c·width·height ..< (c+1)·width·height]`, rows top to bottom.
public struct LinearImage: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Number of planes (1 or 3 for gain-map math).
    public var channels: Int
    /// The samples, planar.
    public var pixels: [Float]

    /// Wraps planar samples.
    /// - Parameters:
    ///   - width: width in pixels (> 0).
    ///   - height: height in pixels (> 0).
    ///   - channels: number of planes (> 0).
    ///   - pixels: width·height·channels samples, planar.
    /// - Throws: `GainMapError.invalidInput` when the count does not match.
    public init(width: Int, height: Int, channels: Int, pixels: [Float]) throws(GainMapError) {
        guard width > 0, height > 0, channels > 0, width.multipliedReportingOverflow(by: height).overflow == false,
            pixels.count == width * height * channels
        else {
            throw .invalidInput(
                "LinearImage \(width)x\(height)x\(channels) needs \(width * height * channels) samples, got \(pixels.count)"
            )
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// An image filled with one value.
    /// - Parameters:
    ///   - width: width in pixels.
    ///   - height: height in pixels.
    ///   - channels: number of planes.
    ///   - value: the fill value.
    public init(width: Int, height: Int, channels: Int, repeating value: Float = 0) {
        self.width = Swift.max(0, width)
        self.height = Swift.max(0, height)
        self.channels = Swift.max(0, channels)
        self.pixels = [Float](repeating: value, count: self.width * self.height * self.channels)
    }

    /// Samples per plane.
    public var planeSize: Int { width * height }

    /// The sample at (x, y) in plane c.
    public subscript(x: Int, y: Int, c: Int) -> Float {
        get { pixels[c * planeSize + y * width + x] }
        set { pixels[c * planeSize + y * width + x] = newValue }
    }
}

/// Options for `GainMapMath.compute`.
public struct GainMapComputeOptions: Sendable, Hashable {
    /// 1 (a luminance map, Apple-compatible) or 3 (R, G, B).
    public var channels: Int = 1
    /// 1 (full), 2 (half) or 4 (quarter resolution in each direction); box-filtered.
    public var downscale: Int = 2
    /// The encoding gamma written as `gamma` (ISO 21496-1); 1 is libavif's and libultrahdr's default.
    public var gamma: UFraction = UFraction(1, 1)
    /// k_sdr, `base_offset` (libavif default 1/64).
    public var baseOffset: Fraction = Fraction(1, 64)
    /// k_hdr, `alternate_offset` (libavif default 1/64).
    public var alternateOffset: Fraction = Fraction(1, 64)
    /// Fraction of samples ignored as outliers when finding min/max (half on each side); libavif uses 0.1 %.
    public var outlierFraction: Double = 0.001
    /// Weights for one-channel maps (`.bt709`, `.bt2020` or `.displayP3`, the four-decimal weights).
    public var luminance: LuminanceWeights = .bt709
    /// `base_hdr_headroom` (log2) to write; nil = log2 of the base's maximum, at least 0.
    public var baseHdrHeadroom: Double? = 0
    /// `alternate_hdr_headroom` (log2) to write; nil = log2 of the alternate's maximum, at least 0.
    public var alternateHdrHeadroom: Double? = nil
    /// Denominator for min/max/headroom fractions (reduced by their gcd when written).
    public var denominator: UInt32 = 1 << 16
    /// Whether `use_base_colour_space` is set (the two images share primaries here).
    public var useBaseColorSpace: Bool = true

    /// The defaults: one channel, half resolution, gamma 1, offsets 1/64, 0.1 % outliers, BT.709 weights.
    public init() {}
}

/// A computed gain map: the metadata, the normalised map and its 8-bit quantisation.
public struct ComputedGainMap: Sendable, Equatable {
    /// The ISO 21496-1 metadata describing the map (exact fractions, as written to `tmap`).
    public var metadata: GainMapMetadata
    /// The normalised map in [0,1] (after gamma), before quantisation; `channels` planes.
    public var normalized: LinearImage
    /// The 8-bit map, planar, round half up: `floor(v·255 + 0.5)`.
    public var quantized: [UInt8]

    /// Width of the map.
    public var width: Int { normalized.width }
    /// Height of the map.
    public var height: Int { normalized.height }
    /// Planes of the map (1 or 3).
    public var channels: Int { normalized.channels }

    /// The 8-bit map as [0,1] floats (v/255), what a decoder would hand to `apply`.
    public func dequantized() -> LinearImage {
        GainMapMath.dequantize(quantized, width: width, height: height, channels: channels)
    }
}

/// Gain-map math after ISO 21496-1 (as implemented in libavif gainmap.c and libultrahdr gainmapmath.cpp), and
/// Apple's linear formula. Planar Float buffers, no per-pixel allocation.
public enum GainMapMath {
    /// The ISO 21496-1 weight for a display of headroom `displayHeadroom` (all log2):
    /// `w = sign(Ha − Hb) · clamp((Hd − Hb)/(Ha − Hb), 0, 1)`; 0 when Ha = Hb (libavif `avifGetGainMapWeight`).
    /// - Parameters:
    ///   - displayHeadroom: the display's headroom Hd (log2 of HDR peak / SDR white).
    ///   - baseHeadroom: `base_hdr_headroom` Hb.
    ///   - alternateHeadroom: `alternate_hdr_headroom` Ha.
    /// - Returns: the weight in [−1, 1].
    public static func weight(displayHeadroom: Double, baseHeadroom: Double, alternateHeadroom: Double) -> Double {
        guard baseHeadroom != alternateHeadroom else { return 0 }
        let f = Swift.min(Swift.max((displayHeadroom - baseHeadroom) / (alternateHeadroom - baseHeadroom), 0), 1)
        return alternateHeadroom < baseHeadroom ? -f : f
    }

    /// 8-bit → [0,1]: v/255 (libultrahdr `mapUintToFloat`).
    /// - Parameters:
    ///   - bytes: planar samples.
    ///   - width: map width.
    ///   - height: map height.
    ///   - channels: map planes.
    /// - Returns: the float map.
    public static func dequantize(_ bytes: [UInt8], width: Int, height: Int, channels: Int) -> LinearImage {
        var out = LinearImage(width: width, height: height, channels: channels)
        let n = Swift.min(bytes.count, out.pixels.count)
        out.pixels.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { b in
                for i in 0..<n { o[i] = Float(b[i]) / 255 }
            }
        }
        return out
    }

    /// [0,1] → 8 bits, round half up: `clamp(floor(v·255 + 0.5), 0, 255)` (libultrahdr `affineMapGain`).
    /// - Parameter values: the samples.
    /// - Returns: the bytes.
    public static func quantize(_ values: [Float]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: values.count)
        out.withUnsafeMutableBufferPointer { o in
            values.withUnsafeBufferPointer { v in
                for i in 0..<v.count {
                    let x = (v[i] * 255 + 0.5).rounded(.down)
                    o[i] = x.isNaN ? 0 : UInt8(Swift.min(Swift.max(x, 0), 255))
                }
            }
        }
        return out
    }

    // MARK: compute

    /// Computes a gain map from a linear SDR base and a linear HDR alternate of the same size (ISO 21496-1
    /// Annex; libavif `avifRGBImageComputeGainMap`).
    ///
    /// Per pixel: `r = log2((alt + k_hdr)/(base + k_sdr))` (on luminance for a one-channel map), box-averaged to
    /// the map resolution; min/max per channel with outliers trimmed by a 0.01-stop histogram; then
    /// `v = ((r − min)/(max − min))^gamma` clamped to [0,1] and quantised to 8 bits (round half up). min/max
    /// are converted to fractions first and the map is normalised with those exact values, so metadata and
    /// pixels agree. If the alternate headroom is below the base's, the map stores log2(base/alt) (libavif).
    /// - Parameters:
    ///   - base: the SDR (base) rendition, linear, 1 or 3 planes.
    ///   - alternate: the HDR (alternate) rendition, linear, same size and planes.
    ///   - options: channels, resolution, gamma, offsets, headrooms.
    /// - Returns: the metadata and the map.
    /// - Throws: `GainMapError.invalidInput` for mismatched sizes or unsupported options.
    public static func compute(
        base: LinearImage, alternate: LinearImage, options: GainMapComputeOptions = .init()
    ) throws(GainMapError) -> ComputedGainMap {
        try checkInputs(base: base, alternate: alternate, options: options)
        // Headrooms from the data unless given.
        let baseMax = base.pixels.max() ?? 0
        let altMax = alternate.pixels.max() ?? 0
        let hb = options.baseHdrHeadroom ?? Swift.max(0, log2(Double(Swift.max(baseMax, 1e-6))))
        let ha = options.alternateHdrHeadroom ?? Swift.max(0, log2(Double(Swift.max(altMax, 1e-6))))
        let negate: Float = ha < hb ? -1 : 1
        let s = options.downscale
        let sums = cellLogRatios(base: base, alternate: alternate, options: options, negate: negate)
        return try fromLogRatios(
            sums, width: (base.width + s - 1) / s, height: (base.height + s - 1) / s, baseHdrHeadroom: hb,
            alternateHdrHeadroom: ha, options: options)
    }

    /// `compute`'s preconditions: same size and planes, 1 or 3 of them; a supported channel count and downscale;
    /// fractions with non-zero parts.
    private static func checkInputs(
        base: LinearImage, alternate: LinearImage, options: GainMapComputeOptions
    ) throws(GainMapError) {
        guard base.width == alternate.width, base.height == alternate.height, base.channels == alternate.channels,
            base.channels == 1 || base.channels == 3, base.width > 0, base.height > 0
        else {
            throw .invalidInput(
                "base \(base.width)x\(base.height)x\(base.channels) and alternate \(alternate.width)x\(alternate.height)x\(alternate.channels) must match, 1 or 3 planes"
            )
        }
        guard options.channels == 1 || options.channels == 3 else { throw .invalidInput("channels must be 1 or 3") }
        guard [1, 2, 4].contains(options.downscale) else { throw .invalidInput("downscale must be 1, 2 or 4") }
        guard options.gamma.numerator > 0, options.gamma.denominator > 0, options.baseOffset.denominator > 0,
            options.alternateOffset.denominator > 0, options.denominator > 0
        else { throw .invalidInput("gamma and offsets need non-zero parts") }
    }

    /// Step 1 of `compute`: the log ratios, `negate`d when the alternate has less headroom, averaged per map cell
    /// (`options.channels` planes; edge cells may be smaller).
    private static func cellLogRatios(
        base: LinearImage, alternate: LinearImage, options: GainMapComputeOptions, negate: Float
    ) -> [Float] {
        let w = base.width
        let h = base.height
        let s = options.downscale
        let gw = (w + s - 1) / s
        let gh = (h + s - 1) / s
        let mc = options.channels
        let kb = Float(options.baseOffset.doubleValue)
        let ka = Float(options.alternateOffset.doubleValue)
        let lum = options.luminance.float
        // 1. log-ratios, box-summed into map cells.
        var sums = [Float](repeating: 0, count: gw * gh * mc)
        let plane = w * h
        let gplane = gw * gh
        let uniformPlanes = base.channels == 3
        sums.withUnsafeMutableBufferPointer { sum in
            base.pixels.withUnsafeBufferPointer { bp in
                alternate.pixels.withUnsafeBufferPointer { ap in
                    for y in 0..<h {
                        let row = y * w
                        let grow = (y / s) * gw
                        for x in 0..<w {
                            let i = row + x
                            let gi = grow + x / s
                            if mc == 1 {
                                let bl: Float
                                let al: Float
                                if uniformPlanes {
                                    bl = lum.r * bp[i] + lum.g * bp[plane + i] + lum.b * bp[2 * plane + i]
                                    al = lum.r * ap[i] + lum.g * ap[plane + i] + lum.b * ap[2 * plane + i]
                                } else {
                                    bl = bp[i]
                                    al = ap[i]
                                }
                                sum[gi] += negate * log2(Swift.max((al + ka) / Swift.max(bl + kb, 1e-9), 1e-9))
                            } else {
                                for c in 0..<3 {
                                    let pc = uniformPlanes ? c * plane : 0
                                    let r = (ap[pc + i] + ka) / Swift.max(bp[pc + i] + kb, 1e-9)
                                    sum[c * gplane + gi] += negate * log2(Swift.max(r, 1e-9))
                                }
                            }
                        }
                    }
                }
            }
        }
        // Average by cell area (edge cells may be smaller).
        for gy in 0..<gh {
            let ch = Swift.min(s, h - gy * s)
            for gx in 0..<gw {
                let inv = 1 / Float(ch * Swift.min(s, w - gx * s))
                for c in 0..<mc { sums[c * gplane + gy * gw + gx] *= inv }
            }
        }
        return sums
    }

    /// Steps 2–3 of `compute` on log ratios already averaged per map cell: `logRatios[c·w·h + y·w + x]` is the mean
    /// of log2((alternate + k_alt) / (base + k_base)) over cell (x, y) of channel c, negated when the alternate has
    /// less headroom than the base. For callers that accumulate the ratios while rendering (the converter), so no
    /// full-size base and alternate are ever built.
    /// - Parameters:
    ///   - logRatios: `options.channels` planes of `width × height` cells.
    ///   - baseHdrHeadroom: log2 headroom of the base (0 for SDR).
    ///   - alternateHdrHeadroom: log2 headroom of the alternate.
    ///   - options: offsets, gamma, outlier fraction, denominator and channel count as for `compute`.
    /// - Returns: metadata (min/max without outliers as exact fractions), the normalised and the 8-bit quantised map.
    /// - Throws: `GainMapError.invalidInput` for a size that does not match `logRatios` or invalid options.
    public static func fromLogRatios(
        _ logRatios: consuming [Float], width gw: Int, height gh: Int, baseHdrHeadroom hb: Double,
        alternateHdrHeadroom ha: Double,
        options: GainMapComputeOptions = .init()
    ) throws(GainMapError) -> ComputedGainMap {
        let mc = options.channels
        guard mc == 1 || mc == 3, gw > 0, gh > 0, logRatios.count == gw * gh * mc else {
            throw .invalidInput("\(logRatios.count) log ratios do not make \(mc) planes of \(gw)x\(gh)")
        }
        guard options.gamma.numerator > 0, options.gamma.denominator > 0, options.baseOffset.denominator > 0,
            options.alternateOffset.denominator > 0, options.denominator > 0
        else { throw .invalidInput("gamma and offsets need non-zero parts") }
        var sums = logRatios
        let gplane = gw * gh

        // 2. min/max per channel without outliers, as exact fractions.
        let den = options.denominator
        var channels: [GainMapChannel] = []
        var ranges: [(Float, Float)] = []
        for c in 0..<mc {
            let (lo, hi) =
                sums[(c * gplane)..<((c + 1) * gplane)].withContiguousStorageIfAvailable {
                    minMaxWithoutOutliers($0, outlierFraction: options.outlierFraction)
                } ?? (0, 0)
            let fmin = fixedFraction(Double(lo), den, roundingUp: false)
            var fmax = fixedFraction(Double(hi), den, roundingUp: true)
            if fmax.doubleValue < fmin.doubleValue { fmax = fmin }
            channels.append(
                GainMapChannel(
                    min: fmin, max: fmax, gamma: options.gamma, baseOffset: options.baseOffset,
                    alternateOffset: options.alternateOffset))
            ranges.append((Float(fmin.doubleValue), Float(fmax.doubleValue)))
        }

        // 3. normalise, gamma, quantise.
        let gamma = Float(options.gamma.doubleValue)
        for c in 0..<mc {
            let (lo, hi) = ranges[c]
            let span = hi - lo
            let inv: Float = span > 0 ? 1 / span : 0
            sums.withUnsafeMutableBufferPointer { v in
                let range = (c * gplane)..<((c + 1) * gplane)
                if gamma == 1 {
                    for i in range {
                        let t = (Swift.min(Swift.max(v[i], lo), hi) - lo) * inv
                        v[i] = Swift.min(Swift.max(t, 0), 1)
                    }
                } else {
                    for i in range {
                        let t = pow((Swift.min(Swift.max(v[i], lo), hi) - lo) * inv, gamma)
                        v[i] = Swift.min(Swift.max(t, 0), 1)
                    }
                }
            }
        }
        let meta = GainMapMetadata(
            useBaseColorSpace: options.useBaseColorSpace,
            baseHdrHeadroom: fixedUFraction(hb, den), alternateHdrHeadroom: fixedUFraction(ha, den),
            channels: channels)
        let normalized = LinearImage(unchecked: gw, gh, mc, sums)
        return ComputedGainMap(metadata: meta, normalized: normalized, quantized: quantize(sums))
    }

    /// min/max of `v` ignoring `outlierFraction` of the samples (half each side), via a histogram of 0.01-wide
    /// buckets (libavif `avifFindMinMaxWithoutOutliers`).
    /// - Parameters:
    ///   - v: the samples.
    ///   - outlierFraction: share of samples that may be dropped in total.
    /// - Returns: (min, max); the plain extremes when the range is under two buckets.
    public static func minMaxWithoutOutliers(_ v: UnsafeBufferPointer<Float>, outlierFraction: Double) -> (Float, Float)
    {
        guard var lo = v.first(where: { $0.isFinite }) else { return (0, 0) }
        var hi = lo
        for x in v where x.isFinite {
            if x < lo { lo = x }
            if x > hi { hi = x }
        }
        let bucket: Float = 0.01
        guard hi - lo > 2 * bucket, outlierFraction > 0 else { return (lo, hi) }
        let maxOutliers = Int((Double(v.count) * outlierFraction / 2).rounded())
        guard maxOutliers > 0 else { return (lo, hi) }
        let n = Swift.min(Int(((hi - lo) / bucket).rounded(.up)), 10_000)
        let size = (hi - lo) / Float(n)
        var hist = [Int](repeating: 0, count: n)
        for x in v where x.isFinite {
            hist[Swift.min(Int((x - lo) / size), n - 1)] += 1
        }
        var rmin = lo
        var rmax = hi
        var acc = 0
        for i in 0..<n {
            acc += hist[i]
            if acc > maxOutliers {
                rmin = lo + Float(i) * size
                break
            }
        }
        acc = 0
        for i in stride(from: n - 1, through: 0, by: -1) {
            acc += hist[i]
            if acc > maxOutliers {
                rmax = lo + Float(i + 1) * size
                break
            }
        }
        return (Swift.min(rmin, rmax), Swift.max(rmin, rmax))
    }

    static func fixedFraction(_ x: Double, _ den: UInt32, roundingUp: Bool) -> Fraction {
        guard x.isFinite else { return Fraction(0, 1) }
        let limit = Double(Int32.max) / Double(den)
        let v = Swift.min(Swift.max(x, -limit), limit) * Double(den)
        let n = Int32(roundingUp ? v.rounded(.up) : v.rounded(.down))
        return reduced(Int64(n), UInt64(den)).map { Fraction(Int32($0.0), UInt32($0.1)) } ?? Fraction(n, den)
    }

    static func fixedUFraction(_ x: Double, _ den: UInt32) -> UFraction {
        guard x.isFinite else { return UFraction(0, 1) }
        let limit = Double(UInt32.max) / Double(den)
        let n = UInt32((Swift.min(Swift.max(x, 0), limit) * Double(den)).rounded())
        return reduced(Int64(n), UInt64(den)).map { UFraction(UInt32($0.0), UInt32($0.1)) } ?? UFraction(n, den)
    }

    static func reduced(_ n: Int64, _ d: UInt64) -> (Int64, UInt64)? {
        var a = UInt64(n.magnitude)
        var b = d
        while b != 0 { (a, b) = (b, a % b) }
        guard a > 0 else { return (0, 1) }
        return (n / Int64(a), d / a)
    }

    // MARK: measuring

    /// Error between two linear renditions in stops: |log2((candidate + floor)/(reference + floor))| per sample.
    /// - Parameters:
    ///   - reference: the expected rendition.
    ///   - candidate: the reproduced rendition (same size and planes).
    ///   - floor: added to both before the ratio, so near-black noise does not dominate (e.g. 1/64).
    /// - Returns: (max, mean) in stops; nil when the shapes differ.
    public static func errorInStops(reference: LinearImage, candidate: LinearImage, floor: Float = 1.0 / 64)
        -> (max: Double, mean: Double)?
    {
        guard reference.width == candidate.width, reference.height == candidate.height,
            reference.channels == candidate.channels, !reference.pixels.isEmpty
        else { return nil }
        var mx = 0.0
        var sum = 0.0
        for i in 0..<reference.pixels.count {
            let r = Swift.max(reference.pixels[i] + floor, 1e-9)
            let c = Swift.max(candidate.pixels[i] + floor, 1e-9)
            let e = Double(abs(log2(c / r)))
            mx = Swift.max(mx, e)
            sum += e
        }
        return (mx, sum / Double(reference.pixels.count))
    }
}

extension LinearImage {
    init(unchecked w: Int, _ h: Int, _ c: Int, _ p: [Float]) {
        width = w
        height = h
        channels = c
        pixels = p
    }
}
