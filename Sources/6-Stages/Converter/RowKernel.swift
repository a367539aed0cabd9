import Foundation

/// The render's arithmetic for one row, in planar passes over scratch rows (one kernel per worker, reused row after
/// row). Each pass is a plain loop without branches or checked conversions, so the compiler vectorises the matrix,
/// the roll-off factor's clamp and the table indices; only the highlight shoulder's `exp`, the table lookups and the
/// gain map's `log2` stay scalar.
///
/// Every code is computed with the same IEEE operations in the same order as `Renderer.pixel` followed by
/// `Renderer.tableIndex` (no fused multiply-add), so the codes equal the per-pixel definition exactly; the gain-map
/// cells take one log2 per horizontal pair, equal to the per-pixel sum within float rounding (a test holds both).
struct RowKernel {
    let width: Int
    private let r: UnsafeMutablePointer<Float>
    private let g: UnsafeMutablePointer<Float>
    private let b: UnsafeMutablePointer<Float>
    private let y: UnsafeMutablePointer<Float>
    private let s: UnsafeMutablePointer<Float>
    private let idx: UnsafeMutablePointer<UInt32>

    init(width: Int) {
        self.width = width
        let n = max(1, width)
        r = .allocate(capacity: n)
        g = .allocate(capacity: n)
        b = .allocate(capacity: n)
        y = .allocate(capacity: n)
        s = .allocate(capacity: n)
        idx = .allocate(capacity: 3 * n)
    }

    /// Frees the scratch rows; the kernel must not be used afterwards.
    func deallocate() {
        for p in [r, g, b, y, s] { p.deallocate() }
        idx.deallocate()
    }

    /// Renders `width` pixels of interleaved 16-bit working-space RGB: SDR codes through `lut` into `out` (`UInt8`
    /// when `depth` is 8, else `UInt16`), and with `cells` adds each pixel's log2((Y_hdr + ka) / (Y_sdr + kb)) to
    /// its gain-map cell x / 2.
    /// - Returns: the row's peak and (left-to-right) sum of HDR luminance; 0 without `cells`.
    func render(
        _ src: UnsafePointer<UInt16>, renderer: Renderer, lut: UnsafePointer<UInt16>, depth: Int,
        out: UnsafeMutableRawPointer, cells: UnsafeMutablePointer<Float>?, ka: Float, kb: Float
    ) -> (peak: Float, sum: Float) {
        let w = width
        let (r, g, b, y, s, idx) = (self.r, self.g, self.b, self.y, self.s, self.idx)
        // 1. Working space → output primaries, gamut mapped, luminance; the look.
        mapToOutput(src, renderer: renderer, count: w, step: 1)
        applyLook(renderer, count: w)
        // 2. The shoulder above `shoulderStart` (exp only where a pixel is that bright).
        let k = HEICConverter.shoulderStart
        for i in 0..<w {
            let yi = y[i]
            s[i] = yi > k ? (k + (1 - k) * (1 - exp(-(yi - k) / (1 - k)))) / yi : 1
        }
        // 3. No channel above 1, then the table indices.
        for i in 0..<w {
            let gb = g[i] > b[i] ? g[i] : b[i]
            let mx = (r[i] > gb ? r[i] : gb) * s[i]
            let si = s[i] / (mx > 1 ? mx : 1)
            s[i] = si
            idx[3 &* i] = Self.index(r[i] * si)
            idx[3 &* i &+ 1] = Self.index(g[i] * si)
            idx[3 &* i &+ 2] = Self.index(b[i] * si)
        }
        // 4. Codes.
        if depth == 8 {
            let o = out.assumingMemoryBound(to: UInt8.self)
            for j in 0..<(3 * w) { o[j] = UInt8(truncatingIfNeeded: lut[Int(idx[j])]) }
        } else {
            let o = out.assumingMemoryBound(to: UInt16.self)
            for j in 0..<(3 * w) { o[j] = lut[Int(idx[j])] }
        }
        // 5. Gain-map log ratios per 2×2 cell, the HDR peak and sum.
        guard let cells else { return (0, 0) }
        for i in 0..<w {
            let den = y[i] * s[i] + kb
            let ratio = (y[i] + ka) / (den > 1e-9 ? den : 1e-9)
            s[i] = ratio > 1e-9 ? ratio : 1e-9
        }
        // One log2 per cell row: the log of the pair's product (ratios are ≥ 1e-9 and well under 2^60, so the product
        // neither under- nor overflows; it differs from the sum of the two logs by float rounding, ~1e-7 stops).
        var peak: Float = 0
        var sum: Float = 0
        for c in 0..<(w >> 1) { cells[c] += log2(s[2 &* c] * s[2 &* c &+ 1]) }
        if w & 1 == 1 { cells[w >> 1] += log2(s[w - 1]) }
        for i in 0..<w {
            peak = peak > y[i] ? peak : y[i]
            sum += y[i]
        }
        return (peak, sum)
    }

