/// Scene-linear images and the eight Exif orientations.

/// Linear RGB, 1.0 = SDR diffuse white (scene-referred, Rec. 709/sRGB primaries, D65).
public struct RGB: Sendable, Codable, Equatable {
    public var r: Double, g: Double, b: Double
    public init(_ r: Double, _ g: Double, _ b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }
    public static func grey(_ v: Double) -> RGB { RGB(v, v, v) }
    public var max: Double { Swift.max(r, Swift.max(g, b)) }
}

/// Something that gives a scene-linear colour for each display pixel (display = upright, as a viewer shows it).
public protocol SceneSource: Sendable {
    var displayWidth: Int { get }
    var displayHeight: Int { get }
    /// The linear colour of display pixel (x, y), 0-based from the top-left.
    func pixel(x: Int, y: Int) -> RGB
}

/// The earlier name of `RGBImage`; prefer `RGBImage` (GainMap has its own, planar `LinearImage`).
public typealias LinearImage = RGBImage

/// An interleaved linear-float RGB image.
public struct RGBImage: Sendable, Equatable, SceneSource {
    public let width: Int
    public let height: Int
    /// `3 * width * height` values, row-major, R G B.
    public var pixels: [Float]

    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(pixels.count == 3 * width * height, "RGBImage: pixel count does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: RGB = .grey(0)) {
        self.width = width
        self.height = height
        var p = [Float](repeating: 0, count: 3 * width * height)
        for i in 0..<(width * height) {
            p[3 * i] = Float(fill.r)
            p[3 * i + 1] = Float(fill.g)
            p[3 * i + 2] = Float(fill.b)
        }
        pixels = p
    }

    public var displayWidth: Int { width }
    public var displayHeight: Int { height }
    public func pixel(x: Int, y: Int) -> RGB {
        let i = 3 * (y * width + x)
        return RGB(Double(pixels[i]), Double(pixels[i + 1]), Double(pixels[i + 2]))
    }

    /// Renders a scene source at its display size.
    public init(rendering s: some SceneSource) {
        var img = RGBImage(width: s.displayWidth, height: s.displayHeight)
        for y in 0..<s.displayHeight {
            for x in 0..<s.displayWidth {
                let c = s.pixel(x: x, y: y)
                let i = 3 * (y * s.displayWidth + x)
                img.pixels[i] = Float(c.r)
                img.pixels[i + 1] = Float(c.g)
                img.pixels[i + 2] = Float(c.b)
            }
        }
        self = img
    }

    /// The mean colour of a rectangle given in normalised coordinates (0…1), shrunk to its middle `inner` fraction.
    public func mean(of rect: NormRect, inner: Double = 0.5) -> RGB {
        let cx = (rect.x0 + rect.x1) / 2
        let cy = (rect.y0 + rect.y1) / 2
        let hw = (rect.x1 - rect.x0) * inner / 2
        let hh = (rect.y1 - rect.y0) * inner / 2
        let xa = max(0, Int(((cx - hw) * Double(width)).rounded()))
        let xb = min(width, Int(((cx + hw) * Double(width)).rounded()))
        let ya = max(0, Int(((cy - hh) * Double(height)).rounded()))
        let yb = min(height, Int(((cy + hh) * Double(height)).rounded()))
        var s = (0.0, 0.0, 0.0)
        var n = 0.0
        for y in ya..<max(ya, yb) {
            for x in xa..<max(xa, xb) {
                let p = pixel(x: x, y: y)
                s.0 += p.r
                s.1 += p.g
                s.2 += p.b
                n += 1
            }
        }
        return n == 0 ? RGB(0, 0, 0) : RGB(s.0 / n, s.1 / n, s.2 / n)
    }

