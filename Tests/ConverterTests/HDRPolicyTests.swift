import Fidelity
import Foundation
import Testing

@testable import Converter

/// The headroom measure samples every `step`-th pixel of every `step`-th row, in bands on the pool, each row through
/// the render's kernel: its fraction of pixels over one stop and its 99.9th percentile are exactly those of the same
/// samples taken in one pass through `Renderer.pixel`, with the bright pixels only in the last rows (the last band) and
/// only in the first ones (the first band), with a neutral render and with a camera look (tone curve and saturation).
@Test(arguments: [(true, false), (false, false), (true, true)])
func hdrMeasureSamplesTheWholeFrameInBands(brightAtTheBottom: Bool, look: Bool) {
    let (w, h) = (1200, 900)  // step 2: 450 sampled rows in 14 bands
    var codes = [UInt16](repeating: 0, count: 3 * w * h)
    for y in 0..<h {
        let bright = brightAtTheBottom ? y >= h - 40 : y < 40
        for x in 0..<w {
            let v: UInt16 = bright && x % 3 == 0 ? 65535 : UInt16(2000 + (x * 7 + y * 13) % 20000)
            for c in 0..<3 { codes[3 * (y * w + x) + c] = v }
        }
    }
    let frame = MemoryFrame(width: w, height: h, codes: codes)
    let neutral = Renderer(space: .sRGB, baselineExposure: 0)
    // A look that lifts the tones (the highlights keep more than a stop over white).
    let knots = stride(from: -6.0, through: -1.0, by: 0.5).map { $0 }
    let curve = ToneMatch(inputStops: knots, outputStops: knots.map { 0.9 * $0 + 0.3 })
    let renderer = look ? neutral.with(tone: curve).with(saturation: 0.7) : neutral
    let d = HDRPolicy.decide(frame, renderer: renderer, kind: .mosaicRAW, hdr: .auto)

    let step = max(1, Int((Double(w * h) / 250_000).squareRoot()))
    var ys: [Float] = []
    var above = 0
    for y in stride(from: 0, to: h, by: step) {
        for x in stride(from: 0, to: w, by: step) {
            let v = frame.pixel(x: x, y: y)
            let p = renderer.pixel(v.0, v.1, v.2)
            ys.append(p.y)
            if p.y > 2 { above += 1 }
        }
    }
    ys.sort()
    let p999 = ys[min(ys.count - 1, Int(Double(ys.count) * 0.999))]
    #expect(above > 0 && above < ys.count / 10, "the bright rows are measured: \(above) of \(ys.count)")
    #expect(d.fractionAboveOneStop == Double(above) / Double(ys.count))
    #expect(d.measuredHeadroomStops == max(0, log2(Double(max(p999, 1e-6)))))
    #expect(d.gainMap)
}
