import Foundation
import TestSupport
import Testing

@testable import CorpusKit

// The sensor noise model (SensorNoise.swift): the photon transfer curve of generated flat patches, the samplers,
// determinism, and the noisy benchmark charts' twins.

/// Horizontal bands of flat grey, one per level (linear scene values), each `bandRows` rows high.
private struct Bands: SceneSource {
    let levels: [Double]
    let bandRows: Int
    let displayWidth: Int
    var displayHeight: Int { levels.count * bandRows }
    func pixel(x: Int, y: Int) -> RGB { .grey(levels[y / bandRows]) }
}

/// The raw samples of a 16-bit uncompressed DNG (the writer's SubIFD 0), row-major.
private func rawSamples(_ dng: [UInt8]) throws -> (values: [UInt16], width: Int) {
    let tree = try #require(TIFFReader(bytes: dng)?.readTree())
    guard case .ifds(let subs) = try #require(tree[330]), let raw = subs.first,
        case .longs(let w) = try #require(raw[256]), let data = raw.imageData
    else { throw ToolError(message: "no raw SubIFD") }
    var v = [UInt16](repeating: 0, count: data.count / 2)
    for i in 0..<v.count { v[i] = UInt16(data[2 * i]) | UInt16(data[2 * i + 1]) << 8 }
    return (v, Int(w[0]))
}

/// Mean and (population) variance of the DN above black of one CFA colour in each band.
private func bandStats(
    _ s: (values: [UInt16], width: Int), bands: Int, bandRows: Int, colour: Int, black: Double
) -> [(mean: Double, variance: Double)] {
    (0..<bands).map { b in
        var sum = 0.0
        var sq = 0.0
        var n = 0.0
        // Skip a band's first and last rows: the demosaic-free mosaic has no bleeding, but keep the fit clean.
        for y in (b * bandRows + 2)..<((b + 1) * bandRows - 2) {
            for x in 0..<s.width where CFAPattern.rggb.colour(x: x, y: y) == colour {
                let d = Double(s.values[y * s.width + x]) - black
                sum += d
                sq += d * d
                n += 1
            }
        }
        let m = sum / n
        return (m, sq / n - m * m)
    }
}

/// Least-squares line y = a·x + b.
private func fit(_ pts: [(Double, Double)]) -> (a: Double, b: Double) {
    let n = Double(pts.count)
    let sx = pts.map(\.0).reduce(0, +)
    let sy = pts.map(\.1).reduce(0, +)
    let sxx = pts.map { $0.0 * $0.0 }.reduce(0, +)
    let sxy = pts.map { $0.0 * $0.1 }.reduce(0, +)
    let a = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (a, (sy - a * sx) / n)
}

