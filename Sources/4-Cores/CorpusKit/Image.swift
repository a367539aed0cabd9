import ColorScience

/// Scene-linear images, shown with an Exif orientation (`ExifOrientation`, in ColorScience).

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
    public func applyingOrientation(_ o: ExifOrientation) -> RGBImage {
        let (dw, dh) = o.displaySize(storedWidth: width, storedHeight: height)
        var out = RGBImage(width: dw, height: dh)
        for y in 0..<height {
            for x in 0..<width {
                let (dx, dy) = o.displayPosition(x: x, y: y, storedWidth: width, storedHeight: height)
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
