/// A bounds-checked big-endian cursor over a range of bytes: every read returns `nil` instead of trapping. The one
/// reader of the pure cores (container boxes, `tmap` bodies, Apple MakerNotes).
public struct ByteReader {
    public let bytes: [UInt8]
    public private(set) var pos: Int
    public let end: Int

    /// A cursor over all of `bytes`.
    public init(_ bytes: [UInt8]) { self.init(bytes, from: 0, to: bytes.count) }

    /// A cursor over `bytes[start..<end]`, both clamped into the array.
    public init(_ bytes: [UInt8], from start: Int, to end: Int) {
        let e = max(0, min(end, bytes.count))
        self.bytes = bytes
        self.end = e
        self.pos = max(0, min(start, e))
    }

    public var remaining: Int { end - pos }
    public var atEnd: Bool { pos >= end }

    public mutating func u8() -> UInt8? {
        guard pos < end else { return nil }
        defer { pos += 1 }
        return bytes[pos]
    }

    public mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { pos += 2 }
        return UInt16(bytes[pos]) << 8 | UInt16(bytes[pos + 1])
    }

    public mutating func u24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { pos += 3 }
        return UInt32(bytes[pos]) << 16 | UInt32(bytes[pos + 1]) << 8 | UInt32(bytes[pos + 2])
    }

    public mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { pos += 4 }
        return UInt32(bytes[pos]) << 24 | UInt32(bytes[pos + 1]) << 16 | UInt32(bytes[pos + 2]) << 8
            | UInt32(bytes[pos + 3])
    }

    public mutating func s32() -> Int32? { u32().map { Int32(bitPattern: $0) } }

    public mutating func u64() -> UInt64? {
        guard let hi = u32(), let lo = u32() else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }

    /// An unsigned integer of `size` bytes (0, 1, 2, 4 or 8; 0 reads nothing and gives 0).
    public mutating func uint(size: Int) -> UInt64? {
        switch size {
        case 0: return 0
        case 1: return u8().map(UInt64.init)
        case 2: return u16().map(UInt64.init)
        case 4: return u32().map(UInt64.init)
        case 8: return u64()
        default: return nil
        }
    }

    public mutating func fourCC() -> FourCC? { u32().map(FourCC.init) }

    public mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, remaining >= n else { return false }
        pos += n
        return true
    }

    /// `n` bytes copied out.
    public mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { pos += n }
        return Array(bytes[pos..<pos + n])
    }

    /// The rest of the range, copied out.
    public mutating func rest() -> [UInt8] {
        defer { pos = end }
        return Array(bytes[pos..<end])
    }

    /// A NUL-terminated UTF-8 string; a string cut by the end of the range is returned without its NUL
    /// (`terminated` tells which, so the writer can reproduce it).
    public mutating func cString() -> (value: String, terminated: Bool)? {
        guard pos <= end else { return nil }
        var i = pos
        while i < end && bytes[i] != 0 { i += 1 }
        let s = String(decoding: bytes[pos..<i], as: UTF8.self)
        if i < end {
            pos = i + 1
            return (s, true)
        }
        pos = end
        return (s, false)
    }
}

/// Converts a file-format integer to `Int`, `nil` when it does not fit.
@inline(__always) func toInt(_ v: UInt64) -> Int? { v <= UInt64(Int.max) ? Int(v) : nil }
