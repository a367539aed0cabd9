import Foundation

/// An RGB image as a viewer shows it (orientation applied): code values 0…1 (still encoded by `space`'s transfer),
/// interleaved, row-major. The render check compares two of them; the converter's camera look fits its tones on one.
public struct RenderImage: Sendable {
    public var width: Int
    public var height: Int
    /// `width × height × 3` code values, 0…1.
    public var samples: [Float]
    public var space: ColorSpace

    public init(width: Int, height: Int, samples: [Float], space: ColorSpace) {
        precondition(width > 0 && height > 0 && samples.count == width * height * 3, "bad image size")
        self.width = width
        self.height = height
        self.samples = samples
        self.space = space
    }

    /// An image from 8-bit (or, with `maxCode`, deeper) interleaved RGB codes. Inlinable, so each caller gets it
    /// specialized for its integer type: unspecialized, every sample went through generic witnesses (about 0.1 s of
    /// CPU per 1,500 × 1,000 preview, and again for the read-back's reduced output).
    @inlinable
    public init<T: BinaryInteger>(width: Int, height: Int, codes: [T], maxCode: Int = 255, space: ColorSpace) {
        let k = 1 / Float(maxCode)
        self.init(width: width, height: height, samples: codes.map { Float($0) * k }, space: space)
    }

    /// Width ÷ height.
    public var aspect: Double { Double(width) / Double(height) }

    /// The image a viewer shows for these pixels stored with Exif orientation `o`.
    public func oriented(_ o: ExifOrientation) -> RenderImage {
        guard o != .identity else { return self }
        let (dw, dh) = o.displaySize(storedWidth: width, storedHeight: height)
        var out = [Float](repeating: 0, count: samples.count)
        for dy in 0..<dh {
            for dx in 0..<dw {
                let s = o.storedPosition(dx: dx, dy: dy, storedWidth: width, storedHeight: height)
                let si = 3 * (s.y * width + s.x)
                let di = 3 * (dy * dw + dx)
                out[di] = samples[si]
                out[di + 1] = samples[si + 1]
                out[di + 2] = samples[si + 2]
            }
        }
        return RenderImage(width: dw, height: dh, samples: out, space: space)
    }

    /// The rectangle `x0 ..< x1`, `y0 ..< y1`.
    public func cropped(x0: Int, y0: Int, x1: Int, y1: Int) -> RenderImage {
        precondition(x0 >= 0 && y0 >= 0 && x1 <= width && y1 <= height && x1 > x0 && y1 > y0, "bad crop")
        var out: [Float] = []
        out.reserveCapacity((x1 - x0) * (y1 - y0) * 3)
        for y in y0..<y1 { out += samples[(3 * (y * width + x0))..<(3 * (y * width + x1))] }
        return RenderImage(width: x1 - x0, height: y1 - y0, samples: out, space: space)
    }

    /// Area-average resize to `w × h` (each output pixel is the mean of the input area it covers, fractional edges
    /// weighted), on code values.
    public func resized(width w: Int, height h: Int) -> RenderImage {
        if w == width && h == height { return self }
        let width = width
        return samples.withUnsafeBufferPointer { s in
            let base = UnsafeSendable(s.baseAddress!)
            return Self.resize(width: width, height: height, to: w, h, space: space) { y, _ in
                UnsafePointer(base.value + 3 * y * width)
            }
        }
    }

    /// The image of interleaved RGB `codes` no larger than `maxSide` on its long side: value for value what
    /// `init(codes:)` then `capped(maxSide:)` give, without the full-size copy in floats (each row is scaled as the
    /// resize reads it).
    @inlinable
    public static func capped<T: BinaryInteger & Sendable>(
        width: Int, height: Int, codes: [T], maxCode: Int, space: ColorSpace, maxSide: Int
    ) -> RenderImage {
        guard let (w, h) = cappedSize(width: width, height: height, maxSide: maxSide) else {
            return RenderImage(width: width, height: height, codes: codes, maxCode: maxCode, space: space)
        }
        precondition(width > 0 && height > 0 && codes.count == width * height * 3, "bad image size")
        let k = 1 / Float(maxCode)
        return codes.withUnsafeBufferPointer { c in
            let base = UnsafeSendable(c.baseAddress!)
            return resize(width: width, height: height, to: w, h, space: space) { y, scratch in
                let row = base.value + 3 * y * width
                for i in 0..<(3 * width) { scratch[i] = Float(row[i]) * k }
                return UnsafePointer(scratch)
            }
        }
    }

    /// The size `capped(maxSide:)` reduces a `width × height` image to, nil when it is no larger.
    @inlinable
    static func cappedSize(width: Int, height: Int, maxSide: Int) -> (Int, Int)? {
        let long = max(width, height)
        guard long > maxSide else { return nil }
        let s = Double(maxSide) / Double(long)
        return (max(1, Int((Double(width) * s).rounded())), max(1, Int((Double(height) * s).rounded())))
    }

