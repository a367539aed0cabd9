import Foundation

/// A small luma render of a picture as shown: `side`×`side` cell means, the whole picture squeezed into the square
/// (its aspect is judged separately), so the eight turns and mirrors of the picture are exact rearrangements of the
/// cells. Enough to tell which way a photo is turned, at a cost independent of its size.
public struct LumaGrid: Sendable, Equatable {
    public static let side = 32
    /// Cell means, row-major, `side × side`.
    public let values: [Double]

    public init(values: [Double]) {
        precondition(values.count == Self.side * Self.side)
        self.values = values
    }

    /// Samples a picture on an even grid of at most 256×256 points (each cell gets the mean of its points).
    /// - Parameters:
    ///   - width: the picture's width.
    ///   - height: its height.
    ///   - luma: the luma (or any single channel) at (x, y).
    public init(width: Int, height: Int, luma: (Int, Int) -> Double) {
        let n = Self.side
        let px = min(width, 8 * n)
        let py = min(height, 8 * n)
        var sum = [Double](repeating: 0, count: n * n)
        var count = [Int](repeating: 0, count: n * n)
        for j in 0..<py {
            let y = j * height / py
            let cy = j * n / py
            for i in 0..<px {
                let x = i * width / px
                let c = cy * n + i * n / px
                sum[c] += luma(x, y)
                count[c] += 1
            }
        }
        values = zip(sum, count).map { $1 > 0 ? $0 / Double($1) : 0 }
    }

    /// The grid as a picture shown with an Exif Orientation (1–8) applied: displayed(x, y) = coded(f(x, y)).
    public func transformed(exif: Int) -> LumaGrid {
        let n = Self.side
        let m = n - 1
        var out = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                let (sx, sy): (Int, Int)
                switch exif {
                case 2: (sx, sy) = (m - x, y)
                case 3: (sx, sy) = (m - x, m - y)
                case 4: (sx, sy) = (x, m - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, m - x)
                case 7: (sx, sy) = (m - y, m - x)
                case 8: (sx, sy) = (m - y, x)
                default: (sx, sy) = (x, y)
                }
                out[y * n + x] = values[sy * n + sx]
            }
        }
        return LumaGrid(values: out)
    }

    /// Standard deviation of the cells (0 for a flat picture).
    public var spread: Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
    }

    /// Normalised cross-correlation with another grid, −1…1 (0 when either is flat).
    public func correlation(_ other: LumaGrid) -> Double {
        let n = Double(values.count)
        let ma = values.reduce(0, +) / n
        let mb = other.values.reduce(0, +) / n
        var ab = 0.0
        var aa = 0.0
        var bb = 0.0
        for (a, b) in zip(values, other.values) {
            ab += (a - ma) * (b - mb)
            aa += (a - ma) * (a - ma)
            bb += (b - mb) * (b - mb)
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }
}

/// Which of the eight turns and mirrors makes a reference picture look like a candidate: output-as-shown ≈
/// T(source-as-shown). Scores are the correlations of 32×32 luma renders.
public struct OrientationMatch: Sendable, Equatable {
    /// Correlation per transform (Exif value) that was tried.
    public let scores: [Int: Double]
    /// The transform that correlates best.
    public let best: Int

    /// The lowest correlation that counts as "the same picture" (re-encoding at any sane quality stays above 0.9).
    public static let minimumScore = 0.6
    /// How much a turn or mirror must beat the identity by before the pixels call the picture turned (a mirrored
    /// photo beats its unmirrored self by 0.24 and more in the issue-19 measurements; a symmetric subject less).
    public static let minimumGain = 0.15
    /// Pictures flatter than this (cell standard deviation, on 0–1 luma) cannot show a turn.
    public static let minimumSpread = 0.01

    /// Compares every allowed transform of the reference with the candidate.
    /// - Parameters:
    ///   - reference: the source as shown.
    ///   - candidate: the output as shown.
    ///   - allowed: Exif values to try (those that keep the shown aspect when the pictures are not square).
    /// - Returns: nil when either picture is flat or nothing was allowed.
    public static func compare(reference: LumaGrid, candidate: LumaGrid, allowed: [Int] = Array(1...8))
        -> OrientationMatch?
    {
        guard reference.spread >= minimumSpread, candidate.spread >= minimumSpread, !allowed.isEmpty else {
            return nil
        }
        var scores: [Int: Double] = [:]
        for t in allowed { scores[t] = reference.transformed(exif: t).correlation(candidate) }
        let best = scores.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key
        return OrientationMatch(scores: scores, best: best)
    }

    /// The transform the pixels decide, nil when they do not: the identity when it correlates best (a symmetric
    /// picture shown mirrored looks the same); another transform only when it correlates well and clearly beats the
    /// identity (or the identity was not allowed).
    public var decided: Int? {
        guard let top = scores[best], top >= Self.minimumScore else { return nil }
        if best == 1 { return 1 }
        guard let id = scores[1] else { return best }
        return top - id >= Self.minimumGain ? best : nil
    }

    /// "identity 0.98, best 6 0.41" for evidence.
    public var summary: String {
        let id = scores[1].map { String(format: "identity %.2f", $0) } ?? "identity not allowed by the sizes"
        let b = best == 1 ? "" : String(format: ", best %d %.2f", best, scores[best] ?? 0)
        return "32×32 luma correlation: \(id)\(b)"
    }
}
