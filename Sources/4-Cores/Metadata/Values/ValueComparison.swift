import Foundation

/// How an output's value of a field compares with the source's (worst first: changed > rounded > reencoded).
public enum ValueVerdict: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// The same value in the same representation (text after its NUL padding and trailing blanks are trimmed).
    case identical
    /// The same value written another way: 1/100 → 10/1000, a rational re-derived from a float within the rule's
    /// band, a rational written as XMP text, base64 re-wrapped onto other lines.
    case reencoded
    /// Within the source's own printed precision: exiftool prints both values the same, or the output lies within
    /// half the last digit the source was written with.
    case rounded
    /// Anything else.
    case changed

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: ValueVerdict, b: ValueVerdict) -> Bool { a.rank < b.rank }
}

extension MetadataValue {
    /// Compares this (the source's) value with an output's value under a tag's rule.
    /// - Parameters:
    ///   - output: the output's value.
    ///   - rule: the tag's comparison rule (``TagTables/rule(for:)``).
    ///   - conversion: exiftool's ValueConv for the tag (APEX), applied before printing.
    /// - Returns: the verdict; values of unrelated kinds (a date and a blob) are `changed`.
    public func compared(
        with output: MetadataValue, rule: ValueRule = .standard, conversion: ExiftoolConversion = .none
    ) -> ValueVerdict {
        // The same representation is the same value, even one without a number's meaning (0/0, which cameras write
        // for an unknown coordinate).
        if self == output { return .identical }
        if let a = NumberList(self), let b = NumberList(output) {
            return rule.measure == .degrees ? a.coordinate(b, rule) : a.compared(b, rule, conversion)
        }
        switch (self, output) {
        case (.text(let a), .text(let b)): return Self.compareText(a, b)
        case (.strings(let a), .strings(let b)):
            guard a.count == b.count else { return .changed }
            return zip(a, b).map { Self.compareText($0, $1) }.max() ?? .identical
        case (.text(let a), .strings(let b)), (.strings(let b), .text(let a)):
            return b.count == 1 ? max(.reencoded, Self.compareText(a, b[0])) : .changed
        case (.dateTime(let a), .dateTime(let b)):
            return a == b ? .identical : a.sameInstantWritten(b) ? .reencoded : .changed
        case (.dateTime(let a), .text(let b)), (.text(let b), .dateTime(let a)):
            return DateTimeValue(parsing: b) == a ? .reencoded : .changed
        case (.binary(let a), .binary(let b)): return a == b ? .identical : .changed
        default: return self == output ? .identical : .changed
        }
    }

    /// The value as exiftool prints it under the rule (nil when the rule prints every digit): "1/121", "4.2",
    /// "48 51 29.64" for a coordinate.
    public func printed(rule: ValueRule, conversion: ExiftoolConversion = .none) -> String? {
        guard let n = NumberList(self) else { return nil }
        if rule.print == .dms { return NumberList.degrees(n.numbers.map(\.value)).map(NumberList.dms) }
        let p = n.numbers.compactMap { rule.printed(conversion.apply($0.value)) }
        return p.count == n.numbers.count ? p.joined(separator: " ") : nil
    }

    /// An XMP array or structure node: exiv2 gives the node itself the text `type="Seq"` (or Bag, Alt, Struct);
    /// its items are fields of their own, so the container kind alone is no value.
    static func isContainerMarker(_ s: String) -> Bool {
        ["type=\"Seq\"", "type=\"Bag\"", "type=\"Alt\"", "type=\"Struct\""].contains(s)
    }

    /// Text after NUL padding and trailing blanks are trimmed; equal once line breaks are dropped is `reencoded`
    /// (XMP writers wrap long base64 values at different widths).
    static func compareText(_ a: String, _ b: String) -> ValueVerdict {
        let x = normalizeText(a)
        let y = normalizeText(b)
        if x == y { return .identical }
        if isContainerMarker(x) && isContainerMarker(y) { return .reencoded }
        let unwrapped = { (s: String) in s.filter { $0 != "\n" && $0 != "\r" } }
        return unwrapped(x) == unwrapped(y) ? .reencoded : .changed
    }
}

/// The numbers of a value with how each was written, so that a representation change can be told from a value
/// change and the source's own precision is known.
struct NumberList {
    struct Number {
        var value: Double
        /// The exact fraction for integers and rationals.
        var exact: Rational?
        /// How it was written: "i" integer, "r n/d" rational, "f" real, "t text" numeric text.
        var form: String
        /// Half the last written digit's step, when the source was written with decimals (XMP "2.2", 22/10).
        var halfStep: Double?
    }
    var numbers: [Number]

    init?(_ v: MetadataValue) {
        switch v {
        case .integers(let a):
            numbers = a.map { Number(value: Double($0), exact: Rational($0, 1), form: "i", halfStep: nil) }
        case .rationals(let a):
            numbers = a.map {
                Number(
                    value: $0.doubleValue, exact: $0, form: "r \($0)", halfStep: Self.decimalHalfStep($0.denominator))
            }
        case .reals(let a): numbers = a.map { Number(value: $0, exact: nil, form: "f", halfStep: nil) }
        case .text(let t):
            guard let n = Self.parse(MetadataValue.normalizeText(t)) else { return nil }
            numbers = n
        default: return nil
        }
        if numbers.isEmpty { return nil }
    }

