/// Exact fractions as ISO 21496-1 stores them: a 32-bit numerator over a 32-bit unsigned denominator.
///
/// ISO 21496-1 clause C.2.2 (GainMapMetadata) keeps every real value as such a pair; libavif keeps them
/// exact too (`avifSignedFraction` / `avifUnsignedFraction`). Equality is field-wise (1/2 ≠ 2/4), because
/// the bytes are what a round trip must preserve; use `doubleValue` to compare magnitudes.
public struct Fraction: Sendable, Hashable, CustomStringConvertible {
    /// The signed numerator.
    public var numerator: Int32
    /// The denominator; 0 is representable (it is a validation finding, not a crash).
    public var denominator: UInt32

    /// Makes a fraction from its two stored fields.
    /// - Parameters:
    ///   - numerator: the signed numerator.
    ///   - denominator: the unsigned denominator (0 is kept and reported by validation).
    public init(_ numerator: Int32, _ denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The closest fraction to `value` whose parts fit in Int32/UInt32 (continued fractions, as libavif's
    /// `avifDoubleToSignedFraction`).
    /// - Parameter value: a finite number; non-finite or out-of-range values give nil.
    /// - Returns: the fraction, or nil when `value` cannot be represented.
    public init?(approximating value: Double) {
        guard value.isFinite, abs(value) <= Double(Int32.max) else { return nil }
        guard let (n, d) = FractionApproximation.best(abs(value), maxNumerator: UInt64(Int32.max)) else { return nil }
        self.init(value < 0 ? -Int32(n) : Int32(n), UInt32(d))
    }

    /// The value as a Double; ±infinity or NaN when the denominator is 0.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// Whether the denominator is non-zero.
    public var isDefined: Bool { denominator != 0 }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// An unsigned exact fraction (ISO 21496-1 headrooms and gamma).
public struct UFraction: Sendable, Hashable, CustomStringConvertible {
    /// The unsigned numerator.
    public var numerator: UInt32
    /// The denominator; 0 is representable (it is a validation finding, not a crash).
    public var denominator: UInt32

    /// Makes a fraction from its two stored fields.
    /// - Parameters:
    ///   - numerator: the unsigned numerator.
    ///   - denominator: the unsigned denominator.
    public init(_ numerator: UInt32, _ denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The closest unsigned fraction to `value` (continued fractions).
    /// - Parameter value: a finite, non-negative number.
    /// - Returns: the fraction, or nil when `value` is negative, not finite or too large.
    public init?(approximating value: Double) {
        guard value.isFinite, value >= 0, value <= Double(UInt32.max) else { return nil }
        guard let (n, d) = FractionApproximation.best(value, maxNumerator: UInt64(UInt32.max)) else { return nil }
        self.init(UInt32(n), UInt32(d))
    }

    /// The value as a Double; infinity or NaN when the denominator is 0.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// Whether the denominator is non-zero.
    public var isDefined: Bool { denominator != 0 }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// Best rational approximation by continued fractions, bounded by the field widths.
enum FractionApproximation {
    /// Returns (numerator, denominator) with numerator ≤ maxNumerator and denominator ≤ UInt32.max.
    static func best(_ x: Double, maxNumerator: UInt64) -> (UInt64, UInt64)? {
        guard x.isFinite, x >= 0 else { return nil }
        let maxDen = UInt64(UInt32.max)
        if x == x.rounded(.down), x <= Double(maxNumerator) { return (UInt64(x), 1) }
        // Convergents h/k.
        var h0: UInt64 = 0
        var h1: UInt64 = 1
        var k0: UInt64 = 1
        var k1: UInt64 = 0
        var r = x
        var best: (UInt64, UInt64)? = nil
        for _ in 0..<64 {
            let aD = r.rounded(.down)
            guard aD < 1e19 else { break }
            let a = UInt64(aD)
            let (ah, o1) = a.multipliedReportingOverflow(by: h1)
            let (ak, o2) = a.multipliedReportingOverflow(by: k1)
            guard !o1, !o2 else { break }
            let (h2, o3) = ah.addingReportingOverflow(h0)
            let (k2, o4) = ak.addingReportingOverflow(k0)
            guard !o3, !o4, h2 <= maxNumerator, k2 <= maxDen, k2 > 0 else { break }
            best = (h2, k2)
            h0 = h1
            h1 = h2
            k0 = k1
            k1 = k2
            let frac = r - aD
            if frac < 1e-12 || abs(Double(h2) / Double(k2) - x) == 0 { break }
            r = 1 / frac
        }
        if best == nil, x < 1 / Double(maxDen) { return (0, 1) }
        return best
    }
}
