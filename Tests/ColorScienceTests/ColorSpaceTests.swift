import ColorScience
import Foundation
import Testing

/// The converter's output choices are colour spaces of the one type: their option strings are unchanged, and each
/// names the space the render check reads an output in.
@Test func outputChoicesAreColorSpaces() {
    #expect(ColorSpace.Output.allCases.map(\.rawValue) == ["p3", "srgb"])
    #expect(ColorSpace.Output.displayP3.space == .displayP3)
    #expect(ColorSpace.Output.sRGB.space == .sRGB)
    #expect(ColorSpace.Output.displayP3.space != ColorSpace.Output.sRGB.space)
}

/// CIELAB planes of an image read through its own space: sRGB white is L* 100, a* = b* = 0 with Y = 1; black is 0;
/// the same code values in Display P3 are a more saturated red than in sRGB.
@Test func cielabPlanesReadEachImageThroughItsSpace() {
    let codes: [Float] = [1, 1, 1, 0, 0, 0, 1, 0, 0]
    let srgb = CIELAB.planes(RenderImage(width: 3, height: 1, samples: codes, space: .sRGB))
    #expect(abs(srgb.l[0] - 100) < 1e-6 && abs(srgb.a[0]) < 1e-6 && abs(srgb.b[0]) < 1e-6 && abs(srgb.y[0] - 1) < 1e-9)
    #expect(abs(srgb.l[1]) < 1e-9)
    #expect(abs(srgb.l[2] - 53.24) < 0.05 && abs(srgb.a[2] - 80.09) < 0.05 && abs(srgb.b[2] - 67.20) < 0.05)
    let p3 = CIELAB.planes(RenderImage(width: 3, height: 1, samples: codes, space: .displayP3))
    #expect(hypot(p3.a[2], p3.b[2]) > hypot(srgb.a[2], srgb.b[2]) + 10)
}

/// The planes of a large image, computed in bands on the pool, hold at every pixel exactly what the same pixel alone
/// gives: no band skipped, shifted or overlapped.
@Test func cielabPlanesOfALargeImageArePixelByPixel() {
    let (w, h) = (331, 257)  // 85,067 pixels: five bands with uneven edges
    var rng = SplitMix(state: 29)
    let s = (0..<(w * h * 3)).map { _ in Float.random(in: -0.05...1.05, using: &rng) }
    let all = CIELAB.planes(RenderImage(width: w, height: h, samples: s, space: .displayP3))
    #expect(all.l.count == w * h && all.a.count == w * h && all.b.count == w * h && all.y.count == w * h)
    let band = w * h / 5
    let edges = (0...5).flatMap { k in [k * band - 1, k * band, k * band + 1] }
    for i in (edges + (0..<400).map { _ in Int.random(in: 0..<(w * h), using: &rng) }) where (0..<(w * h)).contains(i) {
        let one = CIELAB.planes(
            RenderImage(width: 1, height: 1, samples: Array(s[(3 * i)..<(3 * i + 3)]), space: .displayP3))
        #expect(
            all.l[i] == one.l[0] && all.a[i] == one.a[0] && all.b[i] == one.b[0] && all.y[i] == one.y[0], "pixel \(i)")
    }
}

/// The letterbox rule: uniform near-black bars (at most a third of a side) are found on each edge, and a frame
/// without bars has none.
@Test func letterboxFindsUniformBlackBars() {
    let (w, h) = (30, 12)
    var s = [Float](repeating: 0, count: w * h * 3)
    for y in 2..<(h - 3) {
        for x in 4..<(w - 1) { for c in 0..<3 { s[3 * (y * w + x) + c] = 0.2 + Float(x % 5) / 10 } }
    }
    let img = RenderImage(width: w, height: h, samples: s, space: .sRGB)
    #expect(img.letterbox() == (2, 3, 4, 1))
    let inner = img.cropped(x0: 4, y0: 2, x1: w - 1, y1: h - 3)
    #expect(inner.letterbox() == (0, 0, 0, 0))
}
