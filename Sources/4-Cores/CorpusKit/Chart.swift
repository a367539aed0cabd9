import ColorScience

/// The test chart: an upright arrow, an orientation marker, colour patches, a gradient, diffuse white and a
/// highlight a known number of stops above it. Everything is defined in normalised display coordinates, so the
/// same truth holds at every size, and the truth is exposed as data (`ChartTruth`) for other tests.

/// One uniform region of the chart with its scene-linear colour.
public struct ChartPatch: Sendable, Codable, Equatable {
    public var name: String
    public var rect: NormRect
    public var linear: RGB
}

/// The arrow: an isoceles head over a shaft, pointing to the top of the display.
public struct ArrowTruth: Sendable, Codable, Equatable {
    /// Head triangle (apex first) and shaft rectangle, normalised display coordinates.
    public var head: [[Double]]
    public var shaft: NormRect
    public var linear: RGB
    /// Where the arrow points on an upright chart: always "up".
    public var pointsTo: String
}

/// The horizontal neutral ramp.
public struct GradientTruth: Sendable, Codable, Equatable {
    public var rect: NormRect
    /// Linear value at the left edge and at the right edge; linear in between.
    public var from: Double
    public var to: Double
}

/// Everything a test needs to know about a rendered chart.
public struct ChartTruth: Sendable, Codable, Equatable {
    public var background: RGB
    /// Uniform patches, including `diffuse-white` and (when present) `highlight`.
    public var patches: [ChartPatch]
    public var arrow: ArrowTruth
    /// The cyan square in the top-right corner: with the arrow it fixes all eight orientations (mirrors too).
    public var marker: ChartPatch
    public var gradient: GradientTruth
    /// Stops above diffuse white of the `highlight` patch; nil when the chart has nothing above white.
    public var highlightStops: Double?
    /// The largest linear value anywhere in the chart (1.0 = diffuse white).
    public var maxLinear: Double
    /// True when something in the scene is brighter than diffuse white, so an HDR output needs a gain map.
    public var hasHighlightsAboveWhite: Bool

    /// The patch with this name.
    public func patch(_ name: String) -> ChartPatch? { patches.first { $0.name == name } }
}

/// The chart as a scene source at a given display size.
public struct Chart: SceneSource, Sendable {
    public let displayWidth: Int
    public let displayHeight: Int
    public let truth: ChartTruth

    /// - Parameters:
    ///   - width: display width in pixels.
    ///   - height: display height in pixels.
    ///   - highlightStops: stops above diffuse white for the highlight patch; nil for a chart with no value above
    ///     white (that patch is then a 0.9 grey named `near-white`).
    public init(width: Int, height: Int, highlightStops: Double?) {
        displayWidth = width
        displayHeight = height
        truth = Chart.truth(highlightStops: highlightStops)
    }

    /// The chart's truth for a highlight setting (independent of size).
    public static func truth(highlightStops: Double?) -> ChartTruth {
        var patches: [ChartPatch] = []
        let names = [
            ["grey-02", "grey-05", "grey-18", "grey-45"],
            ["red", "green", "blue", "grey-70"],
            ["orange", "purple", "skin", "olive"],
        ]
        let colours: [[RGB]] = [
            [.grey(0.02), .grey(0.05), .grey(0.18), .grey(0.45)],
            [RGB(0.60, 0.05, 0.05), RGB(0.08, 0.50, 0.08), RGB(0.05, 0.07, 0.60), .grey(0.70)],
            [RGB(0.70, 0.30, 0.05), RGB(0.30, 0.10, 0.45), RGB(0.45, 0.30, 0.22), RGB(0.20, 0.35, 0.10)],
        ]
        for row in 0..<3 {
            for col in 0..<4 {
                let x0 = 0.36 + 0.15 * Double(col)
                let y0 = 0.20 + 0.14 * Double(row)
                patches.append(
                    ChartPatch(
                        name: names[row][col], rect: NormRect(x0 + 0.01, y0 + 0.01, x0 + 0.14, y0 + 0.13),
                        linear: colours[row][col]))
            }
        }
        patches.append(ChartPatch(name: "diffuse-white", rect: NormRect(0.36, 0.82, 0.56, 0.94), linear: .grey(1.0)))
        if let s = highlightStops {
            let v = pow2(s)
            patches.append(ChartPatch(name: "highlight", rect: NormRect(0.60, 0.82, 0.96, 0.94), linear: .grey(v)))
        } else {
            patches.append(ChartPatch(name: "near-white", rect: NormRect(0.60, 0.82, 0.96, 0.94), linear: .grey(0.9)))
        }
        let arrow = ArrowTruth(
            head: [[0.17, 0.08], [0.04, 0.45], [0.30, 0.45]], shaft: NormRect(0.14, 0.45, 0.20, 0.92),
            linear: RGB(0.80, 0.80, 0.02), pointsTo: "up")
        let marker = ChartPatch(name: "marker", rect: NormRect(0.88, 0.03, 0.96, 0.15), linear: RGB(0.02, 0.70, 0.70))
        let maxLinear = highlightStops.map { max(1.0, pow2($0)) } ?? 1.0
        return ChartTruth(
            background: .grey(0.18), patches: patches, arrow: arrow, marker: marker,
            gradient: GradientTruth(rect: NormRect(0.36, 0.68, 0.96, 0.78), from: 0, to: 1),
            highlightStops: highlightStops, maxLinear: maxLinear, hasHighlightsAboveWhite: maxLinear > 1.0)
    }