/// The photon transfer curve of flat patches: in DN the variance is affine in the mean with slope 1/g (g = the
/// model's e⁻/DN at that ISO) and intercept (σ_r/g)² + 1/12, for green and red sites alike (same gain, fewer
/// electrons on red); above the white level the clip leaves (almost) no variance. Measured on the DNG the writer
/// makes, so a model in the wrong place (e.g. Gaussian noise of a fixed DN sigma) fails the slope.
@Test(arguments: [800, 3200])
func photonTransferCurveOfFlatPatchesHasSlopeOneOverGain(_ iso: Int) throws {
    let levels = [0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.0, 40.0]
    let bands = Bands(levels: levels, bandRows: 64, displayWidth: 256)
    let noise = SensorNoise(iso: iso)
    let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 16, seed: 77, sensorNoise: noise)
    let raw = try rawSamples(DNGWriter.write(scene: bands, spec: spec))
    let range = Double(spec.whiteLevel - spec.blackLevel)
    let g = noise.gain(range: range)
    var points: [(Double, Double)] = []
    for colour in [0, 1] {
        let st = bandStats(raw, bands: levels.count, bandRows: 64, colour: colour, black: Double(spec.blackLevel))
        // Unclipped, lit bands only: the mean stays well under the white level.
        for s in st.dropFirst() where s.mean + 6 * s.variance.squareRoot() < range {
            points.append((s.mean, s.variance))
        }
        // The dark band is read noise plus quantisation alone.
        let dark = (noise.readNoise / g) * (noise.readNoise / g) + 1.0 / 12
        #expect(abs(st[0].variance - dark) <= 0.08 * dark, "ISO \(iso) colour \(colour): dark var \(st[0].variance)")
        // The band above the clip sits at the white level.
        let top = try #require(st.last)
        #expect(abs(top.mean - range) < 1 && top.variance < 1, "ISO \(iso) colour \(colour): clipped band \(top)")
    }
    #expect(points.count >= 14)
    let line = fit(points)
    #expect(abs(line.a - 1 / g) <= 0.03 / g, "ISO \(iso): PTC slope \(line.a), 1/g = \(1 / g)")
    let intercept = (noise.readNoise / g) * (noise.readNoise / g) + 1.0 / 12
    #expect(abs(line.b) < max(3 * intercept, 0.02 * points.map(\.1).max()!), "ISO \(iso): intercept \(line.b)")
    // The mean is unbiased: a band's mean DN is its clean value.
    let cleanSpec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 16, seed: 77)
    let clean = bandStats(
        try rawSamples(DNGWriter.write(scene: bands, spec: cleanSpec)), bands: levels.count, bandRows: 64, colour: 1,
        black: Double(spec.blackLevel))
    let noisy = bandStats(raw, bands: levels.count, bandRows: 64, colour: 1, black: Double(spec.blackLevel))
    for (c, n) in zip(clean, noisy).dropFirst().dropLast() {
        #expect(abs(n.mean - c.mean) <= 4 * (n.variance / 3000).squareRoot() + 0.5, "mean \(n.mean) vs clean \(c.mean)")
    }
}

/// Gain falls as 1/ISO from the full well at ISO 100, and read noise follows the table.
@Test func gainAndReadNoiseFollowTheISO() {
    let range = 16319.0
    #expect(abs(SensorNoise(iso: 100).gain(range: range) - 60_000 / range) < 1e-12)
    #expect(abs(SensorNoise(iso: 3200).gain(range: range) * 32 - SensorNoise(iso: 100).gain(range: range)) < 1e-12)
    #expect(SensorNoise(iso: 100).readNoise == 6 && SensorNoise(iso: 12800).readNoise == 1.5)
    #expect(SensorNoise(iso: 50).readNoise == 6 && SensorNoise(iso: 51200).readNoise == 1.5)
    let mid = SensorNoise(iso: 1600).readNoise
    #expect(mid < 2.5 && mid > 1.8)
}

/// The samplers: Poisson mean and variance λ on both branches (inversion under 10, PTRS above); Box–Muller N(0, 1).
@Test func poissonAndNormalSamplersHaveTheRightMoments() {
    var rng = SplitMix64(seed: 12345)
    for lambda in [0.3, 3.0, 9.9, 10.0, 55.0, 4000.0] {
        let n = 40000
        var s = 0.0
        var sq = 0.0
        for _ in 0..<n {
            let k = Double(rng.poisson(lambda))
            s += k
            sq += k * k
        }
        let m = s / Double(n)
        let v = sq / Double(n) - m * m
        #expect(abs(m - lambda) < 5 * (lambda / Double(n)).squareRoot(), "λ \(lambda): mean \(m)")
        #expect(abs(v - lambda) < 0.05 * lambda + 0.01, "λ \(lambda): variance \(v)")
    }
    #expect(rng.poisson(0) == 0 && rng.poisson(-1) == 0)
    var s = 0.0
    var sq = 0.0
    var tail = 0
    for _ in 0..<40000 {
        let z = rng.normal()
        s += z
        sq += z * z
        if abs(z) > 3 { tail += 1 }
    }
    #expect(abs(s / 40000) < 0.02 && abs(sq / 40000 - 1) < 0.03)
    // P(|z| > 3) = 0.0027: about 108 of 40000 (the Irwin–Hall approximation of `gaussian()` gives far fewer).
    #expect((60...160).contains(tail), "\(tail) samples beyond 3σ")
}

