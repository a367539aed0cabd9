import Foundation
import TIFFLayout

/// A small TIFF 6.0 model, writer and bounded reader, enough for DNG 1.4 files and Exif blobs (CIPA DC-008 §4.6).
///
/// Values are typed (`TIFFValue`), never `[String: Any]`; an IFD is a list of entries written sorted by tag
/// (TIFF 6.0 §2 "the entries in an IFD must be sorted in ascending order by Tag"), so output never depends on
/// insertion or hashing order. Child IFDs (Exif, GPS, Interop, SubIFDs) are values, and image data is one strip
/// per IFD whose StripOffsets/StripByteCounts the writer fills in.

/// TIFF field types (TIFF 6.0 §2, plus type 13 IFD from TIFF Technical Note 1).
public enum TIFFType: UInt16, Sendable, Codable {
    case byte = 1
    case ascii = 2
    case short = 3
    case long = 4
    case rational = 5
    case sbyte = 6
    case undefined = 7
    case sshort = 8
    case slong = 9
    case srational = 10
    case float = 11
    case double = 12
    case ifd = 13

    /// Bytes per value.
    public var size: Int {
        switch self {
        case .byte, .ascii, .sbyte, .undefined: return 1
        case .short, .sshort: return 2
        case .long, .slong, .float, .ifd: return 4
        case .rational, .srational, .double: return 8
        }
    }
}

/// Byte order of a TIFF file: "II" little-endian or "MM" big-endian (TIFF 6.0 §2, Image File Header).
public enum TIFFByteOrder: Sendable, Equatable { case little, big }

/// A typed TIFF value.
public indirect enum TIFFValue: Sendable, Equatable {
    case bytes([UInt8])
    /// ASCII text; the writer appends the NUL terminator.
    case ascii(String)
    case shorts([UInt16])
    case longs([UInt32])
    case rationals([UInt32], [UInt32])  // numerators, denominators
    case srationals([Int32], [Int32])
    case undefined([UInt8])
    case sshorts([Int16])
    case slongs([Int32])
    case floats([Float])
    case doubles([Double])
    /// One child IFD written as a LONG offset (Exif, GPS, Interop pointers).
    case ifd(TIFFIFD)
    /// Several child IFDs written as LONG offsets (SubIFDs, tag 330).
    case ifds([TIFFIFD])
    /// A value of a type this model keeps as raw bytes, in the byte order of the file it came from.
    case raw(type: UInt16, count: UInt32, data: [UInt8], order: TIFFByteOrder)

    /// One unsigned rational from a Double, with a fixed denominator.
    public static func rational(_ v: Double, denominator: UInt32 = 10000) -> TIFFValue {
        .rationals([UInt32((v * Double(denominator)).rounded())], [denominator])
    }
    /// Signed rationals from Doubles, with a fixed denominator (ColorMatrix, BaselineExposure).
    public static func srationals(_ vs: [Double], denominator: Int32 = 10000) -> TIFFValue {
        .srationals(
            vs.map { Int32(($0 * Double(denominator)).rounded()) }, Array(repeating: denominator, count: vs.count))
    }

    var type: UInt16 {
        switch self {
        case .bytes: return TIFFType.byte.rawValue
        case .ascii: return TIFFType.ascii.rawValue
        case .shorts: return TIFFType.short.rawValue
        case .longs, .ifd, .ifds: return TIFFType.long.rawValue
        case .rationals: return TIFFType.rational.rawValue
        case .srationals: return TIFFType.srational.rawValue
        case .undefined: return TIFFType.undefined.rawValue
        case .sshorts: return TIFFType.sshort.rawValue
        case .slongs: return TIFFType.slong.rawValue
        case .floats: return TIFFType.float.rawValue
        case .doubles: return TIFFType.double.rawValue
        case .raw(let t, _, _, _): return t
        }
    }

    /// The values of a BYTE, SHORT or LONG value as integers (nil for another type).
    public var integers: [Int]? {
        switch self {
        case .bytes(let v): return v.map(Int.init)
        case .shorts(let v): return v.map(Int.init)
        case .longs(let v): return v.map(Int.init)
        default: return nil
        }
    }

    /// The text of an ASCII value, without trailing NULs.
    public var string: String? {
        if case .ascii(let s) = self { return s }
        return nil
    }
}

