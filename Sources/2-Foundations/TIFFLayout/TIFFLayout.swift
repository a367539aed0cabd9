import Foundation

/// The structure of a TIFF file (a DNG, most RAWs): its byte order and directories with their entries, read with a
/// bounded walk that never traps on hostile input. It reads where things are, not what they mean: a caller asks an
/// entry's integers, or rewrites an entry in place (`TIFFPatch`).
///
/// The walk follows IFD0's chain and SubIFDs (tag 330) to a depth of 4, at most `maxDirectories` directories of at
/// most `maxEntries` entries each, and visits no offset twice (a loop ends the walk there). It is the one reader of
/// TIFF structure: DNG opcodes, the JPEG XL DNG rewrite, previews, the Exif Orientation of a HEIF's Exif item, the
/// Apple MakerNote and the MPF index all read through it.
public struct TIFFLayout: Sendable {
    public static let maxDirectories = 256
    public static let maxEntries = 4096
    /// SubIFDs followed per directory.
    public static let maxSubIFDs = 64

    public enum ByteOrder: Sendable, Equatable { case little, big }

    /// One 12-byte entry.
    public struct Entry: Sendable, Equatable {
        public let tag: UInt16
        public let type: UInt16
        public let count: Int
        /// Where the entry itself starts.
        public let position: Int
        /// Where its value's bytes start (inside the entry when they fit in 4 bytes).
        public let valueOffset: Int

        /// Bytes per value of the entry's type (1 for an unknown type).
        public var typeSize: Int {
            switch type {
            case 3, 8: return 2
            case 4, 9, 11, 13: return 4
            case 5, 10, 12: return 8
            default: return 1
            }
        }
    }

    /// One IFD.
    public struct Directory: Sendable, Equatable {
        /// Where the IFD starts.
        public let offset: Int
        public let entries: [Entry]
        /// 0 for the chain from IFD0, one more per SubIFD level.
        public let depth: Int

        public subscript(tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }
    }

    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public let order: ByteOrder
    public private(set) var directories: [Directory]
    /// The bytes read (a view, for `Data(bytesNoCopy:)` callers).
    public let bytes: Data

    /// Reads the header and walks the directories.
    /// - Parameter followExif: also walk the Exif IFD (tag 34665) of each directory, after the others.
    /// - Throws: `Unreadable` when `bytes` has no TIFF header or IFD0 cannot be read.
    public init(_ bytes: Data, followExif: Bool = false) throws(Unreadable) {
        try self.init(header: bytes)
        var found: [Directory] = []
        var seen = Set<Int>()
        walk(chain: u32(4).map(Int.init) ?? 0, depth: 0, into: &found, seen: &seen)
        guard !found.isEmpty else { throw Unreadable(description: "IFD0 cannot be read") }
        if followExif {
            for dir in found {
                if let e = dir[34665], let at = integers(e, limit: 1)?.first {
                    walk(chain: at, depth: dir.depth + 1, into: &found, seen: &seen)
                }
            }
        }
        directories = found
    }

    /// Reads the header only; directories are then read one at a time (`directory(at:depth:)`), by a caller that
    /// walks them its own way (CorpusKit's value tree).
    /// - Throws: `Unreadable` when `bytes` has no TIFF header.
    public init(header bytes: Data) throws(Unreadable) {
        let b = bytes.startIndex == 0 ? bytes : Data(bytes)
        guard b.count >= 8 else { throw Unreadable(description: "shorter than a TIFF header") }
        if b[0] == 0x49, b[1] == 0x49, b[2] == 42, b[3] == 0 {
            order = .little
        } else if b[0] == 0x4D, b[1] == 0x4D, b[2] == 0, b[3] == 42 {
            order = .big
        } else {
            throw Unreadable(description: "no TIFF header")
        }
        self.bytes = b
        directories = []
    }