    /// Linear output RGB with the render's look, before the SDR roll-off: what `Renderer.pixel` gives as `rgb`, bit
    /// for bit, for every `step`-th pixel of the row (scratch pixel i is source pixel i · step).
    /// - Returns: the scratch rows' R, G and B, and how many pixels they hold.
    func linear(_ src: UnsafePointer<UInt16>, renderer: Renderer, step: Int) -> (
        r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>, count: Int
    ) {
        let n = (width + step - 1) / step
        mapToOutput(src, renderer: renderer, count: n, step: step)
        applyLook(renderer, count: n)
        return (UnsafePointer(r), UnsafePointer(g), UnsafePointer(b), n)
    }

    /// The luminance `Renderer.pixel` gives (its `y`: after the tone curve, which the saturation keeps), bit for bit,
    /// for every `step`-th pixel of the row (scratch pixel i is source pixel i · step).
    func luminance(_ src: UnsafePointer<UInt16>, renderer: Renderer, step: Int) -> (y: UnsafePointer<Float>, count: Int) {
        let n = (width + step - 1) / step
        mapToOutput(src, renderer: renderer, count: n, step: step)
        applyLook(renderer, count: n)
        return (UnsafePointer(y), n)
    }

    /// Step 1a of `render`: working space → output primaries, gamut mapped, and the luminance, for `count` pixels
    /// `step` apart, into the scratch rows.
    @inline(__always)
    private func mapToOutput(_ src: UnsafePointer<UInt16>, renderer: Renderer, count: Int, step: Int) {
        let (r, g, b, y) = (self.r, self.g, self.b, self.y)
        let sc = renderer.scale
        let m = renderer.m
        let lum = renderer.lum
        for i in 0..<count {
            let p = src + 3 &* (i &* step)
            let r0 = Float(p[0]) * sc
            let g0 = Float(p[1]) * sc
            let b0 = Float(p[2]) * sc
            let rr = m.0 * r0 + m.1 * g0 + m.2 * b0
            let gg = m.3 * r0 + m.4 * g0 + m.5 * b0
            let bb = m.6 * r0 + m.7 * g0 + m.8 * b0
            let (rc, gc, bc) = Renderer.gamutMap(rr, gg, bb, lum: lum)
            r[i] = rc
            g[i] = gc
            b[i] = bc
            y[i] = lum.0 * rc + lum.1 * gc + lum.2 * bc
        }
    }

    /// Steps 1b and 1c of `render`: the camera's tone curve on each channel (then the luminance again) and its
    /// saturation toward the luminance (which stays as it is), on `count` pixels of the scratch rows; nothing for a
    /// neutral render.
    @inline(__always)
    private func applyLook(_ renderer: Renderer, count w: Int) {
        let (r, g, b, y) = (self.r, self.g, self.b, self.y)
        let lum = renderer.lum
        // 1b. The camera's tone curve on each channel, then the luminance again.
        if let tone = renderer.tone {
            for i in 0..<w {
                let rc = r[i] * tone.gain(r[i])
                let gc = g[i] * tone.gain(g[i])
                let bc = b[i] * tone.gain(b[i])
                r[i] = rc
                g[i] = gc
                b[i] = bc
                y[i] = lum.0 * rc + lum.1 * gc + lum.2 * bc
            }
        }
        // 1c. The camera's saturation: each channel toward the luminance (which stays as it is).
        let sat = renderer.saturation
        if sat != 1 {
            for i in 0..<w {
                let yi = y[i]
                r[i] = yi + sat * (r[i] - yi)
                g[i] = yi + sat * (g[i] - yi)
                b[i] = yi + sat * (b[i] - yi)
            }
        }
    }

    /// `Renderer.tableIndex` as a 32-bit lane.
    @inline(__always)
    private static func index(_ v: Float) -> UInt32 { ((v < 1 ? v : 1) * 65535 + 12_582_912).bitPattern & 0xFFFF }
}