    /// The area-average resize of a `width × height` image whose row `y` `row(y, scratch)` gives (3 × width code
    /// values, 0…1; `scratch` has room for one row) to `w × h`: rows first (width → w), then columns (height → h),
    /// each pass in two halves at once when the image is large (each output value is summed in the same order
    /// either way).
    @usableFromInline
    static func resize(
        width: Int, height: Int, to w: Int, _ h: Int, space: ColorSpace,
        row: @Sendable (Int, UnsafeMutablePointer<Float>) -> UnsafePointer<Float>
    ) -> RenderImage {
        let xs = weights(from: width, to: w)
        let ys = weights(from: height, to: h)
        let halves = width * height >= 1 << 18 ? 2 : 1
        var rows = [Float](repeating: 0, count: w * height * 3)
        rows.withUnsafeMutableBufferPointer { d in
            let dst = UnsafeSendable(d.baseAddress!)
            Parallel.forEach(halves) { half in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 3 * width)
                defer { scratch.deallocate() }
                for y in (half * height / halves)..<((half + 1) * height / halves) {
                    let src = row(y, scratch)
                    for (x, span) in xs.enumerated() {
                        var acc: (Float, Float, Float) = (0, 0, 0)
                        for (i, wt) in span {
                            let p = src + 3 * i
                            acc.0 += p[0] * wt
                            acc.1 += p[1] * wt
                            acc.2 += p[2] * wt
                        }
                        let o = dst.value + 3 * (y * w + x)
                        (o[0], o[1], o[2]) = acc
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: w * h * 3)
        inHalves(rows, into: &out, rows: h, halves: halves) { src, dst, range in
            for y in range {
                for (j, wt) in ys[y] {
                    let (s, d) = (src + 3 * j * w, dst + 3 * y * w)
                    for i in 0..<(3 * w) { d[i] += s[i] * wt }
                }
            }
        }
        return RenderImage(width: w, height: h, samples: out, space: space)
    }

    /// Runs `body` on `halves` parts of `rows` rows at once, each with its range of rows, over `src`'s and `dst`'s
    /// storage (each part writes only its own rows of `dst`).
    private static func inHalves(
        _ src: [Float], into dst: inout [Float], rows: Int, halves: Int,
        _ body: @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Range<Int>) -> Void
    ) {
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                guard let s = s.baseAddress, let d = d.baseAddress else { return }
                let (src, dst) = (UnsafeSendable(s), UnsafeSendable(d))
                Parallel.forEach(halves) { half in
                    body(src.value, dst.value, (half * rows / halves)..<((half + 1) * rows / halves))
                }
            }
        }
    }

    /// For each of `m` output cells, the input indices and weights (summing to 1) of an area average from `n`.
    static func weights(from n: Int, to m: Int) -> [[(Int, Float)]] {
        let scale = Double(n) / Double(m)
        return (0..<m).map { o in
            let a = Double(o) * scale
            let b = Double(o + 1) * scale
            var span: [(Int, Float)] = []
            var i = Int(a)
            while Double(i) < b && i < n {
                let cover = min(b, Double(i + 1)) - max(a, Double(i))
                if cover > 1e-9 { span.append((i, Float(cover / scale))) }
                i += 1
            }
            return span
        }
    }

    /// The same image no larger than `maxSide` on its long side (area average), or itself.
    public func capped(maxSide: Int) -> RenderImage {
        guard let (w, h) = Self.cappedSize(width: width, height: height, maxSide: maxSide) else { return self }
        return resized(width: w, height: h)
    }

    /// Encoded luma (BT.601 weights on code values, 0…1) of pixel `i`.
    @inline(__always)
    func luma(_ i: Int) -> Float { 0.299 * samples[3 * i] + 0.587 * samples[3 * i + 1] + 0.114 * samples[3 * i + 2] }

    /// Uniform near-black bars along the edges (a letterboxed thumbnail), at most a third of each side:
    /// rows/columns whose luma mean is < 0.03 and standard deviation < 0.02.
    public func letterbox() -> (top: Int, bottom: Int, left: Int, right: Int) {
        func isBar(_ idx: [Int]) -> Bool {
            let v = idx.map(luma)
            let mean = v.reduce(0, +) / Float(v.count)
            let sd = (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Float(v.count)).squareRoot()
            return mean < 0.03 && sd < 0.02
        }
        var (t, b, l, r) = (0, height, 0, width)
        while t < height / 3 && isBar((0..<width).map { t * width + $0 }) { t += 1 }
        while b > height - height / 3 && isBar((0..<width).map { (b - 1) * width + $0 }) { b -= 1 }
        while l < width / 3 && isBar((t..<b).map { $0 * width + l }) { l += 1 }
        while r > width - width / 3 && isBar((t..<b).map { $0 * width + r - 1 }) { r -= 1 }
        return (t, height - b, l, width - r)
    }

    /// The luma squeezed into `n × n` cells (area average), then blurred with a 3-tap binomial kernel: a small
    /// grey image whose 8 orientations can be compared with a reference's, whatever the two aspect ratios are.
    public func squareLuma(_ n: Int = 64) -> [Float] {
        let small = resized(width: n, height: n)
        var g = (0..<(n * n)).map { small.luma($0) }
        for pass in 0..<2 {
            var o = g
            for y in 0..<n {
                for x in 0..<n {
                    let (a, b) = pass == 0 ? (max(0, x - 1), min(n - 1, x + 1)) : (max(0, y - 1), min(n - 1, y + 1))
                    o[y * n + x] =
                        pass == 0
                        ? 0.25 * g[y * n + a] + 0.5 * g[y * n + x] + 0.25 * g[y * n + b]
                        : 0.25 * g[a * n + x] + 0.5 * g[y * n + x] + 0.25 * g[b * n + x]
                }
            }
            g = o
        }
        return g
    }

    /// A square grey image (`n × n`) as a viewer shows it for orientation `o`.
    public static func orientSquare(_ g: [Float], _ n: Int, _ o: ExifOrientation) -> [Float] {
        var out = g
        for dy in 0..<n {
            for dx in 0..<n {
                let s = o.storedPosition(dx: dx, dy: dy, storedWidth: n, storedHeight: n)
                out[dy * n + dx] = g[s.y * n + s.x]
            }
        }
        return out
    }
}
