import Digest
import Foundation

/// A binary value reduced to its length and SHA-256 (large or opaque values: MakerNote, UserComment blobs, ...).
public struct BlobDigest: Sendable, Hashable, Codable, CustomStringConvertible {
    public let length: Int
    public let sha256: String

    public init(bytes: [UInt8]) {
        length = bytes.count
        sha256 = SHA256.hex(bytes)
    }

    public init(length: Int, sha256: String) {
        self.length = length
        self.sha256 = sha256
    }

    public var description: String { "\(length) bytes sha256:\(sha256.prefix(12))" }
}

/// A date-time as Exif ("YYYY:MM:DD HH:MM:SS") or XMP (ISO 8601) writes it, with optional sub-seconds and offset.
/// Exif keeps sub-seconds and offsets in separate tags (SubSecTime*, OffsetTime*, CIPA DC-008 §4.6.5); XMP
/// carries them inline.
public struct DateTimeValue: Sendable, Hashable, Codable, CustomStringConvertible {
    public var year: Int, month: Int, day: Int
    public var hour: Int?, minute: Int?, second: Int?
    /// Fractional seconds digits as written ("123"), nil when absent.
    public var subSecond: String?
    /// Offset from UTC in minutes, nil when absent.
    public var offsetMinutes: Int?

    public init(
        year: Int, month: Int, day: Int, hour: Int? = nil, minute: Int? = nil, second: Int? = nil,
        subSecond: String? = nil, offsetMinutes: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.subSecond = subSecond
        self.offsetMinutes = offsetMinutes
    }

    /// Parses "YYYY:MM:DD HH:MM:SS[.fff][±HH:MM|Z]" or "YYYY-MM-DDTHH:MM[:SS[.fff]][±HH:MM|Z]" (and date-only forms).
    /// - Returns: nil when the text is not a date (e.g. blank "    :  :     :  :  ").
    public init?(parsing text: String) {
        let s = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        func num(_ r: Range<Int>) -> Int? {
            guard r.upperBound <= s.count else { return nil }
            var v = 0
            for i in r {
                guard s[i] >= 48, s[i] <= 57 else { return nil }
                v = v * 10 + Int(s[i] - 48)
            }
            return v
        }
        guard let y = num(0..<4) else { return nil }
        var m = 1
        var d = 1
        if s.count >= 7 {
            guard let mm = num(5..<7) else { return nil }
            m = mm
        }
        if s.count >= 10 {
            guard let dd = num(8..<10) else { return nil }
            d = dd
        }
        year = y
        month = m
        day = d
        guard s.count > 10 else { return }
        guard s[10] == 0x20 || s[10] == 0x54, let h = num(11..<13), let mi = num(14..<16) else { return nil }
        hour = h
        minute = mi
        var i = 16
        if i < s.count, s[i] == 0x3A, let sec = num(17..<19) {
            second = sec
            i = 19
        }
        if i < s.count, s[i] == 0x2E {
            var j = i + 1
            while j < s.count, s[j] >= 48, s[j] <= 57 { j += 1 }
            subSecond = String(decoding: s[(i + 1)..<j], as: UTF8.self)
            i = j
        }
        if i < s.count {
            if s[i] == 0x5A {
                offsetMinutes = 0
            } else if s[i] == 0x2B || s[i] == 0x2D, let oh = num((i + 1)..<(i + 3)) {
                let om = num((i + 4)..<(i + 6)) ?? 0
                offsetMinutes = (s[i] == 0x2D ? -1 : 1) * (oh * 60 + om)
            }
        }
    }

