import Exiv2Bridge
import MetadataEntries

// exiv2's answers cross the worker boundary in a compact binary form, not JSON: a real camera file's document holds
// tens of kilobytes of value bytes (a DNG's colour tables, a MakerNote's arrays), which JSON spells as one number per
// byte and Foundation's coders walk one value at a time; on a 1 MP DNG that was a fifth of the conversion's CPU.
//
// The form, little-endian throughout: a 4-byte tag ("RBXD" for a document, "RBXB" for built metadata), then the
// fields in declaration order. A string or byte run is a u32 length and its bytes; an optional is a u8 (0 absent,
// 1 present) and the value; a list is a u32 count and its items. The parent reads it through `WireReader`, which
// never reads past the end and never reserves more items than the bytes left could hold, so a worker that sends
// garbage costs a refused answer, never the run.

/// Writes the compact form.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(tag: StaticString) { tag.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: Int) {
        precondition(v >= 0 && v <= Int(UInt32.max), "a length the compact form cannot hold")
        withUnsafeBytes(of: UInt32(v).littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func i64(_ v: Int) { withUnsafeBytes(of: Int64(v).littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func run(_ b: [UInt8]) {
        u32(b.count)
        bytes.append(contentsOf: b)
    }
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 {
            u32($0.count)
            bytes.append(contentsOf: $0)
        }
    }
    mutating func strings(_ list: [String]) {
        u32(list.count)
        for s in list { string(s) }
    }
    mutating func optional<T>(_ v: T?, _ write: (inout WireWriter, T) -> Void) {
        guard let v else { return u8(0) }
        u8(1)
        write(&self, v)
    }
}

/// Why an answer in the compact form was refused.
struct WireError: Error, CustomStringConvertible {
    let what: String
    var description: String { "an exiv2 answer that does not read: \(what)" }
}

/// Reads the compact form from memory it does not own; bounded by `bytes.count` at every step.
struct WireReader {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    /// Checks the 4-byte tag at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer, tag: StaticString) throws(WireError) {
        self.bytes = bytes
        let want = tag.withUTF8Buffer { Array($0) }
        guard bytes.count >= want.count, Array(bytes[0..<want.count]) == want else {
            throw WireError(what: "not tagged \(tag)")
        }
        at = want.count
    }

    var isAtEnd: Bool { at == bytes.count }

    private mutating func take(_ n: Int) throws(WireError) -> UnsafeRawBufferPointer {
        guard n >= 0, n <= bytes.count - at else { throw WireError(what: "cut short at byte \(at)") }
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)])
    }

    mutating func u8() throws(WireError) -> UInt8 { try take(1)[0] }
    mutating func u16() throws(WireError) -> UInt16 {
        let b = try take(2)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }
    mutating func u32() throws(WireError) -> Int {
        let b = try take(4)
        return (0..<4).reduce(0) { $0 | Int(b[$1]) << (8 * $1) }
    }
    mutating func i64() throws(WireError) -> Int {
        let b = try take(8)
        return Int(Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[$1]) << (8 * UInt64($1)) }))
    }
    mutating func run() throws(WireError) -> [UInt8] { Array(try take(try u32())) }
    mutating func string() throws(WireError) -> String { String(decoding: try take(try u32()), as: UTF8.self) }
    mutating func flag() throws(WireError) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let b: throw WireError(what: "a flag of \(b) at byte \(at - 1)")
        }
    }
    /// A list's count, refused when the bytes left could not hold that many items of at least `minBytes` each.
    mutating func count(minBytes: Int) throws(WireError) -> Int {
        let n = try u32()
        guard n <= (bytes.count - at) / max(1, minBytes) else { throw WireError(what: "a count of \(n) at byte \(at)") }
        return n
    }
    mutating func strings() throws(WireError) -> [String] {
        var out: [String] = []
        for _ in 0..<(try count(minBytes: 4)) { out.append(try string()) }
        return out
    }
}

/// exiv2's document and `exiv2Build`'s answer in the compact form.
enum Exiv2Wire {
    /// The smallest entry: a family byte, 5 string lengths and the value run's, the tag, type and count, the flag.
    static let minEntryBytes = 1 + 6 * 4 + 2 + 8 + 8 + 1

