import Findings
import Foundation
import Testing

@testable import ColorScience
@testable import RenderCheck

/// A test scene in linear sRGB: a grey wedge, six colour patches, a bright sky band and an off-centre dark disc (so
/// no turn or mirror of it equals itself).
func scene(width w: Int = 300, height h: Int = 200) -> [Double] {
    var px = [Double](repeating: 0, count: w * h * 3)
    let patches: [(Double, Double, Double)] = [
        (0.45, 0.08, 0.07), (0.10, 0.35, 0.10), (0.06, 0.08, 0.40), (0.60, 0.50, 0.08), (0.40, 0.10, 0.35),
        (0.08, 0.35, 0.40),
    ]
    for y in 0..<h {
        for x in 0..<w {
            var c: (Double, Double, Double)
            let fx = Double(x) / Double(w)
            let fy = Double(y) / Double(h)
            if fy < 0.25 {
                c = (0.55 + 0.3 * fx, 0.65 + 0.3 * fx, 0.85)  // sky
            } else if fy < 0.55 {
                let g = 0.02 + 0.6 * fx * fx  // grey wedge
                c = (g, g, g)
            } else {
                let p = patches[min(5, Int(fx * 6))]
                c = (p.0 * (0.6 + 0.6 * fy), p.1 * (0.6 + 0.6 * fy), p.2 * (0.6 + 0.6 * fy))
            }
            let dx = fx - 0.7
            let dy = fy - 0.4
            if dx * dx + dy * dy < 0.01 { c = (0.01, 0.01, 0.012) }
            let i = 3 * (y * w + x)
            (px[i], px[i + 1], px[i + 2]) = c
        }
    }
    return px
}

/// Linear RGB → an 8-bit-quantised RenderImage with the sRGB transfer.
func encoded(_ lin: [Double], width: Int, height: Int, space: ColorSpace = .sRGB) -> RenderImage {
    let codes = lin.map { UInt8((SRGBTransfer.encode(min(max($0, 0), 1)) * 255).rounded()) }
    return RenderImage(width: width, height: height, codes: codes, space: space)
}

func codes(_ f: [Finding]) -> [String] { f.map { "\($0.code):\($0.severity.rawValue)" }.sorted() }

func verdict(_ ref: RenderImage, _ out: RenderImage) -> (RenderMeasurement, [Finding]) {
    let m = RenderComparison.compare(reference: ref, output: out)
    return (m, RenderVerdict.findings(m, thresholds: RenderThresholds(), reference: "test reference"))
}

@Test func identicalRenderingsMatch() {
    let lin = scene()
    let ref = encoded(lin, width: 300, height: 200)
    let (m, f) = verdict(ref, ref)
    #expect(f.isEmpty, "\(f)")
    #expect(m.deltaEMedian < 0.01 && m.cast < 0.01 && abs(m.exposureStops ?? 9) < 0.01)
    #expect(m.bestOrientation == 1)
    #expect(m.width == 300 && m.height == 200)
}

/// The same colours encoded in Display P3 are the same colours: converting each image by its own space is what
/// makes a P3 output comparable with an sRGB preview. Read as sRGB, the P3 codes are a desaturated image.
@Test func displayP3OutputOfTheSameColoursMatchesAnSRGBReference() {
    let lin = scene()
    let ref = encoded(lin, width: 300, height: 200)
    let toP3 = Matrix3.multiply(Matrix3.invert(ColorSpace.displayP3.toXYZ), ColorSpace.sRGB.toXYZ)
    var p3 = lin
    for i in stride(from: 0, to: lin.count, by: 3) {
        (p3[i], p3[i + 1], p3[i + 2]) = Matrix3.apply(toP3, (lin[i], lin[i + 1], lin[i + 2]))
    }
    let out = encoded(p3, width: 300, height: 200, space: .displayP3)
    let (m, f) = verdict(ref, out)
    #expect(f.isEmpty, "\(f)")
    #expect(m.deltaEMedian < 0.5, "ΔE00 median \(m.deltaEMedian)")
    var misread = out
    misread.space = .sRGB
    let wrong = RenderComparison.compare(reference: ref, output: misread)
    #expect((wrong.chromaRatio ?? 1) < 0.9, "P3 codes read as sRGB look desaturated: \(wrong.chromaRatio ?? -1)")
}