    /// Exif form "YYYY:MM:DD HH:MM:SS", with ".fff" and "±HH:MM" appended when present.
    public var description: String {
        func p(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        var out = "\(p(year, 4)):\(p(month, 2)):\(p(day, 2))"
        if let hour, let minute { out += " \(p(hour, 2)):\(p(minute, 2)):\(p(second ?? 0, 2))" }
        if let subSecond, !subSecond.isEmpty { out += ".\(subSecond)" }
        if let o = offsetMinutes { out += (o < 0 ? "-" : "+") + "\(p(abs(o) / 60, 2)):\(p(abs(o) % 60, 2))" }
        return out
    }
}

/// A typed metadata value. Values compare after normalisation (see `MetadataValue.matches`).
public enum MetadataValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// BYTE, SHORT, LONG, SBYTE, SSHORT, SLONG (and XMP integers).
    case integers([Int64])
    /// RATIONAL and SRATIONAL components, exact.
    case rationals([Rational])
    /// FLOAT, DOUBLE and XMP reals.
    case reals([Double])
    /// ASCII and XMP text, NUL padding and trailing spaces removed.
    case text(String)
    /// A date-time (Exif ASCII date tags, XMP dates).
    case dateTime(DateTimeValue)
    /// Lists: XMP bags/sequences, language alternatives ("x-default" first), repeated IPTC datasets.
    case strings([String])
    /// UNDEFINED or opaque bytes, reduced to length + hash (short ones also keep their bytes in `bytes`).
    case binary(BlobDigest)

    /// A short human form for tables.
    public var description: String {
        switch self {
        case .integers(let v): return v.map(String.init).joined(separator: " ")
        case .rationals(let v): return v.map(Self.display).joined(separator: " ")
        case .reals(let v): return v.map { Self.format($0) }.joined(separator: " ")
        case .text(let s): return s
        case .dateTime(let d): return d.description
        case .strings(let v): return v.joined(separator: ", ")
        case .binary(let b): return "(\(b))"
        }
    }

    /// The start of ``description``: at least `limit` characters of it when it is longer (a list stops after the
    /// element that passes `limit`), so that a value of thousands of numbers is not formatted whole to be cut.
    public func description(limit: Int) -> String {
        func joined<T>(_ v: [T], _ separator: String, _ form: (T) -> String) -> String {
            var out = ""
            for (i, x) in v.enumerated() {
                if i > 0 { out += separator }
                out += form(x)
                if out.count > limit { break }
            }
            return out
        }
        switch self {
        case .integers(let v): return joined(v, " ") { String($0) }
        case .rationals(let v): return joined(v, " ", Self.display)
        case .reals(let v): return joined(v, " ") { Self.format($0) }
        case .strings(let v): return joined(v, ", ") { $0 }
        case .text, .dateTime, .binary: return description
        }
    }

    /// Numbers as Doubles (integers, rationals, reals), nil for other kinds.
    public var numbers: [Double]? {
        switch self {
        case .integers(let v): return v.map(Double.init)
        case .rationals(let v): return v.map(\.doubleValue)
        case .reals(let v): return v
        default: return nil
        }
    }

    /// A rational for people: "1/250", "5.6", "48"; the exact fraction when it is short, else the decimal.
    static func display(_ r: Rational) -> String {
        let x = r.reduced
        if x.denominator == 0 { return r.description }
        if x.denominator == 1 { return String(x.numerator) }
        if x.numerator.magnitude == 1
            || (x.numerator.magnitude < 1000 && x.denominator < 1000 && x.numerator.magnitude < x.denominator)
        {
            return x.description
        }
        return format(x.doubleValue)
    }

    static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(format: "%.10g", d)
    }

    /// Removes NUL padding (and anything after the first NUL) and trailing spaces: CIPA DC-008 ASCII semantics.
    public static func normalizeText(_ s: String) -> String {
        var t = s
        if let nul = t.firstIndex(of: "\0") { t = String(t[..<nul]) }
        while let last = t.last, last == " " || last == "\n" || last == "\r" || last == "\t" { t.removeLast() }
        return t
    }

    /// True when both values are the same value after normalisation (``compared(with:rule:conversion:)`` says
    /// identical or re-encoded).
    /// - Parameters:
    ///   - other: the value to compare with.
    ///   - relativeTolerance: the same-value band for numbers.
    public func matches(_ other: MetadataValue, relativeTolerance: Double = 1e-9) -> Bool {
        compared(with: other, rule: ValueRule(same: relativeTolerance)) <= .reencoded
    }
}
