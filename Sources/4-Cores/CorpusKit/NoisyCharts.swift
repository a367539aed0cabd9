/// The noisy benchmark charts: the 24 MP chart with `SensorNoise` at each benchmark ISO, each stored
/// uncompressed (the input) and as lossless JPEG (the size goal's reference), and the same scene without noise (the
/// ground truth a viewing-size fidelity measure compares with). Generated on demand into `large/`, never committed.

extension SensorNoise {
    /// Where a camera's exposure puts diffuse white: 2 stops under the clip (BaselineExposure +0.5). Real DNGs sit
    /// there too (the corpus's Canon EOS 6D and Sony α7R IV DNGs carry BaselineExposure +0.25 and +0.35), while the
    /// generated clean charts keep 4 stops of headroom for their HDR highlight. With 2 stops a mid-grey site collects
    /// 60,000 · 100/ISO · 0.18 / 4 electrons under daylight on green: about 2,700 at ISO 100, 84 at ISO 3200.
    public static let cameraHeadroomStops = 2.0

    /// A DNG spec with this noise at a camera's exposure: `base` with its noise, headroom, Exif ISO and seed replaced.
    public func spec(_ base: DNGSpec, seed: UInt64) -> DNGSpec {
        var s = base
        s.noiseSigma = 0
        s.sensorNoise = self
        s.headroomStops = SensorNoise.cameraHeadroomStops
        s.seed = seed
        s.capture.iso = UInt16(clamping: iso)
        return s
    }

    /// The noiseless twin of `spec(base, seed:)`: the same scene, headroom and metadata, no noise at all.
    public func cleanSpec(_ base: DNGSpec, seed: UInt64) -> DNGSpec {
        var s = spec(base, seed: seed)
        s.sensorNoise = nil
        return s
    }
}

extension Corpus {
    /// The 24 MP noisy charts: for each of `SensorNoise.benchmarkISOs`, `large/chart-24mp-rggb-14bit-isoN-o1.dng`
    /// and its lossless-JPEG twin `…-isoN-ljpeg-o1.dng` (same seed, so the same noise), then
    /// `large/chart-24mp-rggb-14bit-noiseless-o1.dng`, the scene they all sample (their clean truth).
    public static let noisyLarge: [CorpusRecipe] = {
        let (w, h) = (6000, 4000)
        let base = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, orientation: 1)
        var out: [CorpusRecipe] = []
        for (i, iso) in SensorNoise.benchmarkISOs.enumerated() {
            let noise = SensorNoise(iso: iso)
            let seed = UInt64(510 + i)
            for lossless in [false, true] {
                var spec = noise.spec(base, seed: seed)
                spec.losslessJPEG = lossless
                out.append(
                    CorpusRecipe(
                        file: "large/chart-24mp-rggb-14bit-iso\(iso)" + (lossless ? "-ljpeg-o1.dng" : "-o1.dng"),
                        recipe: "chart bayer RGGB 14-bit \(w)×\(h), sensor noise ISO \(iso)"
                            + (lossless ? " lossless JPEG" : ""), seed: seed,
                        exercises: "benchmark at ISO \(iso): shot + read noise in electrons (g = "
                            + "\((noise.gain(range: 16319) * 1000).rounded() / 1000) e-/DN, read noise \(noise.readNoise) e-)"
                            + (lossless ? "; the same pixels losslessly compressed (Compression 7)" : ""),
                        expectedAudit: "clean", spec: spec, width: w, height: h, highlightStops: highlightStops,
                        large: true))
            }
        }
        out.append(
            CorpusRecipe(
                file: "large/chart-24mp-rggb-14bit-noiseless-o1.dng",
                recipe: "chart bayer RGGB 14-bit \(w)×\(h), the noisy charts' scene without noise", seed: 0,
                exercises: "the clean truth of the noisy charts (viewing-size fidelity reference)",
                expectedAudit: "clean",
                spec: SensorNoise(iso: 100).cleanSpec(base, seed: 0), width: w, height: h,
                highlightStops: highlightStops, large: true))
        return out
    }()
}