    /// The image with Exif orientation `o`'s display transform applied (what a viewer shows for stored data + tag `o`).
    /// - Parameter o: CIPA DC-008 Orientation, 1…8.
    public func applyingOrientation(_ o: Int) -> RGBImage {
        let (dw, dh) = Orientation.displaySize(storedWidth: width, storedHeight: height, orientation: o)
        var out = RGBImage(width: dw, height: dh)
        for y in 0..<height {
            for x in 0..<width {
                let (dx, dy) = Orientation.displayPosition(
                    x: x, y: y, storedWidth: width, storedHeight: height, orientation: o)
                let si = 3 * (y * width + x)
                let di = 3 * (dy * dw + dx)
                out.pixels[di] = pixels[si]
                out.pixels[di + 1] = pixels[si + 1]
                out.pixels[di + 2] = pixels[si + 2]
            }
        }
        return out
    }
}

/// A rectangle in normalised display coordinates (0…1, origin top-left).
public struct NormRect: Sendable, Codable, Equatable {
    public var x0: Double, y0: Double, x1: Double, y1: Double
    public init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }
    public func contains(_ u: Double, _ v: Double) -> Bool { u >= x0 && u < x1 && v >= y0 && v < y1 }
}

/// The eight Exif orientations (CIPA DC-008 §4.6.4 A, tag 0x0112).
public enum Orientation {
    /// Where stored pixel (x, y) lands on the display for orientation `o`.
    /// 1 identity, 2 mirror horizontal, 3 rotate 180°, 4 mirror vertical, 5 transpose, 6 rotate 90° clockwise,
    /// 7 transverse, 8 rotate 90° counter-clockwise. Unknown values are treated as 1.
    public static func displayPosition(x: Int, y: Int, storedWidth w: Int, storedHeight h: Int, orientation o: Int)
        -> (Int, Int)
    {
        switch o {
        case 2: return (w - 1 - x, y)
        case 3: return (w - 1 - x, h - 1 - y)
        case 4: return (x, h - 1 - y)
        case 5: return (y, x)
        case 6: return (h - 1 - y, x)
        case 7: return (h - 1 - y, w - 1 - x)
        case 8: return (y, w - 1 - x)
        default: return (x, y)
        }
    }

    /// The display size for a stored size and orientation (5–8 swap width and height).
    public static func displaySize(storedWidth w: Int, storedHeight h: Int, orientation o: Int) -> (Int, Int) {
        (5...8).contains(o) ? (h, w) : (w, h)
    }

    /// The stored size for a display size and orientation.
    public static func storedSize(displayWidth w: Int, displayHeight h: Int, orientation o: Int) -> (Int, Int) {
        (5...8).contains(o) ? (h, w) : (w, h)
    }

    /// Normalised forward map (stored → display) of orientation `o`.
    static func forward(_ u: Double, _ v: Double, _ o: Int) -> (Double, Double) {
        switch o {
        case 2: return (1 - u, v)
        case 3: return (1 - u, 1 - v)
        case 4: return (u, 1 - v)
        case 5: return (v, u)
        case 6: return (1 - v, u)
        case 7: return (1 - v, 1 - u)
        case 8: return (v, 1 - u)
        default: return (u, v)
        }
    }

    /// Normalised inverse map (display → stored) of orientation `o`.
    static func inverse(_ u: Double, _ v: Double, _ o: Int) -> (Double, Double) {
        switch o {
        case 6: return forward(u, v, 8)
        case 8: return forward(u, v, 6)
        default: return forward(u, v, o)
        }
    }

    /// The orientation equivalent to applying `a` and then `b` to stored data (the dihedral group D4).
    /// For example composing 6 with 6 gives 3: an image rotated twice by 90° is upside down.
    public static func compose(_ a: Int, then b: Int) -> Int {
        let p = (0.2, 0.1)
        let q = forward(forward(p.0, p.1, a).0, forward(p.0, p.1, a).1, b)
        let r = (0.3, 0.7)
        let rq = forward(forward(r.0, r.1, a).0, forward(r.0, r.1, a).1, b)
        for o in 1...8 {
            let f = forward(p.0, p.1, o)
            let g = forward(r.0, r.1, o)
            if abs(f.0 - q.0) < 1e-9, abs(f.1 - q.1) < 1e-9, abs(g.0 - rq.0) < 1e-9, abs(g.1 - rq.1) < 1e-9 { return o }
        }
        return 1
    }
}
