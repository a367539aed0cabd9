/// One of the eight ways to turn and mirror a raster (the dihedral group D4), named by the Exif Orientation value
/// that asks for it (CIPA DC-008 §4.6.4, tag 0x0112: what to do to the coded raster to show it).
///
/// Internally a left-right mirror (or not) followed by clockwise quarter turns: 2 = mirror, 3 = 180°, 4 = mirror then
/// 180°, 5 = mirror then 270° (transpose), 6 = 90°, 7 = mirror then 90° (transverse), 8 = 270°.
public struct DisplayTransform: Hashable, Sendable, Codable, CustomStringConvertible {
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

    /// The transform an Exif Orientation value asks for; values outside 1–8 are the identity.
    public init(exif: Int) {
        let (q, m) = (1...8).contains(exif) ? Self.byExif[exif - 1] : (0, false)
        self.init(quarterTurns: q, mirrored: m)
    }

    /// The Exif Orientation value (1–8).
    public var exif: Int {
        1 + Self.byExif.firstIndex { $0.0 == quarterTurns && $0.1 == mirrored }!
    }

    public static let identity = DisplayTransform(exif: 1)
    /// All eight, by Exif value.
    public static let all = (1...8).map(DisplayTransform.init(exif:))

    /// `self` first, then `next`.
    public func then(_ next: DisplayTransform) -> DisplayTransform {
        // R^b M^g R^a M^f: a mirror reverses the turns made before it.
        next.mirrored
            ? DisplayTransform(quarterTurns: next.quarterTurns - quarterTurns, mirrored: !mirrored)
            : DisplayTransform(quarterTurns: quarterTurns + next.quarterTurns, mirrored: mirrored)
    }

    /// The transform that undoes this one.
    public var inverse: DisplayTransform {
        mirrored ? self : DisplayTransform(quarterTurns: -quarterTurns, mirrored: false)
    }

    /// True when width and height trade places (a quarter turn).
    public var swapsAxes: Bool { quarterTurns % 2 == 1 }

    /// "turned 90° clockwise", "mirrored left-right", "upright".
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
}