@Test func deliberateFailuresAreCaughtWithTheirCodes() {
    let (w, h) = (300, 200)
    let lin = scene(width: w, height: h)
    let ref = encoded(lin, width: w, height: h)
    // Turned 90° with no tag change: the output is the reference as shown under orientation 6.
    let turned = ref.oriented(ExifOrientation(exif: 6))
    #expect(codes(verdict(ref, turned).1) == ["render.orientation:error"])
    #expect(verdict(ref, turned).0.bestOrientation == 8)
    #expect(codes(verdict(ref, ref.oriented(ExifOrientation(exif: 3))).1) == ["render.orientation:error"])
    // +40 % on red and blue in linear light.
    var cast = lin
    for i in stride(from: 0, to: lin.count, by: 3) {
        cast[i] *= 1.4
        cast[i + 2] *= 1.4
    }
    let (mc, fc) = verdict(ref, encoded(cast, width: w, height: h))
    #expect(codes(fc).contains("render.cast:error"), "\(fc) cast \(mc.cast)")
    #expect(mc.castFromNeutrals && mc.castA > 5)
    // 1.5 stops under.
    let (mu, fu) = verdict(ref, encoded(lin.map { $0 * pow(2, -1.5) }, width: w, height: h))
    #expect(codes(fu) == ["render.exposure:error"], "\(fu)")
    #expect(abs((mu.exposureStops ?? 0) + 1.5) < 0.1, "\(mu.exposureStops ?? 0)")
    // A constant frame (the mean colour) and a black one.
    let mean = (0..<3).map { c in stride(from: c, to: lin.count, by: 3).map { lin[$0] }.reduce(0, +) / Double(w * h) }
    let constant = (0..<(w * h)).flatMap { _ in mean }
    #expect(codes(verdict(ref, encoded(constant, width: w, height: h)).1) == ["render.blank:error"])
    #expect(codes(verdict(ref, encoded(lin.map { _ in 0 }, width: w, height: h)).1) == ["render.blank:error"])
}

/// A reference without content (a stripped sample's near-black thumbnail) judges nothing: whatever the output, the
/// verdict is `render.no-reference` (info) with the reference's spread, never a silent pass and never an error.
@Test func aReferenceWithoutContentSaysSoInsteadOfPassing() {
    let lin = scene()
    let dark = encoded(lin.map { $0 * 0.004 }, width: 300, height: 200)
    for out in [encoded(lin, width: 300, height: 200), dark, encoded(lin.map { _ in 0 }, width: 300, height: 200)] {
        let (m, f) = verdict(dark, out)
        #expect(m.referenceSpread < RenderThresholds().blankReferenceSpread)
        #expect(codes(f) == ["render.no-reference:info"], "\(f)")
        #expect(f.first?.message.contains("has no content to compare with (L* spread") == true)
    }
}

/// A legitimate other rendering (half a stop brighter, a little more contrast, 2 % warmer) raises nothing.
@Test func aDifferentButLegitimateRenderingRaisesNothing() {
    let lin = scene()
    let ref = encoded(lin, width: 300, height: 200)
    var other = lin
    for i in stride(from: 0, to: lin.count, by: 3) {
        let y = 0.2126 * lin[i] + 0.7152 * lin[i + 1] + 0.0722 * lin[i + 2]
        let k = pow(max(y, 1e-6) / 0.18, 0.15) * pow(2, 0.5)
        other[i] = lin[i] * k * 1.02
        other[i + 1] = lin[i + 1] * k
        other[i + 2] = lin[i + 2] * k * 0.98
    }
    let (m, f) = verdict(ref, encoded(other, width: 300, height: 200))
    #expect(f.filter { $0.severity == .error }.isEmpty, "\(f)")
    #expect(m.bestOrientation == 1)
}

/// A letterboxed thumbnail (bars above and below a 3:2 picture in a 4:3 frame) is trimmed before comparing with a
/// 3:2 output; the same dark rows are kept when the output has them too.
@Test func letterboxBarsAreTrimmedOnlyWhenTheOutputLacksThem() {
    let lin = scene(width: 240, height: 160)
    let out = encoded(lin, width: 240, height: 160)
    let picture = out.resized(width: 160, height: 106)
    var boxed = [Float](repeating: 0, count: 160 * 120 * 3)
    for y in 0..<106 {
        for x in 0..<160 {
            for c in 0..<3 { boxed[3 * ((y + 7) * 160 + x) + c] = picture.samples[3 * (y * 160 + x) + c] }
        }
    }
    let ref = RenderImage(width: 160, height: 120, samples: boxed, space: .sRGB)
    let (m, f) = verdict(ref, out)
    #expect(m.trimmedBars == [7, 7, 0, 0])
    #expect(f.isEmpty, "\(f)")
    // Compared with a 4:3 output that has the bars too, nothing is trimmed.
    #expect(RenderComparison.compare(reference: ref, output: ref).trimmedBars == [0, 0, 0, 0])
}

