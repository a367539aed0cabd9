import ColorScience
import Fidelity
import Foundation
import Testing

@testable import Converter

/// A deterministic pseudo-random source (xorshift), so a failure reproduces.
private struct XorShift {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// The vectorised row kernel against the per-pixel definition (`Renderer.pixel`, `Renderer.tableIndex`, the code
/// table, log2 of the HDR/SDR luminance ratio per gain-map cell): codes equal exactly, cells within float rounding.
/// Rows mix dark, mid, highlight (shoulder and channel clip) and saturated pixels, odd and even widths, both
/// colour spaces and both depths.
/// With a camera tone curve (an S-curve 0.9 stop under at grey, as fitted on a real camera's preview) too.
@Test(arguments: [
    (ColorSpace.Output.displayP3, 8, false), (.sRGB, 8, false), (.displayP3, 10, false), (.displayP3, 8, true),
    (.sRGB, 10, true),
])
func rowKernelEqualsThePerPixelDefinition(space: ColorSpace.Output, depth: Int, toned: Bool) {
    var rng = XorShift(state: 0x9E37_79B9_7F4A_7C15)
    let neutral = Renderer(space: space, baselineExposure: 0.5)
    let curve = ToneMatch(
        inputStops: stride(from: -6.0, through: -1.0, by: 0.5).map { $0 },
        outputStops: [-8.46, -7.88, -7.26, -6.53, -5.67, -4.81, -4.05, -3.38, -2.74, -2.11, -1.53])
    // Toned: with the camera's saturation too (as fitted on the Nikon D5000 1/160 s frame's preview).
    let renderer = toned ? neutral.with(tone: curve).with(saturation: 0.55) : neutral
    #expect((renderer.tone != nil) == toned)
    #expect((renderer.saturation != 1) == toned)
    let maxCode = Float(depth == 10 ? 1023 : 255)
    let lut = (0..<65536).map { UInt16((SRGBTransfer.encode(Float($0) / 65535) * maxCode).rounded()) }
    let (ka, kb): (Float, Float) = (1.0 / 64, 1.0 / 64)
    for w in [1, 2, 7, 64, 301] {
        var src = [UInt16](repeating: 0, count: 3 * w)
        for i in 0..<src.count {
            let r = rng.next()
            switch r % 4 {
            case 0: src[i] = UInt16(truncatingIfNeeded: r >> 20) % 2000  // dark
            case 1: src[i] = UInt16(truncatingIfNeeded: r >> 20) % 20000  // mid
            case 2: src[i] = 40000 + UInt16(truncatingIfNeeded: r >> 20) % 25536  // highlights
            default: src[i] = UInt16(truncatingIfNeeded: r >> 24)  // anything
            }
        }
        // Reference, pixel by pixel.
        var wantCodes = [UInt16](repeating: 0, count: 3 * w)
        var wantCells = [Double](repeating: 0, count: (w + 1) / 2)
        var wantPeak: Float = 0
        var wantSum: Float = 0
        src.withUnsafeBufferPointer { px in
            for x in 0..<w {
                let p = renderer.pixel(px, x)
                let s = p.scale
                wantCodes[3 * x] = lut[Renderer.tableIndex(p.rgb.0 * s)]
                wantCodes[3 * x + 1] = lut[Renderer.tableIndex(p.rgb.1 * s)]
                wantCodes[3 * x + 2] = lut[Renderer.tableIndex(p.rgb.2 * s)]
                wantCells[x / 2] += Double(log2(max((p.y + ka) / max(p.y * s + kb, 1e-9), 1e-9)))
                wantPeak = max(wantPeak, p.y)
                wantSum += p.y
            }
        }
        let kernel = RowKernel(width: w)
        defer { kernel.deallocate() }
        var cells = [Float](repeating: 0, count: (w + 1) / 2)
        var out = [UInt8](repeating: 0, count: 3 * w * 2)
        let (peak, sum) = src.withUnsafeBufferPointer { s in
            lut.withUnsafeBufferPointer { l in
                out.withUnsafeMutableBytes { o in
                    cells.withUnsafeMutableBufferPointer { c in
                        kernel.render(
                            s.baseAddress!, renderer: renderer, lut: l.baseAddress!, depth: depth, out: o.baseAddress!,
                            cells: c.baseAddress!, ka: ka, kb: kb)
                    }
                }
            }
        }
        let codes: [UInt16] =
            depth == 8
            ? out.prefix(3 * w).map { UInt16($0) }
            : out.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self).prefix(3 * w)) }
        #expect(codes == wantCodes.map { depth == 8 ? $0 & 0xFF : $0 }, "width \(w)")
        #expect(peak == wantPeak && sum == wantSum, "width \(w)")
        for (c, want) in zip(cells, wantCells) {
            #expect(abs(Double(c) - want) <= 1e-5 * max(1, abs(want)), "width \(w): cell \(c) vs \(want)")
        }
        // The rows really exercise the shoulder and the clip: some codes at the top, some in between.
        if w >= 64 {
            #expect(wantCodes.contains(UInt16(maxCode)) && wantCodes.contains { $0 > 0 && $0 < UInt16(maxCode) })
        }
        // Linear output RGB alone (the camera look's box means), every pixel and every third one: bit for bit.
        for step in [1, 3] {
            let lin = src.withUnsafeBufferPointer { kernel.linear($0.baseAddress!, renderer: renderer, step: step) }
            let xs = Array(stride(from: 0, to: w, by: step))
            #expect(lin.count == xs.count)
            let same = src.withUnsafeBufferPointer { px in
                xs.enumerated().allSatisfy { i, x in
                    let p = renderer.pixel(px, x).rgb
                    return lin.r[i] == p.0 && lin.g[i] == p.1 && lin.b[i] == p.2
                }
            }
            #expect(same, "width \(w), step \(step)")
        }
    }
}