    /// Numbers written as text: integers, "n/d" fractions and decimals, separated by blanks.
    static func parse(_ s: String) -> [Number]? {
        let tokens = s.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !tokens.isEmpty, tokens.count <= 64 else { return nil }
        var out: [Number] = []
        for t in tokens {
            let text = String(t)
            // "012345" is an identifier (a serial number, a version), not the number 12345.
            if text.count > 1, text.first == "0", text.dropFirst().first != "." { return nil }
            if let i = Int64(text) {
                out.append(Number(value: Double(i), exact: Rational(i, 1), form: "t \(text)", halfStep: nil))
            } else if case let p = text.split(separator: "/"), p.count == 2, let n = Int64(p[0]), let d = Int64(p[1]) {
                let r = Rational(n, d)
                out.append(Number(value: r.doubleValue, exact: r, form: "t \(text)", halfStep: decimalHalfStep(d)))
            } else if let d = Double(text), d.isFinite, !text.contains(where: { $0.isLetter }) {
                let decimals = text.split(separator: ".").dropFirst().first?.count ?? 0
                let half = decimals > 0 ? 0.5 * pow(10, -Double(decimals)) : nil
                out.append(Number(value: d, exact: nil, form: "t \(text)", halfStep: half))
            } else {
                return nil
            }
        }
        return out
    }

    /// Half of 10^-k when the denominator is 10^k (k ≥ 1): the precision a decimal written as a fraction carries.
    static func decimalHalfStep(_ d: Int64) -> Double? {
        var k = 0
        var x = d
        while x > 1, x % 10 == 0 {
            x /= 10
            k += 1
        }
        return x == 1 && k > 0 ? 0.5 * pow(10, -Double(k)) : nil
    }

    /// Element by element; the worst verdict wins.
    func compared(_ other: NumberList, _ rule: ValueRule, _ conversion: ExiftoolConversion) -> ValueVerdict {
        guard numbers.count == other.numbers.count else { return .changed }
        return zip(numbers, other.numbers).map { Self.compare($0, $1, rule, conversion) }.max() ?? .identical
    }

    static func compare(_ a: Number, _ b: Number, _ rule: ValueRule, _ conversion: ExiftoolConversion) -> ValueVerdict {
        if let x = a.exact, let y = b.exact, x == y {
            return a.form == b.form ? .identical : .reencoded
        }
        let x = a.value
        let y = b.value
        if x == y || (x.isNaN && y.isNaN) { return a.form == b.form ? .identical : .reencoded }
        guard x.isFinite, y.isFinite else { return .changed }
        if abs(x - y) <= rule.same * max(abs(x), abs(y)) { return .reencoded }
        if let p = rule.printed(conversion.apply(x)), p == rule.printed(conversion.apply(y)) { return .rounded }
        if let h = a.halfStep, abs(x - y) <= h * (1 + 1e-9) { return .rounded }
        return .changed
    }

    /// Coordinates: degrees/minutes/seconds (or decimal degrees) reduced to degrees, then the rule's bands.
    func coordinate(_ other: NumberList, _ rule: ValueRule) -> ValueVerdict {
        let a = numbers.map(\.value)
        let b = other.numbers.map(\.value)
        if a == b { return numbers.map(\.form) == other.numbers.map(\.form) ? .identical : .reencoded }
        guard let x = Self.degrees(a), let y = Self.degrees(b) else { return .changed }
        // The same angle in another split (48° 51.494′ and 48° 51′ 29.64″) is the same coordinate: d/m/s and
        // decimal minutes are both ways the tag is written, not a re-encoding of a value.
        if abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1) { return .identical }
        if abs(x - y) <= rule.same { return .reencoded }
        return Self.dms(x) == Self.dms(y) ? .rounded : .changed
    }

    static func degrees(_ n: [Double]) -> Double? {
        guard !n.isEmpty, n.count <= 3, n.allSatisfy({ $0.isFinite }) else { return nil }
        return n[0] + (n.count > 1 ? n[1] / 60 : 0) + (n.count > 2 ? n[2] / 3600 : 0)
    }

    /// exiftool's ToDMS default: `%d deg %d' %.2f"`.
    static func dms(_ deg: Double) -> String {
        let a = abs(deg)
        var d = a.rounded(.down)
        var m = ((a - d) * 60).rounded(.down)
        var s = ((a - d) * 60 - m) * 60
        if String(format: "%.2f", s) == "60.00" {
            s = 0
            m += 1
        }
        if m >= 60 {
            m -= 60
            d += 1
        }
        return String(format: "%@%d %d %.2f", deg < 0 ? "-" : "", Int(d), Int(m), s)
    }
}

extension DateTimeValue {
    /// The same date and time written with other sub-second digits ("54.00" and "54", "5" and "50"); an offset on one
    /// side only is not the same instant.
    func sameInstantWritten(_ o: DateTimeValue) -> Bool {
        func fraction(_ s: String?) -> String {
            var t = s ?? ""
            while t.hasSuffix("0") { t.removeLast() }
            return t
        }
        var a = self
        var b = o
        a.subSecond = fraction(a.subSecond)
        b.subSecond = fraction(b.subSecond)
        if a.second == nil && a.hour != nil { a.second = 0 }
        if b.second == nil && b.hour != nil { b.second = 0 }
        return a == b
    }
}