/// One IFD: entries plus optional image data written as a single strip.
public struct TIFFIFD: Sendable, Equatable {
    public var entries: [UInt16: TIFFValue]
    /// Pixel data of this IFD; the writer adds StripOffsets (273) and StripByteCounts (279) for it.
    public var imageData: [UInt8]?
    /// Tiles of this IFD, in TIFF order (left to right, top to bottom); the writer adds TileOffsets (324) and
    /// TileByteCounts (325) for them. TileWidth and TileLength are the caller's entries.
    public var tiles: [[UInt8]]? = nil
    /// The next IFD in the chain (IFD0 → IFD1 in Exif).
    public var next: [TIFFIFD]

    public init(entries: [UInt16: TIFFValue] = [:], imageData: [UInt8]? = nil, next: [TIFFIFD] = []) {
        self.entries = entries
        self.imageData = imageData
        self.next = next
    }

    public subscript(tag: UInt16) -> TIFFValue? {
        get { entries[tag] }
        set { entries[tag] = newValue }
    }
}

/// Serialises a TIFF tree.
public struct TIFFWriter {
    public let order: TIFFByteOrder
    private var out: [UInt8] = []
    private var strips: [(patchAt: Int, data: [UInt8])] = []

    public init(order: TIFFByteOrder = .little) { self.order = order }

    /// Writes a whole TIFF file: header, IFD0 (and its chain and children), then image strips.
    /// - Parameter ifd0: the first IFD.
    /// - Returns: the file bytes.
    public static func serialize(_ ifd0: TIFFIFD, order: TIFFByteOrder = .little) -> [UInt8] {
        var w = TIFFWriter(order: order)
        w.out = order == .little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
        w.put32(8)
        w.writeChain([ifd0])
        for (patch, data) in w.strips {
            w.align()
            w.patch32(at: patch, UInt32(w.out.count))
            w.out.append(contentsOf: data)
        }
        return w.out
    }

    private mutating func align() { if out.count % 2 == 1 { out.append(0) } }

