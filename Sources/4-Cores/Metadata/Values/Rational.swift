/// An exact fraction (Exif RATIONAL / SRATIONAL, CIPA DC-008 §4.6.2). Equality is by value:
/// 1/100 == 10/1000; x/0 values compare equal only to the same x/0 (exiftool shows them as inf/undef).
public struct Rational: Sendable, Hashable, Codable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The value as a Double (±infinity or NaN for a zero denominator).
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// The fraction in lowest terms with a positive denominator.
    public var reduced: Rational {
        if denominator == 0 { return Rational(numerator == 0 ? 0 : (numerator > 0 ? 1 : -1), 0) }
        var a = numerator.magnitude
        var b = denominator.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        let g = Int64(a == 0 ? 1 : a)
        var n = numerator / g
        var d = denominator / g
        if d < 0 {
            n = -n
            d = -d
        }
        return Rational(n, d)
    }

    public static func == (l: Rational, r: Rational) -> Bool {
        let a = l.reduced
        let b = r.reduced
        return a.numerator == b.numerator && a.denominator == b.denominator
    }

    public func hash(into hasher: inout Hasher) {
        let r = reduced
        hasher.combine(r.numerator)
        hasher.combine(r.denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}
