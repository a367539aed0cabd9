/// Big-endian byte output for the box writer.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
    mutating func u24(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
    mutating func u32(_ v: UInt32) {
        bytes.append(UInt8(v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
    mutating func u64(_ v: UInt64) {
        u32(UInt32(v >> 32))
        u32(UInt32(truncatingIfNeeded: v))
    }
    /// An unsigned integer in `size` bytes (0, 2, 4 or 8).
    mutating func uint(_ v: UInt64, size: Int) {
        switch size {
        case 1: u8(UInt8(truncatingIfNeeded: v))
        case 2: u16(UInt16(truncatingIfNeeded: v))
        case 4: u32(UInt32(truncatingIfNeeded: v))
        case 8: u64(v)
        default: break
        }
    }
    mutating func fourCC(_ c: FourCC) { u32(c.rawValue) }
    mutating func fullBoxHeader(_ version: UInt8, _ flags: UInt32) {
        u8(version)
        u24(flags)
    }
    mutating func cString(_ s: String) {
        bytes.append(contentsOf: Array(s.utf8))
        bytes.append(0)
    }
    mutating func append<C: Collection>(_ c: C) where C.Element == UInt8 { bytes.append(contentsOf: c) }

    /// A complete box: 32-bit size (64-bit `largesize` when needed), type, body.
    static func box(_ type: FourCC, _ body: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.reserveCapacity(body.count + 16)
        if body.count + 8 <= Int(UInt32.max) {
            w.u32(UInt32(body.count + 8))
            w.fourCC(type)
        } else {
            w.u32(1)
            w.fourCC(type)
            w.u64(UInt64(body.count + 16))
        }
        w.append(body)
        return w.bytes
    }

    /// A FullBox (version, flags) with `body` after the version/flags word.
    static func fullBox(_ type: FourCC, version: UInt8, flags: UInt32, _ body: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.fullBoxHeader(version, flags)
        w.append(body)
        return box(type, w.bytes)
    }
}