    public func pixel(x: Int, y: Int) -> RGB {
        let u = (Double(x) + 0.5) / Double(displayWidth)
        let v = (Double(y) + 0.5) / Double(displayHeight)
        return sample(u, v)
    }

    /// The chart colour at normalised display position (u, v).
    public func sample(_ u: Double, _ v: Double) -> RGB {
        let t = truth
        if u < 0.34 {
            if t.arrow.shaft.contains(u, v) || Chart.inTriangle(u, v, t.arrow.head) { return t.arrow.linear }
            return t.background
        }
        if t.marker.rect.contains(u, v) { return t.marker.linear }
        if t.gradient.rect.contains(u, v) {
            let f = (u - t.gradient.rect.x0) / (t.gradient.rect.x1 - t.gradient.rect.x0)
            return .grey(t.gradient.from + f * (t.gradient.to - t.gradient.from))
        }
        for p in t.patches where p.rect.contains(u, v) { return p.linear }
        return t.background
    }

    static func inTriangle(_ u: Double, _ v: Double, _ tri: [[Double]]) -> Bool {
        guard tri.count == 3 else { return false }
        func side(_ a: [Double], _ b: [Double]) -> Double { (b[0] - a[0]) * (v - a[1]) - (b[1] - a[1]) * (u - a[0]) }
        let d1 = side(tri[0], tri[1])
        let d2 = side(tri[1], tri[2])
        let d3 = side(tri[2], tri[0])
        let neg = d1 < 0 || d2 < 0 || d3 < 0
        let pos = d1 > 0 || d2 > 0 || d3 > 0
        return !(neg && pos)
    }
}

func pow2(_ s: Double) -> Double {
    var v = 1.0
    var i = 0.0
    while i + 1 <= s {
        v *= 2
        i += 1
    }
    if s - i > 0 { v *= exp2Fraction(s - i) }
    return v
}

/// 2^f for 0 ≤ f < 1 without Foundation (series for e^(f ln 2)).
func exp2Fraction(_ f: Double) -> Double {
    let x = f * 0.6931471805599453
    var term = 1.0
    var sum = 1.0
    for n in 1..<30 {
        term *= x / Double(n)
        sum += term
    }
    return sum
}

/// Where the chart's arrow points and which corner its marker is in, read from a decoded image.
public struct ChartPose: Sendable, Equatable, CustomStringConvertible {
    public enum Direction: String, Sendable { case up, down, left, right }
    /// Where the arrow points in the image.
    public var arrow: Direction
    /// Whether the marker is in the right half and in the top half of the image.
    public var markerRight: Bool
    public var markerTop: Bool
    /// The Exif orientation `o` such that this image equals an upright chart stored with orientation `o`
    /// (applying `o`'s display transform would make it upright). 1 means the image is upright.
    public var orientation: Int?

    public var isUpright: Bool { orientation == 1 }
    public var description: String {
        "arrow \(arrow.rawValue), marker \(markerTop ? "top" : "bottom")-\(markerRight ? "right" : "left"), "
            + "orientation \(orientation.map(String.init) ?? "?")"
    }