    private mutating func put16(_ v: UInt16) {
        if order == .little {
            out += [UInt8(v & 0xFF), UInt8(v >> 8)]
        } else {
            out += [UInt8(v >> 8), UInt8(v & 0xFF)]
        }
    }
    private mutating func put32(_ v: UInt32) {
        if order == .little {
            out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        } else {
            out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
    }
    private mutating func patch32(at p: Int, _ v: UInt32) {
        let b: [UInt8] =
            order == .little
            ? [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
            : [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        for i in 0..<4 { out[p + i] = b[i] }
    }

    private func encode(_ v: TIFFValue) -> (count: UInt32, bytes: [UInt8]) {
        var b: [UInt8] = []
        func p16(_ x: UInt16) {
            b += order == .little ? [UInt8(x & 0xFF), UInt8(x >> 8)] : [UInt8(x >> 8), UInt8(x & 0xFF)]
        }
        func p32(_ x: UInt32) {
            b +=
                order == .little
                ? [UInt8(x & 0xFF), UInt8((x >> 8) & 0xFF), UInt8((x >> 16) & 0xFF), UInt8(x >> 24)]
                : [UInt8(x >> 24), UInt8((x >> 16) & 0xFF), UInt8((x >> 8) & 0xFF), UInt8(x & 0xFF)]
        }
        switch v {
        case .bytes(let a), .undefined(let a): return (UInt32(a.count), a)
        case .ascii(let s):
            let a = Array(s.utf8) + [0]
            return (UInt32(a.count), a)
        case .shorts(let a):
            for x in a { p16(x) }
            return (UInt32(a.count), b)
        case .sshorts(let a):
            for x in a { p16(UInt16(bitPattern: x)) }
            return (UInt32(a.count), b)
        case .longs(let a):
            for x in a { p32(x) }
            return (UInt32(a.count), b)
        case .slongs(let a):
            for x in a { p32(UInt32(bitPattern: x)) }
            return (UInt32(a.count), b)
        case .rationals(let n, let d):
            for i in 0..<min(n.count, d.count) {
                p32(n[i])
                p32(d[i])
            }
            return (UInt32(min(n.count, d.count)), b)
        case .srationals(let n, let d):
            for i in 0..<min(n.count, d.count) {
                p32(UInt32(bitPattern: n[i]))
                p32(UInt32(bitPattern: d[i]))
            }
            return (UInt32(min(n.count, d.count)), b)
        case .floats(let a):
            for x in a { p32(x.bitPattern) }
            return (UInt32(a.count), b)
        case .doubles(let a):
            for x in a {
                let bits = x.bitPattern
                if order == .little {
                    p32(UInt32(bits & 0xFFFF_FFFF))
                    p32(UInt32(bits >> 32))
                } else {
                    p32(UInt32(bits >> 32))
                    p32(UInt32(bits & 0xFFFF_FFFF))
                }
            }
            return (UInt32(a.count), b)
        case .ifd: return (1, [0, 0, 0, 0])
        case .ifds(let a): return (UInt32(a.count), Array(repeating: 0, count: 4 * a.count))
        case .raw(let type, let count, let data, let from):
            let size = TIFFType(rawValue: type)?.size ?? 1
            if from == order || size == 1 { return (count, data) }
            // Swap each unit of the value's natural size (rationals are two LONGs).
            let unit = size == 8 && type != TIFFType.double.rawValue ? 4 : size
            var swapped = data
            var i = 0
            while i + unit <= swapped.count {
                swapped[i..<(i + unit)].reverse()
                i += unit
            }
            return (count, swapped)
        }
    }

    /// Writes a chain of IFDs (each one's `next` continues the chain).
    private mutating func writeChain(_ chain: [TIFFIFD]) {
        var pendingNext: Int? = nil
        for ifd in chain {
            align()
            if let p = pendingNext { patch32(at: p, UInt32(out.count)) }
            pendingNext = writeIFD(ifd)
            if !ifd.next.isEmpty {
                align()
                if let p = pendingNext { patch32(at: p, UInt32(out.count)) }
                pendingNext = nil
                writeChain(ifd.next)
            }
        }
    }

    /// Writes one IFD, its out-of-line values and its child IFDs; returns where its next-IFD offset lives.
    private mutating func writeIFD(_ ifd: TIFFIFD) -> Int {
        var entries = ifd.entries
        var deferred: [UInt16: [UInt8]] = [:]  // tag whose LONG value is the offset of data written at the end
        if let data = ifd.imageData {
            entries[273] = .longs([0])
            entries[279] = .longs([UInt32(data.count)])
            deferred[273] = data
        }
        if let tiles = ifd.tiles {
            entries[324] = .longs(Array(repeating: 0, count: tiles.count))
            entries[325] = .longs(tiles.map { UInt32($0.count) })
        }
        if case .undefined(let thumb)? = entries.removeValue(forKey: TIFFIFD.thumbnailKey) {
            entries[513] = .longs([0])
            entries[514] = .longs([UInt32(thumb.count)])
            deferred[513] = thumb
        }
        let tags = entries.keys.sorted()
        put16(UInt16(tags.count))
        var outOfLine: [(tag: UInt16, patchAt: Int, bytes: [UInt8])] = []
        var valueSlot: [UInt16: Int] = [:]  // where each tag's value (or its offset) is
        for tag in tags {
            let v = entries[tag]!
            let (count, bytes) = encode(v)
            put16(tag)
            put16(v.type)
            put32(count)
            valueSlot[tag] = out.count
            if bytes.count <= 4 {
                out += bytes + Array(repeating: 0, count: 4 - bytes.count)
            } else {
                outOfLine.append((tag, out.count, bytes))
                put32(0)
            }
        }
        let nextAt = out.count
        put32(0)
        for (tag, p, bytes) in outOfLine {
            align()
            valueSlot[tag] = out.count
            patch32(at: p, UInt32(out.count))
            out += bytes
        }
        for tag in tags {
            switch entries[tag]! {
            case .ifd(let child):
                align()
                patch32(at: valueSlot[tag]!, UInt32(out.count))
                writeChain([child])
            case .ifds(let list):
                for (i, child) in list.enumerated() {
                    align()
                    patch32(at: valueSlot[tag]! + 4 * i, UInt32(out.count))
                    writeChain([child])
                }
            default: break
            }
        }
        for tag in deferred.keys.sorted() { strips.append((valueSlot[tag]!, deferred[tag]!)) }
        for (i, tile) in (ifd.tiles ?? []).enumerated() { strips.append((valueSlot[324]! + 4 * i, tile)) }
        return nextAt
    }
}

/// A bounded TIFF reader into a tree of values `TIFFWriter` writes back: never traps on hostile input; returns nil for
/// what it cannot read. Its directories are read by the one TIFF structure reader (`TIFFLayout`); it adds the tree
/// (chains, SubIFDs, the Exif, GPS and interoperability IFDs) and the values. The values it decodes come to at most
/// four times the file's size (entries pointing at the same bytes again and again end the walk), so its time is
/// bounded too.
public struct TIFFReader {
    public let bytes: [UInt8]
    public let order: TIFFByteOrder
    private let layout: TIFFLayout
    /// Value bytes decoded so far (shared by the copies a walk makes).
    private let decoded = Tally()
    /// Tags whose LONG value is a child IFD.
    public static let pointerTags: Set<UInt16> = [34665, 34853, 40965, 330]
    private let maxIFDs = 64

    /// Reads the header; nil when `bytes` is not a TIFF.
    public init?(bytes: [UInt8]) {
        guard let layout = try? TIFFLayout(header: Data(bytes)) else { return nil }
        self.layout = layout
        order = layout.order == .little ? .little : .big
        self.bytes = bytes
    }

    func u16(_ p: Int) -> UInt16? { layout.u16(p) }
    func u32(_ p: Int) -> UInt32? { layout.u32(p) }

    /// Parses IFD0 and its chain and children into a tree that `TIFFWriter` writes back.
    /// Strip and thumbnail data (StripOffsets, JPEGInterchangeFormat) are carried along as data.
    /// - Returns: IFD0, or nil when the first IFD cannot be read.
    public func readTree() -> TIFFIFD? {
        let first = layout.firstDirectoryOffset
        guard first > 0 else { return nil }
        decoded.n = 0
        var visited = Set<Int>()
        return readChain(at: first, visited: &visited)
    }

    private func readChain(at offset: Int, visited: inout Set<Int>) -> TIFFIFD? {
        var chain: [TIFFIFD] = []
        var at = offset
        while at != 0, chain.count < maxIFDs {
            guard let (ifd, next) = readIFD(at: at, visited: &visited) else { break }
            chain.append(ifd)
            at = next
        }
        guard var head = chain.first else { return nil }
        // Rebuild as IFD0.next = [IFD1, IFD2 …] flattened into a linked list of one-element arrays.
        if chain.count > 1 {
            var tail = chain[chain.count - 1]
            for i in stride(from: chain.count - 2, through: 1, by: -1) {
                var c = chain[i]
                c.next = [tail]
                tail = c
            }
            head.next = [tail]
        }
        return head
    }

    private func readIFD(at offset: Int, visited: inout Set<Int>) -> (TIFFIFD, Int)? {
        guard !visited.contains(offset), visited.count < maxIFDs, let dir = layout.directory(at: offset) else {
            return nil
        }
        visited.insert(offset)
        var ifd = TIFFIFD()
        var stripOffsets: [UInt32] = []
        var stripCounts: [UInt32] = []
        var jpegOffset: UInt32? = nil
        var jpegLength: UInt32? = nil
        for entry in dir.entries {
            let (tag, type, count) = (entry.tag, entry.type, UInt32(entry.count))
            let total = entry.count * entry.typeSize
            guard total <= bytes.count else { continue }
            decoded.n += total
            if decoded.n > 4 * bytes.count + 4096 { return nil }
            let dataAt = entry.valueOffset
            guard dataAt >= 0, dataAt + total <= bytes.count else { continue }
            let data = Array(bytes[dataAt..<(dataAt + total)])
            let longs: [UInt32] = {
                if type == TIFFType.long.rawValue || type == TIFFType.ifd.rawValue {
                    return (0..<Int(count)).compactMap { u32(dataAt + 4 * $0) }
                }
                if type == TIFFType.short.rawValue {
                    return (0..<Int(count)).compactMap { u16(dataAt + 2 * $0) }.map(UInt32.init)
                }
                return []
            }()
            if TIFFReader.pointerTags.contains(tag), !longs.isEmpty {
                var kids: [TIFFIFD] = []
                for o in longs {
                    if let k = readChain(at: Int(o), visited: &visited) { kids.append(k) }
                }
                if tag == 330 { ifd[tag] = .ifds(kids) } else if let k = kids.first { ifd[tag] = .ifd(k) }
                continue
            }
            switch tag {
            case 273:
                stripOffsets = longs
                continue
            case 279:
                stripCounts = longs
                continue
            case 513:
                jpegOffset = longs.first
                continue
            case 514:
                jpegLength = longs.first
                continue
            default: break
            }
            ifd[tag] = decode(type: type, count: count, data: data, at: dataAt)
        }
        if !stripOffsets.isEmpty, stripOffsets.count == stripCounts.count {
            var data: [UInt8] = []
            for (o, c) in zip(stripOffsets, stripCounts) {
                let s = Int(o)
                let l = Int(c)
                guard s + l <= bytes.count else { break }
                data += bytes[s..<(s + l)]
            }
            ifd.imageData = data
            if stripOffsets.count > 1, let h = ifd[257] { ifd[278] = h }  // written back as one strip
        }
        if let o = jpegOffset, let l = jpegLength, Int(o) + Int(l) <= bytes.count {
            ifd.thumbnailJPEG = Array(bytes[Int(o)..<(Int(o) + Int(l))])
        }
        return (ifd, layout.next(after: dir))
    }

    private func decode(type: UInt16, count: UInt32, data: [UInt8], at p: Int) -> TIFFValue {
        let n = Int(count)
        switch TIFFType(rawValue: type) {
        case .byte: return .bytes(data)
        case .undefined: return .undefined(data)
        case .ascii:
            var d = data
            while d.last == 0 { d.removeLast() }
            if let s = String(validating: d, as: UTF8.self), !s.contains("\0") { return .ascii(s) }
        case .short: return .shorts((0..<n).compactMap { u16(p + 2 * $0) })
        case .long: return .longs((0..<n).compactMap { u32(p + 4 * $0) })
        case .rational:
            return .rationals((0..<n).compactMap { u32(p + 8 * $0) }, (0..<n).compactMap { u32(p + 8 * $0 + 4) })
        case .srational:
            return .srationals(
                (0..<n).compactMap { u32(p + 8 * $0).map { Int32(bitPattern: $0) } },
                (0..<n).compactMap { u32(p + 8 * $0 + 4).map { Int32(bitPattern: $0) } })
        case .sshort: return .sshorts((0..<n).compactMap { u16(p + 2 * $0).map { Int16(bitPattern: $0) } })
        case .slong: return .slongs((0..<n).compactMap { u32(p + 4 * $0).map { Int32(bitPattern: $0) } })
        default: break
        }
        return .raw(type: type, count: count, data: data, order: order)
    }
}

extension TIFFIFD {
    /// JPEG thumbnail bytes (Exif IFD1 JPEGInterchangeFormat), re-emitted by `TIFFWriter` through tag 513/514.
    public var thumbnailJPEG: [UInt8]? {
        get { if case .undefined(let d)? = entries[TIFFIFD.thumbnailKey] { return d } else { return nil } }
        set { entries[TIFFIFD.thumbnailKey] = newValue.map { .undefined($0) } }
    }
    /// A private key (not a real tag: written as 513/514) under which the thumbnail is kept.
    static let thumbnailKey: UInt16 = 0xFFFF
}

/// A counter shared by a reader's copies: the bytes it has decoded.
private final class Tally {  // one walk uses it, on one thread
    var n = 0
}
