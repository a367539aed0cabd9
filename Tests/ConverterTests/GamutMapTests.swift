import ColorScience
import Findings
import Foundation
import HeifCodec
import RenderCheck
import TestSupport
import Testing

@testable import Converter

/// D65 white as XYZ (Y = 1).
private let white = CIELAB.white
/// XYZ (D65) → a camera space that is XYZ scaled to make D65 (1, 1, 1): it holds any colour, however saturated.
private let xyzToCamera: [Double] = [1 / white.0, 0, 0, 0, 1, 0, 0, 0, 1 / white.2]

/// XYZ (Y = 1) of chromaticity (x, y).
private func xyz(_ x: Double, _ y: Double) -> (Double, Double, Double) { (x / y, 1, (1 - x - y) / y) }

/// A blue LED's chromaticity (≈ 460 nm): outside sRGB and Display P3, green far below zero, red just under.
private let led = (x: 0.145, y: 0.04)

private func apply(_ m: [Double], _ v: (Double, Double, Double)) -> (Double, Double, Double) {
    (
        m[0] * v.0 + m[1] * v.1 + m[2] * v.2, m[3] * v.0 + m[4] * v.1 + m[5] * v.2,
        m[6] * v.0 + m[7] * v.1 + m[8] * v.2
    )
}

/// CIELAB hue angle (degrees) of a linear sRGB colour (negative channels allowed: the colour as it really is).
private func hue(_ rgb: (Double, Double, Double)) -> Double {
    let xyz = apply(Primaries.sRGBToXYZ, rgb)
    let lab = CIELAB.lab(x: xyz.0, y: xyz.1, z: xyz.2)
    return atan2(lab.b, lab.a) * 180 / .pi
}