    /// Finds the chart's pose in a decoded RGB image (linear or gamma-encoded; any scale).
    ///
    /// Arrow pixels are yellow (R ≈ G, B small), marker pixels cyan (G ≈ B, R small), judged by ratios to the
    /// pixel's own maximum so tone curves and exposure do not matter. The arrow's end with the widest cross-section
    /// is its head.
    /// - Parameter image: the decoded image.
    /// - Returns: the pose, or nil when the arrow or the marker is not found.
    public static func detect(in image: RGBImage) -> ChartPose? {
        var peak: Float = 0
        for v in image.pixels where v > peak && v.isFinite { peak = v }
        guard peak > 0 else { return nil }
        let floor = peak * 0.02
        var arrowMask = [Bool](repeating: false, count: image.width * image.height)
        var xs: [Int] = []
        var ys: [Int] = []
        var mx = 0.0
        var my = 0.0
        var mn = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = 3 * (y * image.width + x)
                let r = image.pixels[i]
                let g = image.pixels[i + 1]
                let b = image.pixels[i + 2]
                let m = max(r, max(g, b))
                guard m > floor else { continue }
                if b < 0.3 * m, min(r, g) > 0.8 * m {
                    arrowMask[y * image.width + x] = true
                } else if r < 0.3 * m, min(g, b) > 0.8 * m {
                    mx += Double(x)
                    my += Double(y)
                    mn += 1
                }
            }
        }
        // Only pixels inside the yellow: demosaic fringes along other patches' edges can be yellow too, in lines.
        arrowMask = eroded(arrowMask, width: image.width, height: image.height)
        for y in 0..<image.height {
            for x in 0..<image.width where arrowMask[y * image.width + x] {
                xs.append(x)
                ys.append(y)
            }
        }
        guard xs.count >= 16, mn >= 4 else { return nil }
        // The arrow's extent from the 1st to the 99th percentile, so demosaic fringes elsewhere do not count.
        xs.sort()
        ys.sort()
        let lo = xs.count / 100
        let hi = xs.count - 1 - xs.count / 100
        let ax0 = xs[lo]
        let ax1 = xs[hi]
        let ay0 = ys[lo]
        let ay1 = ys[hi]
        let vertical = (ay1 - ay0) >= (ax1 - ax0)
        // Widest cross-section in the first and the last 45 % of the arrow's length.
        let len = vertical ? ay1 - ay0 + 1 : ax1 - ax0 + 1
        var widths = [Int](repeating: 0, count: len)
        for y in ay0...ay1 {
            for x in ax0...ax1 where arrowMask[y * image.width + x] {
                widths[vertical ? y - ay0 : x - ax0] += 1
            }
        }
        let band = max(1, len * 45 / 100)
        let firstMax = widths[0..<band].max() ?? 0
        let lastMax = widths[(len - band)..<len].max() ?? 0
        guard firstMax != lastMax else { return nil }
        let headFirst = firstMax > lastMax
        let dir: Direction = vertical ? (headFirst ? .up : .down) : (headFirst ? .left : .right)
        let markerRight = mx / mn > Double(image.width) / 2
        let markerTop = my / mn < Double(image.height) / 2
        var pose = ChartPose(arrow: dir, markerRight: markerRight, markerTop: markerTop, orientation: nil)
        for o in 1...8 where ChartPose.expected(forOrientation: o) == (dir, markerRight, markerTop) {
            pose.orientation = o
        }
        return pose
    }

    /// `mask` with every pixel cleared that is on the border or has a cleared 4-neighbour (thin lines vanish).
    static func eroded(_ mask: [Bool], width w: Int, height h: Int) -> [Bool] {
        var out = [Bool](repeating: false, count: mask.count)
        guard w > 2, h > 2 else { return out }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                out[i] = mask[i] && mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w]
            }
        }
        return out
    }

    /// The pose an upright chart takes when stored with orientation `o` (display → stored inverse transform).
    static func expected(forOrientation o: Int) -> (Direction, Bool, Bool) {
        let t = ExifOrientation(exif: o)
        let (tail, head, marker) = (t.storedPoint(0.5, 0.8), t.storedPoint(0.5, 0.2), t.storedPoint(0.9, 0.1))
        let dx = head.0 - tail.0
        let dy = head.1 - tail.1
        let dir: Direction = abs(dy) > abs(dx) ? (dy < 0 ? .up : .down) : (dx < 0 ? .left : .right)
        return (dir, marker.0 > 0.5, marker.1 < 0.5)
    }
}
