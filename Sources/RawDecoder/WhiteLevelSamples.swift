/// The raw samples at and above the white level, on the decoder's sampling grid: tells an overexposed frame (clipped
/// highlights) from garbage. Clipped samples sit at one or a few values (the ADC's maximum, which may lie above the
/// file's WhiteLevel) and form spatially coherent regions; garbage is spread over the whole range with no structure.
struct WhiteLevelSamples {
    /// Values that may hold the clipped samples: a sensor clips every channel at one value, or one per channel.
    static let clipValues = 8
    /// Share of the samples over white that must sit on the `clipValues` most frequent values.
    static let minConcentration = 0.9
    /// How much likelier a sample over white is to have its grid neighbour over white too than any sample is.
    static let minCoherence = 0.3

    let whiteLevel: Int
    let columns: Int
    let rows: Int
    private(set) var total = 0
    private(set) var atOrAboveWhite = 0
    private(set) var overWhite = 0
    private var values: [Int: Int] = [:]
    /// Grid positions with a sample over white.
    private var grid: [Bool]

    init(whiteLevel: Int, columns: Int, rows: Int) {
        self.whiteLevel = whiteLevel
        self.columns = columns
        self.rows = rows
        grid = Array(repeating: false, count: max(0, columns * rows))
    }

    /// Counts sample `v` at grid position (`column`, `row`).
    mutating func add(_ v: Int, column: Int, row: Int) {
        total += 1
        guard whiteLevel > 0, v >= whiteLevel else { return }
        atOrAboveWhite += 1
        guard v > whiteLevel else { return }
        overWhite += 1
        values[v, default: 0] += 1
        grid[row * columns + column] = true
    }

    /// Share of the samples over the white level.
    var overFraction: Double { total == 0 ? 0 : Double(overWhite) / Double(total) }
    /// Share of the samples at or above the white level: the clipped part of the frame.
    var clippedFraction: Double { total == 0 ? 0 : Double(atOrAboveWhite) / Double(total) }

    /// Share of the samples over white that sit on the `clipValues` most frequent values.
    var concentration: Double {
        guard overWhite > 0 else { return 1 }
        let top = values.values.sorted(by: >).prefix(Self.clipValues).reduce(0, +)
        return Double(top) / Double(overWhite)
    }

    /// How much more often a grid position over white has its right neighbour over white than a position at random
    /// is over white: near 0 for samples scattered without structure, large for blown regions.
    var coherence: Double {
        var pairs = 0
        var both = 0
        var marked = 0
        for r in 0..<rows {
            for c in 0..<columns where grid[r * columns + c] {
                marked += 1
                guard c + 1 < columns else { continue }
                pairs += 1
                if grid[r * columns + c + 1] { both += 1 }
            }
        }
        guard pairs > 0, !grid.isEmpty else { return 0 }
        return Double(both) / Double(pairs) - Double(marked) / Double(grid.count)
    }

    /// Samples over white that are clipped highlights: on a few values, in coherent regions.
    var looksClipped: Bool { concentration >= Self.minConcentration && coherence >= Self.minCoherence }
}