@Test func orientationTransformsAreTheExifOnes() {
    // A 3×2 image with distinct pixels; orientation 6 shows it turned 90° clockwise: 2×3, the bottom-left pixel
    // at the top left.
    let img = RenderImage(width: 3, height: 2, codes: Array(0..<18).map { UInt8($0) }, space: .sRGB)
    let six = img.oriented(ExifOrientation(exif: 6))
    #expect(six.width == 2 && six.height == 3)
    #expect(six.samples[0] == img.samples[3 * 3])  // stored (0, 1) shown at (0, 0)
    for o in 1...8 {
        let back = img.oriented(ExifOrientation(exif: o)).oriented(ExifOrientation(exif: RenderVerdict.inverse(o)))
        #expect(back.samples == img.samples && back.width == 3, "orientation \(o) and its inverse")
    }
}

/// The percentile by selection equals the one a sort gives (interpolated between neighbours).
@Test func percentileBySelectionEqualsTheSortedOne() {
    func sortedPercentile(_ v: [Double], _ q: Double) -> Double {
        let s = v.sorted()
        let x = q / 100 * Double(s.count - 1)
        let i = Int(x)
        return i + 1 < s.count ? s[i] + (s[i + 1] - s[i]) * (x - Double(i)) : s[i]
    }
    let lists: [[Double]] = [
        (0..<1001).map { sin(Double($0) * 12.9898) * 43758.5453 }.map { $0 - $0.rounded(.down) },
        (0..<500).map { Double(($0 * 7919) % 13) },
        [5], [2, 1], [1, 1, 1, 2],
    ]
    for v in lists {
        for q in [0.0, 1, 10, 50, 90, 99, 100] {
            #expect(RenderComparison.percentile(v, q) == sortedPercentile(v, q), "q \(q) of \(v.count)")
        }
    }
    #expect(RenderComparison.percentile([], 50).isNaN)
    // Several at once, on one copy: each the one a sort gives.
    let qs = [99.0, 1, 50, 50, 90, 0, 100]
    for v in lists {
        #expect(RenderComparison.percentiles(v, qs) == qs.map { sortedPercentile(v, $0) }, "\(v.count) values")
    }
    #expect(RenderComparison.percentiles([], [1, 99]).allSatisfy { $0.isNaN })
}

/// The per-pixel measures run in two halves at once: both halves count. A grey reference whose output is shifted by
/// Δa* +1 in the first half of the pixels and +3 in the second has a cast of exactly +2, a ΔE00 median between the
/// two halves' and every pixel near-neutral; a dropped or doubled half moves the cast to 1 or 3.
@Test func theToneMeasuresCountBothHalvesOfTheFrame() {
    let n = 1001
    let l = (0..<n).map { 30 + 40 * Double($0) / Double(n) }
    let ref = CIELAB.Planes(l: l, a: [Double](repeating: 0, count: n), b: [Double](repeating: 0, count: n), y: l)
    let shift = (0..<n).map { $0 < n / 2 ? 1.0 : 3.0 }
    let out = CIELAB.Planes(l: l, a: shift, b: [Double](repeating: 0, count: n), y: l)
    var m = RenderMeasurement(
        width: n, height: 1, trimmedBars: [0, 0, 0, 0], exposureStops: nil, midtoneFraction: 0, castA: 0, castB: 0,
        neutralFraction: 0, castFromNeutrals: false, bestOrientation: 1, correlationIdentity: 1, correlationBest: 1,
        correlationRunnerUp: 0, outputSpread: 0, referenceSpread: 0, deltaEMedian: 0, deltaEP90: 0, chromaRatio: nil,
        outputMedianL: 0, referenceMedianL: 0)
    RenderComparison.measureTone(&m, ref, out)
    #expect(m.castFromNeutrals && m.neutralFraction == 1)
    #expect(abs(m.castA - (1.0 * 500 + 3.0 * 501) / 1001) < 1e-12 && m.castB == 0)
    #expect(m.midtoneFraction == 1 && m.exposureStops == 0)
    let deLow = CIEDE2000.difference(50, 0, 0, 50, 1, 0)
    let deHigh = CIEDE2000.difference(50, 0, 0, 50, 3, 0)
    #expect(m.deltaEP90 > deLow * 2 && m.deltaEMedian > deLow * 2 && m.deltaEMedian < deHigh * 1.1)
    #expect(abs(m.outputMedianL - l[n / 2]) < 1e-12 && m.referenceMedianL == m.outputMedianL)
}
