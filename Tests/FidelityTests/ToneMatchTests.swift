import Foundation
import Testing

@testable import Fidelity

/// A scene-like luminance sample: log-uniform over 10 stops around 18 % grey, seeded.
private func scene(_ n: Int, seed: UInt64 = 7) -> [Float] {
    var s = seed
    return (0..<n).map { _ in
        s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let u = Double(s >> 11) / Double(1 << 53)
        return Float(0.18 * exp2(-7 + 9 * u))
    }
}

/// What a camera curve of `ev` stops at grey and slope `contrast` shows for these luminances (display-linear, clipped
/// at white, quantised to 8-bit sRGB codes as a JPEG preview is).
private func camera(_ ours: [Float], ev: Double, contrast: Double) -> [Float] {
    ours.map { y in
        let v = min(1, 0.18 * exp2(ev) * pow(Double(y) / 0.18, contrast))
        let code = (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055) * 255
        let c = code.rounded() / 255
        return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
    }
}

@Test func toneMatchRecoversAKnownCameraCurve() throws {
    let ours = scene(60_000)
    for (ev, contrast) in [(-0.8, 1.3), (0.5, 1.0), (-0.3, 0.8)] {
        guard case .curve(let c) = ToneMatch.fit(ours: ours, reference: camera(ours, ev: ev, contrast: contrast)) else {
            Issue.record("no curve for ev \(ev), contrast \(contrast)")
            continue
        }
        #expect(abs(c.midGreyShift - ev) < 0.05, "ev \(ev): \(c.midGreyShift)")
        #expect(abs(c.midGreyContrast - contrast) < 0.08, "contrast \(contrast): \(c.midGreyContrast)")
        // Every knot on the true curve (log2 out = ev + log2 0.18 + contrast · (u − log2 0.18)) within 0.08 stop.
        for (u, v) in zip(c.inputStops, c.outputStops) {
            let want = ev + log2(0.18) + contrast * (u - log2(0.18))
            #expect(abs(v - want) < 0.08, "ev \(ev) contrast \(contrast) at \(u): \(v) vs \(want)")
        }
        #expect(zip(c.outputStops, c.outputStops.dropFirst()).allSatisfy { $0 <= $1 }, "monotone")
        // Beyond the knots the curve goes on with slope 1 (one gain): highlights keep their detail for the roll-off.
        let top = c.inputStops.last!
        #expect(abs((c.stops(at: top + 2) - c.stops(at: top)) - 2) < 1e-9)
    }
}

@Test func toneMatchNeedsNoRegistration() throws {
    // The same reference pixels in another order (a turned or differently cropped preview) give the same curve.
    let ours = scene(40_000)
    let ref = camera(ours, ev: -0.6, contrast: 1.2)
    let a = ToneMatch.fit(ours: ours, reference: ref)
    let b = ToneMatch.fit(ours: ours, reference: Array(ref.reversed()))
    #expect(a == b)
    guard case .curve = a else {
        Issue.record("expected a curve, got \(a)")
        return
    }
}

@Test func toneMatchCallsTheNeutralRenderNeutral() {
    // The camera showing the scene as the neutral render does (8-bit quantisation aside): no curve.
    let ours = scene(50_000)
    guard case .neutral(let shift) = ToneMatch.fit(ours: ours, reference: camera(ours, ev: 0, contrast: 1)) else {
        Issue.record("a neutral reference must give no curve")
        return
    }
    #expect(shift < ToneMatch.neutralTolerance)
    // 0.15 stop is a curve.
    guard case .curve = ToneMatch.fit(ours: ours, reference: camera(ours, ev: 0.15, contrast: 1)) else {
        Issue.record("0.15 stop must be a curve")
        return
    }
}

@Test func toneMatchIsBounded() {
    let ours = scene(50_000)
    // A reference 5 stops brighter: every shift is capped at `maxShift`, slopes stay in range.
    guard case .curve(let c) = ToneMatch.fit(ours: ours.map { $0 / 64 }, reference: camera(ours, ev: 0, contrast: 1))
    else {
        Issue.record("expected a curve")
        return
    }
    #expect(c.largestShift <= ToneMatch.maxShift + 1e-9)
    for i in 1..<c.inputStops.count {
        let slope = (c.outputStops[i] - c.outputStops[i - 1]) / (c.inputStops[i] - c.inputStops[i - 1])
        #expect(ToneMatch.slopeRange.contains(slope) || abs(slope - 1) < 1e-9, "slope \(slope)")
    }
}

@Test func toneMatchRefusesWhatItCannotFit() {
    // Too few pixels; a reference that is all black or all clipped; a flat frame (no span of tones).
    let ours = scene(50_000)
    let cases: [(String, [Float], [Float])] = [
        ("tiny", Array(ours.prefix(500)), Array(ours.prefix(500))),
        ("black", ours, [Float](repeating: 0, count: ours.count)),
        ("clipped", ours, [Float](repeating: 1, count: ours.count)),
        ("flat", [Float](repeating: 0.18, count: ours.count), [Float](repeating: 0.2, count: ours.count)),
    ]
    for (name, o, r) in cases {
        guard case .unusable(let why) = ToneMatch.fit(ours: o, reference: r) else {
            Issue.record("\(name): expected unusable")
            continue
        }
        #expect(!why.isEmpty && !why.contains("\n"), "\(name)")
    }
}

@Test func similarityTellsTheSamePictureFromAnother() {
    // A 96×64 scene (a gradient with a bright disc), the camera's rendering of it (another tone curve), and a
    // "no preview" placeholder (flat grey with a dark band of text-like bars).
    let (w, h) = (96, 64)
    var scene = [Float](repeating: 0, count: w * h)
    var placeholder = [Float](repeating: 0.2, count: w * h)
    for y in 0..<h {
        for x in 0..<w {
            let disc = hypot(Double(x - 60), Double(y - 30)) < 14
            scene[y * w + x] = Float(0.01 + 0.3 * Double(x) / Double(w) + (disc ? 0.5 : 0))
            if (28..<36).contains(y) && x % 6 < 4 { placeholder[y * w + x] = 0.02 }
        }
    }
    let rendered = camera(scene, ev: -0.7, contrast: 1.4)
    #expect(ToneMatch.similarity(scene, rendered, width: w, height: h) > 0.95)
    #expect(ToneMatch.similarity(scene, placeholder, width: w, height: h) < ToneMatch.minimumSimilarity)
    #expect(ToneMatch.similarity(scene, scene.reversed(), width: w, height: h) < ToneMatch.minimumSimilarity)
    #expect(ToneMatch.similarity(scene, [Float](repeating: 0.3, count: w * h), width: w, height: h) == 0)
}
