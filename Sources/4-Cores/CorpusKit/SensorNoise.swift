import Foundation

/// Sensor noise for generated RAWs, in electrons, where a sensor makes it: before the mosaic values are quantised.
///
/// Model (Foi, Trimeche, Katkovnik, Egiazarian, "Practical Poissonian-Gaussian noise modeling and fitting for
/// single-image raw-data", IEEE TIP 17(10), 2008; the model is summarised in docs/quality-ladder.md): a photosite whose
/// clean value is `d` DN above black collects λ = d · g electrons on average, with `g` the conversion gain in e⁻/DN;
/// its value is
///
///     DN = black + round((Poisson(λ) + Normal(0, σ_r²)) / g), clipped to [0, white],
///
/// so in DN the variance is affine in the mean: var = mean / g + (σ_r / g)² + 1/12 (the photon transfer curve),
/// bent at the ends by the clip. The per-channel signal is the DNG writer's camera-RGB response (ColorMatrix1, white
/// at `AsShotNeutral`): under daylight the green sites collect the most electrons, red and blue fewer.
///
/// Parameters: a generic current full-frame 24 MP sensor, no camera named, inside the ranges of the note: full well
/// 60,000 e⁻ at ISO 100 mapped to the white level (14-bit: 16,319 DN above black, so g(100) ≈ 3.68 e⁻/DN), gain
/// g(ISO) = g(100) · 100 / ISO (the clip then sits at 60,000 · 100 / ISO electrons), read noise 6 e⁻ at ISO 100 (the
/// ADC dominates), 2.5 e⁻ at 800, 1.8 e⁻ at 3200 and 1.5 e⁻ at 12800 (an ISO-invariant design).
public struct SensorNoise: Sendable, Codable, Equatable {
    /// The ISO the parameters are for (written into the DNG's Exif ISO).
    public var iso: Int
    /// Electrons at the white level at ISO 100.
    public var fullWellAtBase: Double
    /// Read noise at this ISO, electrons RMS.
    public var readNoise: Double

    public init(iso: Int, fullWellAtBase: Double = SensorNoise.fullWell, readNoise: Double? = nil) {
        self.iso = iso
        self.fullWellAtBase = fullWellAtBase
        self.readNoise = readNoise ?? SensorNoise.readNoise(iso: iso)
    }

    /// Full well at ISO 100, electrons.
    public static let fullWell = 60_000.0
    /// The ISOs the benchmark and the quality ladder use.
    public static let benchmarkISOs = [100, 800, 3200, 12800]
    /// Read noise (e⁻ RMS) at the benchmark ISOs; other ISOs interpolate linearly in log ISO, clamped at the ends.
    public static let readNoiseTable: [(iso: Double, electrons: Double)] = [
        (100, 6.0), (800, 2.5), (3200, 1.8), (12800, 1.5),
    ]

    /// Read noise at `iso` from `readNoiseTable`.
    public static func readNoise(iso: Int) -> Double {
        let t = readNoiseTable
        let x = Double(max(1, iso))
        if x <= t[0].iso { return t[0].electrons }
        for i in 1..<t.count where x <= t[i].iso {
            let f = (log(x) - log(t[i - 1].iso)) / (log(t[i].iso) - log(t[i - 1].iso))
            return t[i - 1].electrons + f * (t[i].electrons - t[i - 1].electrons)
        }
        return t[t.count - 1].electrons
    }

    /// Conversion gain in e⁻/DN for a DNG whose white level sits `range` DN above black: the full well at ISO 100
    /// fills the range, and the gain falls as 1/ISO.
    public func gain(range: Double) -> Double { fullWellAtBase / range * 100 / Double(max(1, iso)) }

    /// The noisy code of one photosite.
    /// - Parameters:
    ///   - clean: the expected signal in DN above black (negative values collect no electrons).
    ///   - gain: e⁻/DN (`gain(range:)`).
    ///   - black: the black level.
    ///   - white: the white level (the clip).
    ///   - rng: the generator; the same state gives the same code.
    public func code(clean: Double, gain: Double, black: Double, white: Double, rng: inout SplitMix64) -> UInt16 {
        let electrons = Double(rng.poisson(max(0, clean) * gain)) + rng.normal() * readNoise
        let dn = black + (electrons / gain).rounded()
        return UInt16(min(white, max(0, dn)))
    }
}

extension SplitMix64 {
    /// Standard normal (Box–Muller, one value per pair of uniforms: the cosine branch).
    public mutating func normal() -> Double {
        let u1 = 1 - unit()  // (0, 1]
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Poisson(λ), exact: inversion by sequential search below λ = 10, else Hörmann's transformed rejection with
    /// squeeze (PTRS; W. Hörmann, "The transformed rejection method for generating Poisson random variables",
    /// Insurance: Mathematics and Economics 12, 1993), the method NumPy uses for λ ≥ 10.
    public mutating func poisson(_ lambda: Double) -> Int {
        guard lambda > 0 else { return 0 }
        if lambda < 10 {
            var p = exp(-lambda)
            var f = p
            var k = 0
            let u = unit()
            while u > f && k < 1000 {
                k += 1
                p *= lambda / Double(k)
                f += p
            }
            return k
        }
        let slam = lambda.squareRoot()
        let loglam = log(lambda)
        let b = 0.931 + 2.53 * slam
        let a = -0.059 + 0.02483 * b
        let invAlpha = 1.1239 + 1.1328 / (b - 3.4)
        let vr = 0.9277 - 3.6224 / (b - 2)
        while true {
            let u = unit() - 0.5
            let v = unit()
            let us = 0.5 - abs(u)
            let k = ((2 * a / us + b) * u + lambda + 0.43).rounded(.down)
            if us >= 0.07 && v <= vr { return Int(k) }
            if k < 0 || (us < 0.013 && v > us) { continue }
            if log(v) + log(invAlpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma(k + 1) {
                return Int(k)
            }
        }
    }
}
