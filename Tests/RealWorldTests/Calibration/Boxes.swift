import Foundation

/// A small ISOBMFF/HEIF reader of its own (ISO/IEC 14496-12, 23008-12), independent of Readback's HEIF module, for
/// the calibration's truth and edits: brands, the primary item, its properties through `ipma` (with the byte
/// position of each association), item types and the auxiliary-type URNs. It also clears the primary's `irot` in
/// place, the way a careless rewrite loses it.
struct Boxes {
    struct Box {
        let type: String
        /// Payload start and end (exclusive).
        let start: Int
        let end: Int
    }
    struct Association {
        let index: Int
        /// Where the association's index sits, and its width in bytes (1 or 2).
        let at: Int
        let width: Int
    }

    let bytes: [UInt8]
    private(set) var brands: [String] = []
    private(set) var primary: UInt32?
    private(set) var itemTypes: [UInt32: String] = [:]
    private(set) var properties: [Box] = []
    private(set) var associations: [UInt32: [Association]] = [:]
    /// Item extents (construction method, (offset, length) pairs) from `iloc`.
    private(set) var locations: [UInt32: (method: Int, extents: [(Int, Int)])] = [:]
    /// `dimg` references: derived item → its inputs in order (a grid's tiles).
    private(set) var derived: [UInt32: [UInt32]] = [:]
    private var idat: Box?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        let top = Self.children(bytes, 0, bytes.count)
        if let f = top.first(where: { $0.type == "ftyp" }), f.end - f.start >= 8 {
            brands =
                [Self.fourCC(bytes, f.start)]
                + stride(from: f.start + 8, to: f.end - 3, by: 4).map { Self.fourCC(bytes, $0) }
        }
        guard let meta = top.first(where: { $0.type == "meta" }) else { return }
        for b in Self.children(bytes, meta.start + 4, meta.end) {
            switch b.type {
            case "pitm": primary = bytes[b.start] == 0 ? UInt32(u16(b.start + 4)) : u32(b.start + 4)
            case "iinf": readItemInfo(b)
            case "iprp": readProperties(b)
            case "iloc": readLocations(b)
            case "iref": readReferences(b)
            case "idat": idat = b
            default: break
            }
        }
    }

    private func u16(_ i: Int) -> UInt16 { i + 2 <= bytes.count ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : 0 }
    private func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) << 16 | UInt32(u16(i + 2)) }

    static func fourCC(_ b: [UInt8], _ i: Int) -> String {
        i + 4 <= b.count ? String(decoding: b[i..<(i + 4)], as: UTF8.self) : ""
    }

    /// The boxes in `b[start..<end]`.
    static func children(_ b: [UInt8], _ start: Int, _ end: Int) -> [Box] {
        var out: [Box] = []
        var i = start
        while i + 8 <= end {
            var size = Int(UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]))
            var header = 8
            if size == 1, i + 16 <= end {
                size = b[(i + 8)..<(i + 16)].reduce(0) { $0 << 8 | Int($1) }
                header = 16
            } else if size == 0 {
                size = end - i
            }
            guard size >= header, i + size <= end else { break }
            out.append(Box(type: fourCC(b, i + 4), start: i + header, end: i + size))
            i += size
        }
        return out
    }

    private mutating func readItemInfo(_ b: Box) {
        let entries = bytes[b.start] == 0 ? 6 : 8
        for e in Self.children(bytes, b.start + entries, b.end) where e.type == "infe" && bytes[e.start] >= 2 {
            let v = bytes[e.start]
            let id = v == 2 ? UInt32(u16(e.start + 4)) : u32(e.start + 4)
            let typeAt = v == 2 ? e.start + 8 : e.start + 10
            itemTypes[id] = Self.fourCC(bytes, typeAt)
        }
    }

    private mutating func readProperties(_ b: Box) {
        for c in Self.children(bytes, b.start, b.end) {
            if c.type == "ipco" { properties = Self.children(bytes, c.start, c.end) }
            guard c.type == "ipma" else { continue }
            let version = bytes[c.start]
            let wide = bytes[c.start + 3] & 1 == 1
            var k = c.start + 8
            for _ in 0..<Int(u32(c.start + 4)) {
                guard k + 5 <= c.end else { return }
                let id = version < 1 ? UInt32(u16(k)) : u32(k)
                k += version < 1 ? 2 : 4
                let n = Int(bytes[k])
                k += 1
                for _ in 0..<n {
                    let index = wide ? Int(u16(k)) & 0x7FFF : Int(bytes[k]) & 0x7F
                    associations[id, default: []].append(Association(index: index, at: k, width: wide ? 2 : 1))
                    k += wide ? 2 : 1
                }
            }
        }
    }

    private mutating func readLocations(_ b: Box) {
        let version = bytes[b.start]
        var k = b.start + 4
        func read(_ n: Int) -> Int {
            defer { k += n }
            return n == 0 || k + n > b.end ? 0 : bytes[k..<(k + n)].reduce(0) { $0 << 8 | Int($1) }
        }
        let sizes = read(1)
        let more = read(1)
        let (offsetSize, lengthSize, baseSize) = (sizes >> 4, sizes & 15, more >> 4)
        let indexSize = version == 1 || version == 2 ? more & 15 : 0
        let count = version < 2 ? read(2) : read(4)
        for _ in 0..<count where k < b.end {
            let id = UInt32(version < 2 ? read(2) : read(4))
            let method = version == 1 || version == 2 ? read(2) & 15 : 0
            _ = read(2)
            let base = read(baseSize)
            var extents: [(Int, Int)] = []
            for _ in 0..<read(2) {
                _ = read(indexSize)
                extents.append((base + read(offsetSize), read(lengthSize)))
            }
            locations[id] = (method, extents)
        }
    }

    private mutating func readReferences(_ b: Box) {
        let wide = bytes[b.start] != 0
        for r in Self.children(bytes, b.start + 4, b.end) where r.type == "dimg" {
            let from = wide ? u32(r.start) : UInt32(u16(r.start))
            var k = r.start + (wide ? 4 : 2)
            let n = Int(u16(k))
            k += 2
            derived[from] = (0..<n).map { i in wide ? u32(k + 4 * i) : UInt32(u16(k + 2 * i)) }
        }
    }

    /// An item's bytes (file offsets, or inside `idat`), nil when they are not all in the file.
    func data(of item: UInt32) -> [UInt8]? {
        guard let l = locations[item] else { return nil }
        var out: [UInt8] = []
        for (offset, length) in l.extents {
            let start = l.method == 1 ? (idat?.start ?? -1) + offset : offset
            guard l.method <= 1, start >= 0, start + length <= bytes.count else { return nil }
            out += bytes[start..<(start + length)]
        }
        return out
    }

    /// Everything a HEIF reader's display of the primary depends on: its type, properties (sizes, transforms, codec
    /// configuration, colour) and coded data, and those of a grid's tiles. Two files with the same signature show
    /// the same picture; nil when some data cannot be read.
    var displaySignature: [[UInt8]]? {
        guard let p = primary else { return nil }
        var out: [[UInt8]] = []
        for item in [p] + (derived[p] ?? []) {
            guard let d = data(of: item) else { return nil }
            out.append(Array((itemTypes[item] ?? "?").utf8))
            out += properties(of: item).map { Array(bytes[$0.start..<$0.end]) + Array($0.type.utf8) }
            out.append(d)
        }
        return out
    }

    /// The properties associated with an item, in association order.
    func properties(of item: UInt32) -> [Box] {
        (associations[item] ?? []).compactMap {
            $0.index > 0 && $0.index <= properties.count ? properties[$0.index - 1] : nil
        }
    }

    /// The primary's irot/imir as the Exif Orientation they amount to (1 when none turns).
    var primaryOrientation: Int {
        guard let p = primary else { return 1 }
        // (clockwise quarter turns, mirrored first) as in the Exif numbering; irot is anticlockwise.
        var q = 0
        var m = false
        for b in properties(of: p) {
            if b.type == "irot" {
                q = (q + 4 - Int(bytes[b.start] & 3)) % 4
            } else if b.type == "imir" {
                // Amd 2 `mode`: 0 swaps top and bottom (= mirror left-right, then 180°), 1 swaps left and right.
                q = (4 - q + (bytes[b.start] & 1 == 0 ? 2 : 0)) % 4
                m.toggle()
            }
        }
        let table: [[Int]] = [[1, 6, 3, 8], [2, 7, 4, 5]]
        return table[m ? 1 : 0][q]
    }

    /// The primary's irot property position, nil without a turning one.
    var primaryRotation: (association: Association, box: Box)? {
        guard let p = primary else { return nil }
        for a in associations[p] ?? [] where a.index > 0 && a.index <= properties.count {
            let b = properties[a.index - 1]
            if b.type == "irot", bytes[b.start] & 3 != 0 { return (a, b) }
        }
        return nil
    }

    /// The auxiliary-type URNs of every `auxC` property.
    var auxiliaryTypes: [String] {
        properties.filter { $0.type == "auxC" && $0.end > $0.start + 4 }.map { b in
            let body = bytes[(b.start + 4)..<b.end]
            return String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// A gain map readers use: an auxiliary image whose type names an HDR gain map (Apple's, Samsung's), or an ISO
    /// 21496-1 `tmap` item with the `tmap` brand.
    var hasUsableGainMap: Bool {
        auxiliaryTypes.contains { $0.lowercased().contains("hdrgainmap") }
            || (brands.contains("tmap") && itemTypes.values.contains("tmap"))
    }

    /// The file with the primary's turning irot cleared: its angle set to 0 (`angle0`), or its association's index
    /// set to 0, "no property" (ISO/IEC 23008-12 §9.3.3) (`unassoc`). Nothing moves.
    func clearingRotation(unassociate: Bool) -> [UInt8]? {
        guard let r = primaryRotation else { return nil }
        var b = bytes
        if unassociate {
            for i in 0..<r.association.width { b[r.association.at + i] = 0 }
        } else {
            b[r.box.start] &= 0xFC
        }
        return b
    }
}
