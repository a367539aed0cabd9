/// One of the eight ways to turn and mirror a raster (the dihedral group D4), named by the Exif Orientation value
/// that asks for it (CIPA DC-008 §4.6.4, tag 0x0112: what to do to the coded raster to show it). The one geometry of
/// orientation: the metadata's reader models, the render check's images and the generated corpus all use it.
///
/// Internally a left-right mirror (or not) followed by clockwise quarter turns: 2 = mirror, 3 = 180°, 4 = mirror then
/// 180°, 5 = mirror then 270° (transpose), 6 = 90°, 7 = mirror then 90° (transverse), 8 = 270°.
public struct ExifOrientation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Clockwise quarter turns, applied after the mirror (0–3).
    public let quarterTurns: Int
    /// Mirrored left-right first.
    public let mirrored: Bool

    init(quarterTurns: Int, mirrored: Bool) {
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
    }

    private static let byExif: [(Int, Bool)] = [
        (0, false), (0, true), (2, false), (2, true), (3, true), (1, false),
        (1, true), (3, false),
    ]

    /// The transform an Exif Orientation value asks for; values outside 1–8 are the identity (as readers treat them).
    public init(exif: Int) {
        let (q, m) = (1...8).contains(exif) ? Self.byExif[exif - 1] : (0, false)
        self.init(quarterTurns: q, mirrored: m)
    }

    /// The Exif Orientation value (1–8).
    public var exif: Int {
        switch (quarterTurns, mirrored) {
        case (0, false): 1
        case (0, true): 2
        case (2, false): 3
        case (2, true): 4
        case (3, true): 5
        case (1, false): 6
        case (1, true): 7
        default: 8
        }
    }

    public static let identity = ExifOrientation(exif: 1)
    /// All eight, by Exif value.
    public static let all = (1...8).map(ExifOrientation.init(exif:))

    /// `self` first, then `next`.
    public func then(_ next: ExifOrientation) -> ExifOrientation {
        // R^b M^g R^a M^f: a mirror reverses the turns made before it.
        next.mirrored
            ? ExifOrientation(quarterTurns: next.quarterTurns - quarterTurns, mirrored: !mirrored)
            : ExifOrientation(quarterTurns: quarterTurns + next.quarterTurns, mirrored: mirrored)
    }

    /// The transform that undoes this one.
    public var inverse: ExifOrientation {
        mirrored ? self : ExifOrientation(quarterTurns: -quarterTurns, mirrored: false)
    }

    /// True when width and height trade places (a quarter turn).
    public var swapsAxes: Bool { quarterTurns % 2 == 1 }

    /// "turned 90° clockwise", "mirrored left-right", "as is".
    public var description: String {
        switch exif {
        case 1: "as is"
        case 2: "mirrored left-right"
        case 3: "turned 180°"
        case 4: "mirrored top-bottom"
        case 5: "transposed (mirrored and turned 90° anticlockwise)"
        case 6: "turned 90° clockwise"
        case 7: "transversed (mirrored and turned 90° clockwise)"
        default: "turned 90° anticlockwise"
        }
    }

    // MARK: - Pixels

    /// The displayed size of a raster stored `w × h`.
    public func displaySize(storedWidth w: Int, storedHeight h: Int) -> (width: Int, height: Int) {
        swapsAxes ? (h, w) : (w, h)
    }

    /// The stored size of a raster displayed `w × h`.
    public func storedSize(displayWidth w: Int, displayHeight h: Int) -> (width: Int, height: Int) {
        swapsAxes ? (h, w) : (w, h)
    }

    /// Where stored pixel (x, y) of a raster stored `w × h` is displayed (CIPA DC-008 §4.6.4 Table 4).
    public func displayPosition(x: Int, y: Int, storedWidth w: Int, storedHeight h: Int) -> (x: Int, y: Int) {
        switch exif {
        case 2: (w - 1 - x, y)
        case 3: (w - 1 - x, h - 1 - y)
        case 4: (x, h - 1 - y)
        case 5: (y, x)
        case 6: (h - 1 - y, x)
        case 7: (h - 1 - y, w - 1 - x)
        case 8: (y, w - 1 - x)
        default: (x, y)
        }
    }

    /// The stored pixel a raster stored `w × h` shows at displayed position (dx, dy).
    public func storedPosition(dx: Int, dy: Int, storedWidth w: Int, storedHeight h: Int) -> (x: Int, y: Int) {
        switch exif {
        case 2: (w - 1 - dx, dy)
        case 3: (w - 1 - dx, h - 1 - dy)
        case 4: (dx, h - 1 - dy)
        case 5: (dy, dx)
        case 6: (dy, h - 1 - dx)
        case 7: (w - 1 - dy, h - 1 - dx)
        case 8: (w - 1 - dy, dx)
        default: (dx, dy)
        }
    }

    /// Where a stored point (u, v) in normalised coordinates (0…1, origin top-left) is displayed.
    public func displayPoint(_ u: Double, _ v: Double) -> (Double, Double) {
        switch exif {
        case 2: (1 - u, v)
        case 3: (1 - u, 1 - v)
        case 4: (u, 1 - v)
        case 5: (v, u)
        case 6: (1 - v, u)
        case 7: (1 - v, 1 - u)
        case 8: (v, 1 - u)
        default: (u, v)
        }
    }

    /// The stored point (normalised) displayed at (u, v).
    public func storedPoint(_ u: Double, _ v: Double) -> (Double, Double) { inverse.displayPoint(u, v) }
}
