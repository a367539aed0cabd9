import Foundation

/// How two values of one tag compare, carried as data by each ``TagDefinition``.
///
/// Three bands, tested in order on numbers (integers, rationals, reals and numeric text, element by element):
/// - **same value**: within ``same`` (relative, or absolute degrees for coordinates). A value written in another
///   representation (1/100 → 10/1000, a rational re-derived from a float, a rational written as XMP text) is the same
///   value; the diff calls the change `reencoded`, which is at most informational.
/// - **rounded**: the difference is within the source's own printed precision: both values print the same under the
///   tag's ``print`` form (exiftool's PrintConv, which `exiftool -tagsFromFile` writes back), or the source was written
///   with fewer decimals (XMP text "2.2", a rational over a power of ten) and the output lies within half its last
///   digit. A reader sees the same number; the diff says `rounded` and shows both values.
/// - otherwise **changed**.
public struct ValueRule: Sendable, Hashable, Codable {
    /// What ``same`` measures.
    public enum Measure: String, Sendable, Hashable, Codable {
        /// |a − b| ≤ same · max(|a|, |b|).
        case relative
        /// Degrees/minutes/seconds reduced to degrees; |a − b| ≤ same.
        case degrees
    }

    /// How exiftool prints the tag (its PrintConv), the precision a user reads and `-tagsFromFile` writes back.
    public enum PrintForm: String, Sendable, Hashable, Codable {
        /// Every digit (Perl's %.15g): no rounding band beyond the source's own decimals.
        case full
        /// One decimal ("%.1f": FocalLength, ApertureValue, MaxApertureValue as f-numbers).
        case oneDecimal
        /// exiftool's PrintFNumber: one decimal, two below 1.
        case fNumber
        /// exiftool's PrintExposureTime: "1/n" with n = int(0.5 + 1/t) below 0.25 s, else one decimal.
        case exposureTime
        /// exiftool's PrintFraction: whole, halves or thirds when within 0.1 %, else three significant digits.
        case fraction
        /// exiftool's ToDMS: degrees, minutes and seconds with two decimals (0.01″ ≈ 0.3 m).
        case dms
    }

    public var measure: Measure
    /// The same-value band: relative (default 1e-6) or degrees (coordinates: 1e-6° ≈ 0.1 m).
    public var same: Double
    public var print: PrintForm

    public init(measure: Measure = .relative, same: Double = 1e-6, print: PrintForm = .full) {
        self.measure = measure
        self.same = same
        self.print = print
    }

    /// Relative 1e-6, printed at full precision: every tag the tables do not say otherwise about.
    public static let standard = ValueRule()
    /// GPS coordinates: degrees within 1e-6°, printed as d/m/s with 0.01″.
    public static let coordinate = ValueRule(measure: .degrees, same: 1e-6, print: .dms)

    /// A rule with the standard same-value band and the given print form.
    public static func printed(_ form: PrintForm) -> ValueRule { ValueRule(print: form) }

    /// The printed text of a number under ``print`` (nil for `.full` and `.dms`, which are judged otherwise).
    public func printed(_ v: Double) -> String? {
        switch print {
        case .full, .dms: return nil
        case .oneDecimal: return String(format: "%.1f", v)
        case .fNumber: return v > 0 ? String(format: v < 1 ? "%.2f" : "%.1f", v) : String(v)
        case .exposureTime:
            guard v > 0 else { return String(v) }
            if v < 0.25001 { return "1/\(Int(0.5 + 1 / v))" }
            let s = String(format: "%.1f", v)
            return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
        case .fraction: return Self.fractionText(v)
        }
    }

    /// exiftool's PrintFraction (Exif.pm): "+1/3", "-2/3", "+1", or "%+.3g".
    static func fractionText(_ value: Double) -> String {
        let v = value * 1.00001
        if v == 0 { return "0" }
        func near(_ k: Double) -> Bool { (v * k).rounded(.towardZero) / (v * k) > 0.999 }
        if near(1) { return String(format: "%+d", Int(v)) }
        if near(2) { return String(format: "%+d/2", Int(v * 2)) }
        if near(3) { return String(format: "%+d/3", Int(v * 3)) }
        return String(format: "%+.3g", v)
    }
}