    /// The document, its previews' fields included (their bytes travel apart).
    static func encode(_ doc: Exiv2Document) -> [UInt8] {
        var w = WireWriter(tag: "RBXD")
        w.string(doc.mimeType)
        w.strings(doc.warnings)
        w.optional(doc.byteOrder) { $0.string($1) }
        w.u32(doc.previews.count)
        for p in doc.previews {
            w.string(p.mimeType)
            w.i64(p.width)
            w.i64(p.height)
        }
        w.u32(doc.entries.count)
        for e in doc.entries {
            w.u8(e.family == .exif ? 0 : e.family == .iptc ? 1 : 2)
            for s in [e.key, e.group, e.ifd, e.tagName] { w.string(s) }
            w.u16(e.tag)
            w.i64(e.typeID)
            w.i64(e.count)
            w.run(e.raw)
            w.string(e.text)
            w.u8(e.isMakerNote ? 1 : 0)
        }
        return w.bytes
    }

    /// The document `encode` wrote; its previews carry no bytes.
    static func decodeDocument(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Exiv2Document {
        var r = try WireReader(bytes, tag: "RBXD")
        let mime = try r.string()
        let warnings = try r.strings()
        let byteOrder = try r.flag() ? try r.string() : nil
        var previews: [Exiv2Preview] = []
        for _ in 0..<(try r.count(minBytes: 4 + 16)) {
            let m = try r.string()
            previews.append(.fields(mimeType: m, width: try r.i64(), height: try r.i64(), data: []))
        }
        let n = try r.count(minBytes: minEntryBytes)
        var entries: [RawEntry] = []
        entries.reserveCapacity(n)
        for _ in 0..<n { entries.append(try entry(&r)) }
        guard r.isAtEnd else { throw WireError(what: "bytes after the last entry") }
        return Exiv2Document(
            entries: entries, mimeType: mime, warnings: warnings, byteOrder: byteOrder, previews: previews)
    }

    private static func entry(_ r: inout WireReader) throws(WireError) -> RawEntry {
        let family: RawEntry.Family
        switch try r.u8() {
        case 0: family = .exif
        case 1: family = .iptc
        case 2: family = .xmp
        case let f: throw WireError(what: "a metadata family of \(f)")
        }
        let (key, group, ifd, tagName) = (try r.string(), try r.string(), try r.string(), try r.string())
        let (tag, typeID, count) = (try r.u16(), try r.i64(), try r.i64())
        let (raw, text) = (try r.run(), try r.string())
        return RawEntry(
            family: family, key: key, group: group, ifd: ifd, tagName: tagName, tag: tag, typeID: typeID,
            count: count, raw: raw, text: text, isMakerNote: try r.flag())
    }

    /// `exiv2Build`'s answer.
    static func encode(_ b: BuiltMetadata) -> [UInt8] {
        var w = WireWriter(tag: "RBXB")
        w.optional(b.exif) { w, blob in
            w.run(blob.bytes)
            w.strings(blob.encodingLosses)
        }
        w.optional(b.exifError) { $0.error($1) }
        w.optional(b.xmp) { $0.run($1) }
        w.optional(b.xmpError) { $0.error($1) }
        return w.bytes
    }

    /// The answer `encode` wrote.
    static func decodeBuilt(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> BuiltMetadata {
        var r = try WireReader(bytes, tag: "RBXB")
        var b = BuiltMetadata()
        if try r.flag() { b.exif = ExifBlob(bytes: try r.run(), encodingLosses: try r.strings()) }
        if try r.flag() { b.exifError = try r.error() }
        if try r.flag() { b.xmp = try r.run() }
        if try r.flag() { b.xmpError = try r.error() }
        guard r.isAtEnd else { throw WireError(what: "bytes after the answer") }
        return b
    }
}

extension WireWriter {
    fileprivate mutating func error(_ e: Exiv2Error) {
        string(e.operation)
        optional(e.path) { $0.string($1) }
        string(e.message)
    }
}

extension WireReader {
    fileprivate mutating func error() throws(WireError) -> Exiv2Error {
        let op = try string()
        let path = try flag() ? try string() : nil
        return Exiv2Error(operation: op, path: path, message: try string())
    }
}