    /// Where IFD0 starts (the header's offset), 0 when it cannot be read.
    public var firstDirectoryOffset: Int { u32(4).map(Int.init) ?? 0 }

    /// The IFD at `offset`: at least one and at most `maxEntries` entries, all inside the file; nil otherwise. The
    /// next-IFD link may be missing after the last directory (some writers end the data there).
    public func directory(at offset: Int, depth: Int = 0) -> Directory? {
        guard offset > 0, let n = u16(offset).map(Int.init), n > 0, n <= Self.maxEntries,
            offset + 2 + 12 * n <= bytes.count
        else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(n)
        for i in 0..<n {
            let e = offset + 2 + 12 * i
            guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { return nil }
            var entry = Entry(tag: tag, type: type, count: Int(count), position: e, valueOffset: e + 8)
            if Int(count) * entry.typeSize > 4 {
                entry = Entry(tag: tag, type: type, count: Int(count), position: e, valueOffset: Int(u32(e + 8) ?? 0))
            }
            entries.append(entry)
        }
        return Directory(offset: offset, entries: entries, depth: depth)
    }

    /// The offset of the IFD after `dir` in its chain; 0 when there is none.
    public func next(after dir: Directory) -> Int { u32(dir.offset + 2 + 12 * dir.entries.count).map(Int.init) ?? 0 }

    private func walk(chain start: Int, depth: Int, into found: inout [Directory], seen: inout Set<Int>) {
        var at = start
        while at > 0, depth <= 4, found.count < Self.maxDirectories, seen.insert(at).inserted {
            guard let dir = directory(at: at, depth: depth) else { return }
            found.append(dir)
            if let sub = dir[330], let offsets = integers(sub, limit: Self.maxSubIFDs) {
                for o in offsets { walk(chain: o, depth: depth + 1, into: &found, seen: &seen) }
            }
            at = next(after: dir)
        }
    }

    /// An entry's values as integers (BYTE, SHORT, LONG, their signed forms and IFD), at most `limit` of them.
    /// - Returns: nil for another type, or values that lie outside the file.
    public func integers(_ e: Entry, limit: Int = 1 << 20) -> [Int]? {
        let size = e.typeSize
        guard [1, 3, 4, 6, 8, 9, 13].contains(e.type), e.count >= 0, e.count <= limit, e.valueOffset >= 0,
            e.valueOffset + e.count * size <= bytes.count
        else { return nil }
        return (0..<e.count).map { i in
            let p = e.valueOffset + i * size
            switch e.type {
            case 1: return Int(bytes[p])
            case 6: return Int(Int8(bitPattern: bytes[p]))
            case 3: return Int(u16(p)!)
            case 8: return Int(Int16(bitPattern: u16(p)!))
            case 9: return Int(Int32(bitPattern: u32(p)!))
            default: return Int(u32(p)!)
            }
        }
    }

    /// The first integer value of `tag` in `dir`, or nil.
    public func integer(_ tag: UInt16, in dir: Directory) -> Int? {
        dir[tag].flatMap { integers($0, limit: 64)?.first }
    }

    /// The bytes of an entry's value (any type), or nil when they lie outside the file.
    public func valueBytes(_ e: Entry) -> Data? {
        let n = e.count * e.typeSize
        guard e.count >= 0, e.valueOffset >= 0, e.valueOffset + n <= bytes.count else { return nil }
        return bytes[e.valueOffset..<(e.valueOffset + n)]
    }

    public func u16(_ o: Int) -> UInt16? {
        guard o >= 0, o + 2 <= bytes.count else { return nil }
        let (a, b) = (UInt16(bytes[o]), UInt16(bytes[o + 1]))
        return order == .little ? a | b << 8 : a << 8 | b
    }

    public func u32(_ o: Int) -> UInt32? {
        guard let x = u16(o), let y = u16(o + 2) else { return nil }
        return order == .little ? UInt32(x) | UInt32(y) << 16 : UInt32(x) << 16 | UInt32(y)
    }
}