/// The same spec gives the same bytes; another seed other noise; the noiseless twin is the clean spec.
@Test func noisyDNGsAreDeterministicAndKeepTheirCleanTwin() throws {
    let chart = Chart(width: 96, height: 64, highlightStops: 3)
    let noise = SensorNoise(iso: 3200)
    let base = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14)
    let a = DNGWriter.write(scene: chart, spec: noise.spec(base, seed: 5))
    #expect(a == DNGWriter.write(scene: chart, spec: noise.spec(base, seed: 5)))
    #expect(a != DNGWriter.write(scene: chart, spec: noise.spec(base, seed: 6)))
    let clean = noise.cleanSpec(base, seed: 5)
    #expect(clean.sensorNoise == nil && clean.noiseSigma == 0 && clean.headroomStops == 2)
    #expect(noise.spec(base, seed: 5).capture.iso == 3200)
    var same = noise.spec(base, seed: 5)
    same.sensorNoise = nil
    #expect(same == clean)
}

/// Every noisy benchmark chart has a lossless-JPEG twin of the same recipe (the size goal's reference) and the
/// noiseless chart is the same scene without noise.
@Test func everyNoisyChartHasALosslessTwinAndTheNoiselessScene() throws {
    let plain = Corpus.noisyLarge.filter { !$0.spec.losslessJPEG && $0.spec.sensorNoise != nil }
    #expect(plain.map { $0.spec.sensorNoise?.iso } == SensorNoise.benchmarkISOs)
    let truth = try #require(Corpus.noisyLarge.first { $0.file.hasSuffix("-noiseless-o1.dng") })
    for p in plain {
        let twin = try #require(
            Corpus.noisyLarge.first { $0.file == p.file.replacingOccurrences(of: "-o1.dng", with: "-ljpeg-o1.dng") })
        var same = twin
        same.spec.losslessJPEG = false
        #expect(same.spec == p.spec && same.seed == p.seed && twin.large && p.large)
        var scene = p.spec
        scene.sensorNoise = nil
        scene.seed = truth.spec.seed
        scene.capture.iso = truth.spec.capture.iso
        #expect(scene == truth.spec, "\(p.file)")
        #expect(p.width == truth.width && p.height == truth.height && p.highlightStops == truth.highlightStops)
    }
    #expect(Corpus.noisyLarge.count == 2 * plain.count + 1)
}

/// Lossless JPEG stays lossless on noisy data (large, random differences between neighbours): LibRaw decodes a small
/// ISO 12800 chart written with Compression 7 to the same pixels as the same recipe uncompressed, and the noise
/// costs the lossless coder real bits (the reason the bench's lossless references grow with ISO).
@Test func noisyLosslessJPEGDecodesIdenticallyToUncompressed() throws {
    let chart = Chart(width: 192, height: 128, highlightStops: 3)
    let base = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14)
    var spec = SensorNoise(iso: 12800).spec(base, seed: 9)
    let plain = DNGWriter.write(scene: chart, spec: spec)
    spec.losslessJPEG = true
    let compressed = DNGWriter.write(scene: chart, spec: spec)
    var cleanSpec = SensorNoise(iso: 12800).cleanSpec(base, seed: 9)
    cleanSpec.losslessJPEG = true
    let cleanLossless = DNGWriter.write(scene: chart, spec: cleanSpec)
    let tmp = Repo.temporaryDirectory("noisy-ljpeg")
    defer { try? FileManager.default.removeItem(at: tmp) }
    let a = tmp.appendingPathComponent("plain.dng")
    let b = tmp.appendingPathComponent("ljpeg.dng")
    try Data(plain).write(to: a)
    try Data(compressed).write(to: b)
    let da = try runTool("/usr/bin/dcraw_emu", ["-w", "-4", "-o", "0", "-Z", "-", a.path])
    let db = try runTool("/usr/bin/dcraw_emu", ["-w", "-4", "-o", "0", "-Z", "-", b.path])
    #expect(da.count > 192 * 128 * 6 && da == db)
    #expect(compressed.count > cleanLossless.count * 5 / 4, "noise: \(compressed.count), clean: \(cleanLossless.count)")
}