private func hueError(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

/// The gamut map on single colours: well inside the gamut nothing moves; outside, a colour keeps its luminance and
/// its direction from the grey of that luminance, lands inside the gamut (no negative channel), keeps its CIELAB
/// hue within a few degrees (closer than a hard clip), and a blue whose red is negative gets red back instead of the
/// clip's 0.
@Test func gamutMapCompressesOutOfGamutColoursAlongTheirHue() {
    let lum = LuminanceWeights.bt709Derived.float
    let inside: [(Float, Float, Float)] = [
        (0.3, 0.2, 0.1), (0.5, 0.12, 0.1), (0.02, 0.03, 0.025), (0, 0, 0), (1.5, 1.4, 1.3),
    ]
    for c in inside {
        let m = Renderer.gamutMap(c.0, c.1, c.2, lum: lum)
        #expect(m == c, "in-gamut colour \(c) moved to \(m)")
    }
    var lastT: Float = 0
    var (mapErrors, clipErrors) = (0.0, 0.0)
    let l = xyz(led.x, led.y)
    for k in stride(from: 0.05, through: 1.0, by: 0.05) {
        // The LED's light mixed with white at the same luminance: from inside sRGB to far outside.
        let mix = ((1 - k) * white.0 + k * l.0, 1.0, (1 - k) * white.2 + k * l.2)
        let ideal = apply(Primaries.xyzToSRGB, (0.05 * mix.0, 0.05 * mix.1, 0.05 * mix.2))
        let c = (Float(ideal.0), Float(ideal.1), Float(ideal.2))
        let m = Renderer.gamutMap(c.0, c.1, c.2, lum: lum)
        let y = lum.0 * c.0 + lum.1 * c.1 + lum.2 * c.2
        let ym = lum.0 * m.0 + lum.1 * m.1 + lum.2 * m.2
        #expect(min(m.0, m.1, m.2) >= 0, "\(c) → \(m)")
        #expect(abs(ym - y) < 1e-5 * y, "luminance \(y) → \(ym)")
        // The same direction from grey: each channel's offset scaled by one factor.
        let s = (m.2 - y) / (c.2 - y)
        #expect(s > 0 && s <= 1)
        #expect(abs((m.0 - y) - s * (c.0 - y)) < 1e-5 && abs((m.1 - y) - s * (c.1 - y)) < 1e-5)
        // Relative chroma after the map rises with the input's and never passes the boundary.
        let t = (ym - min(m.0, m.1, m.2)) / ym
        #expect(t >= lastT - 1e-5 && t <= 1 + 1e-5, "relative chroma \(t) after \(lastT)")
        lastT = t
        let err = hueError(hue((Double(m.0), Double(m.1), Double(m.2))), hue(ideal))
        #expect(err < 4, "hue error \(err)° for \(c) → \(m)")
        mapErrors += err
        clipErrors += hueError(hue((max(ideal.0, 0), max(ideal.1, 0), max(ideal.2, 0))), hue(ideal))
        if c.0 < 0 { #expect(m.0 > 0.001, "red not lifted: \(c) → \(m)") }
    }
    #expect(mapErrors < clipErrors, "hue error sum \(mapErrors)° against the hard clip's \(clipErrors)°")
    #expect(lastT > 0.98, "the most saturated blue sits at the boundary: \(lastT)")
}

/// A blue LED stage light (in a camera space that holds it, well outside sRGB) over a dark blue background, with a
/// magenta spot and no neutral tones, converted to sRGB. Against a camera-like preview (the scene's chroma pulled
/// in, then clipped) there is no finding, where the hard clip of the same scene is ≥ 5 ΔE a*b* away frame-wide. In
/// the light, the output's hue stays within a few degrees of the scene's (closer than the hard clip's) and its red
/// channel is lifted above the hard clip's.
@Test func outOfGamutStageLightConvertsWithItsHueAndNoCast() throws {
    var o = TestDNG.Options()
    o.bayer = false
    o.colorMatrix = xyzToCamera
    let w = o.width
    let h = o.height
    let magenta = apply(Primaries.sRGBToXYZ, (0.12, 0.01, 0.10))
    // Camera values (XYZ over D65's) at (x, y).
    let scene: (Int, Int) -> (Double, Double, Double) = { x, y in
        let fx = Double(x) / Double(w)
        let fy = Double(y) / Double(h)
        let dx = fx - 0.3
        let dy = fy - 0.6
        if dx * dx + dy * dy < 0.02 { return (magenta.0 / white.0, magenta.1, magenta.2 / white.2) }
        let c = xyz(led.x - 0.005 + 0.01 * fx, led.y - 0.005 + 0.01 * fy)
        let lum = 0.003 + 0.015 * fx
        return (lum * c.0 / white.0, lum, lum * c.2 / white.2)
    }
    let dng = TestDNG.make(o, scene: scene)
    let dir = Repo.temporaryDirectory("gamut-conversion")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("stage.dng")
    try Data(dng).write(to: url)
    var options = ConvertOptions()
    options.colorSpace = .sRGB
    options.look = .neutral
    let out = try HEICConverter.convert(source: url, options: options, decoders: .inProcess)
    let d = try HeifDecoder.decodePrimary(out.bytes)
    #expect(d.width == w && d.height == h)
    let exposure = exp2(HEICConverter.clipStopsAboveWhite)
    var ref = [UInt8](repeating: 0, count: w * h * 3)
    var clipped = [UInt8](repeating: 0, count: w * h * 3)
    var clipRed = 0.0
    var outRed = 0.0
    var hueErrors: [Double] = []
    var clipHueErrors = 0.0
    for y in 0..<h {
        for x in 0..<w {
            let s = scene(x, y)
            let ideal = apply(Primaries.xyzToSRGB, (s.0 * white.0 * exposure, s.1 * exposure, s.2 * white.2 * exposure))
            let i = 3 * (y * w + x)
            // The camera-like preview: chroma × 0.6 toward the pixel's luminance, then clipped.
            let l = 0.2126 * ideal.0 + 0.7152 * ideal.1 + 0.0722 * ideal.2
            let cam = [ideal.0, ideal.1, ideal.2].map { l + 0.6 * ($0 - l) }
            let lit = [ideal.0, ideal.1, ideal.2]
            for c in 0..<3 {
                ref[i + c] = UInt8((SRGBTransfer.encode(Float(min(max(cam[c], 0), 1))) * 255).rounded())
                clipped[i + c] = UInt8((SRGBTransfer.encode(Float(min(max(lit[c], 0), 1))) * 255).rounded())
            }
            guard ideal.0 < 0 || ideal.1 < 0, x > 2, x < w - 3, y < h - 3 else { continue }
            let o = (0..<3).map { SRGBTransfer.decode(Float(d.samples[i + $0]) / 255) }
            outRed += Double(d.samples[i])
            clipRed += Double((SRGBTransfer.encode(Float(max(ideal.0, 0))) * 255).rounded())
            hueErrors.append(hueError(hue((Double(o[0]), Double(o[1]), Double(o[2]))), hue(ideal)))
            clipHueErrors += hueError(hue((max(ideal.0, 0), max(ideal.1, 0), max(ideal.2, 0))), hue(ideal))
        }
    }
    #expect(hueErrors.count > w * h / 4, "the scene is mostly out of gamut: \(hueErrors.count) pixels")
    let n = Double(max(1, hueErrors.count))
    let meanHue = hueErrors.reduce(0, +) / n
    #expect(meanHue < 4 && meanHue < clipHueErrors / n, "mean hue error \(meanHue)°, hard clip \(clipHueErrors / n)°")
    #expect(outRed > clipRed + 8 * n, "red \(outRed / n) against a hard clip's \(clipRed / n)")
    let m = RenderComparison.compare(
        reference: RenderImage(width: w, height: h, codes: ref, space: .sRGB),
        output: RenderImage(width: w, height: h, codes: d.samples, space: .sRGB))
    let f = RenderVerdict.findings(m, thresholds: RenderThresholds(), reference: "camera-like preview")
    #expect(!f.contains { $0.code == .renderCast }, "\(f) \(m)")
    #expect(f.isEmpty && m.cast < RenderThresholds().castWarning, "\(f) \(m)")
    let mc = RenderComparison.compare(
        reference: RenderImage(width: w, height: h, codes: ref, space: .sRGB),
        output: RenderImage(width: w, height: h, codes: clipped, space: .sRGB))
    let fc = RenderVerdict.findings(mc, thresholds: RenderThresholds(), reference: "camera-like preview")
    // The same scene hard-clipped reads as a frame-wide shift against that preview (what the check used to see).
    #expect(mc.cast >= RenderThresholds().castWarning, "hard clip: cast \(mc.cast), \(fc.map(\.code))")
    print(
        "GAMUT \(hueErrors.count) px out of gamut: hue error \(meanHue)° (hard clip \(clipHueErrors / n)°), "
            + "red \(outRed / n) (hard clip \(clipRed / n)); cast \(m.cast), hue \(m.hueDifference ?? -1)°, "
            + "\(f.map(\.code))")
}
