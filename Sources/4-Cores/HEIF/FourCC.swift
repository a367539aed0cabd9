/// A four-character code naming a box, an item type, a brand or a reference type (ISO/IEC 14496-12 §4.2).
public struct FourCC: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible, Codable {
    /// The code as a big-endian 32-bit value, as it is stored in the file.
    public let rawValue: UInt32

    /// Wraps a raw big-endian value.
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes a code from exactly four bytes.
    public init(bytes b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        rawValue = UInt32(b0) << 24 | UInt32(b1) << 16 | UInt32(b2) << 8 | UInt32(b3)
    }

    /// Makes a code from a four-character Latin-1 string; `nil` when it is not exactly four such characters.
    public init?(string: String) {
        // Fast path: four ASCII bytes (every literal in this code base).
        var v: UInt32 = 0
        var n = 0
        var ascii = true
        for b in string.utf8 {
            if b >= 0x80 || n == 4 {
                ascii = false
                break
            }
            v = v << 8 | UInt32(b)
            n += 1
        }
        if ascii {
            guard n == 4 else { return nil }
            self.init(v)
            return
        }
        let scalars = Array(string.unicodeScalars)
        guard scalars.count == 4, scalars.allSatisfy({ $0.value < 256 }) else { return nil }
        self.init(
            bytes: UInt8(scalars[0].value), UInt8(scalars[1].value), UInt8(scalars[2].value), UInt8(scalars[3].value))
    }

    /// A string literal of four ASCII characters (read straight from the literal's bytes, no allocation); anything
    /// else is a programming error and becomes `????`.
    public init(stringLiteral value: StaticString) {
        guard value.hasPointerRepresentation, value.utf8CodeUnitCount == 4 else {
            self.init(0x3F3F_3F3F)
            return
        }
        let p = value.utf8Start
        self.init(bytes: p[0], p[1], p[2], p[3])
    }

    /// The four bytes, in file order.
    public var bytes: [UInt8] {
        [
            UInt8(rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16), UInt8(truncatingIfNeeded: rawValue >> 8),
            UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// The code as text; a byte outside printable ASCII is shown as `\xNN`.
    public var description: String {
        var s = ""
        for b in bytes {
            if b >= 0x20 && b < 0x7F { s.unicodeScalars.append(Unicode.Scalar(b)) } else { s += "\\x" + hex2(b) }
        }
        return s
    }

    public static func < (a: FourCC, b: FourCC) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let c = FourCC(string: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a FourCC"))
        }
        self = c
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

@inline(__always) func hex2(_ b: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
}
