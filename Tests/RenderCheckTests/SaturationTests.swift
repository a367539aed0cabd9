import ColorScience
import Findings
import Foundation
import Testing

@testable import RenderCheck

/// A concert under blue stage light, in linear sRGB: no neutral tones, blue and violet light over dark blue, with a
/// magenta spot. `chroma` scales every pixel's distance from its own luminance (1: as lit; below 1: the camera's
/// gamut mapping pulling the colours in).
func stageScene(width w: Int = 240, height h: Int = 160, chroma k: Double = 1) -> [Double] {
    var px = [Double](repeating: 0, count: w * h * 3)
    for y in 0..<h {
        for x in 0..<w {
            let fx = Double(x) / Double(w)
            let fy = Double(y) / Double(h)
            var c = (0.01 + 0.05 * fx, 0.015 + 0.02 * fy, 0.12 + 0.5 * fx * (1 - fy))
            let dx = fx - 0.3
            let dy = fy - 0.6
            if dx * dx + dy * dy < 0.02 { c = (0.35, 0.04, 0.30) }
            let lum = 0.2126 * c.0 + 0.7152 * c.1 + 0.0722 * c.2
            let i = 3 * (y * w + x)
            (px[i], px[i + 1], px[i + 2]) = (lum + k * (c.0 - lum), lum + k * (c.1 - lum), lum + k * (c.2 - lum))
        }
    }
    return px
}

/// A scene of saturated colour patches (red, green, blue, yellow, magenta, cyan) without neutral tones.
func patchScene(width w: Int = 240, height h: Int = 160) -> [Double] {
    let patches: [(Double, Double, Double)] = [
        (0.45, 0.08, 0.07), (0.10, 0.35, 0.10), (0.06, 0.08, 0.40), (0.60, 0.50, 0.08), (0.40, 0.10, 0.35),
        (0.08, 0.35, 0.40),
    ]
    var px = [Double](repeating: 0, count: w * h * 3)
    for y in 0..<h {
        for x in 0..<w {
            let p = patches[min(5, x * 6 / w)]
            let s = 0.6 + 0.6 * Double(y) / Double(h)
            let i = 3 * (y * w + x)
            (px[i], px[i + 1], px[i + 2]) = (p.0 * s, p.1 * s, p.2 * s)
        }
    }
    return px
}

/// Saturated light in a scene with no neutral content: the camera's preview pulls the blue in, the output keeps it
/// more saturated. The hues agree, so this is `render.saturation` (a warning), never `render.cast`.
@Test func saturatedLightWithoutNeutralsIsSaturationNotCast() {
    let ref = encoded(stageScene(chroma: 0.6), width: 240, height: 160)
    let out = encoded(stageScene(chroma: 1), width: 240, height: 160)
    let (m, f) = verdict(ref, out)
    #expect(!m.castFromNeutrals)
    #expect(m.cast >= RenderThresholds().castWarning, "the frame-wide shift alone would be a cast: \(m.cast)")
    #expect((m.hueDifference ?? 99) < RenderThresholds().castHueAgreement, "\(String(describing: m.hueDifference))")
    #expect(codes(f) == ["render.saturation:warning"], "\(f)")
    #expect(f.first?.message.contains("more saturated") == true)
}

/// A real cast in the same scene: every hue turned (the stage light rendered violet) is still `render.cast`.
@Test func turnedHuesWithoutNeutralsAreStillACast() {
    let lin = stageScene()
    var turned = lin
    for i in stride(from: 0, to: lin.count, by: 3) { turned[i] = lin[i] + 0.5 * lin[i + 2] }
    let (m, f) = verdict(encoded(lin, width: 240, height: 160), encoded(turned, width: 240, height: 160))
    #expect((m.hueDifference ?? 0) >= RenderThresholds().castHueAgreement, "\(String(describing: m.hueDifference))")
    #expect(codes(f).contains { $0.hasPrefix("render.cast:") }, "\(f)")
}

/// A white-balance shift of about 1,000 K (warmer: red × 1.25, blue × 0.78) on colour patches without neutral tones
/// moves every hue: `render.cast`, not a saturation difference.
@Test func whiteBalanceShiftWithoutNeutralsIsACast() {
    let lin = patchScene()
    var warm = lin
    for i in stride(from: 0, to: lin.count, by: 3) { (warm[i], warm[i + 2]) = (lin[i] * 1.25, lin[i + 2] * 0.78) }
    let (m, f) = verdict(encoded(lin, width: 240, height: 160), encoded(warm, width: 240, height: 160))
    #expect(!m.castFromNeutrals)
    #expect((m.hueDifference ?? 0) >= RenderThresholds().castHueAgreement, "\(String(describing: m.hueDifference))")
    #expect(codes(f).contains { $0.hasPrefix("render.cast:") }, "\(f) cast \(m.cast)")
    #expect(!codes(f).contains { $0.hasPrefix("render.saturation") }, "\(f)")
}
