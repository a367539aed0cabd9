@testable import HEIF

/// Hand-written box bytes for the parser tests (big-endian, ISO/IEC 14496-12 layouts).
enum V {
    static func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func u32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func u64(_ v: Int) -> [UInt8] { u32(v >> 32) + u32(v & 0xFFFF_FFFF) }
    static func cc(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func box(_ t: String, _ body: [UInt8]) -> [UInt8] { u32(body.count + 8) + cc(t) + body }
    static func full(_ t: String, _ v: Int, _ flags: Int, _ body: [UInt8]) -> [UInt8] {
        box(t, [UInt8(v)] + Array(u32(flags).dropFirst()) + body)
    }
    static func ftyp(_ major: String = "heic", _ compat: [String] = ["mif1", "heic"]) -> [UInt8] {
        box("ftyp", cc(major) + u32(0) + compat.flatMap(cc))
    }
    static let hdlr = full("hdlr", 0, 0, u32(0) + cc("pict") + u32(0) + u32(0) + u32(0) + [0])
    static func pitm(_ id: Int) -> [UInt8] { full("pitm", 0, 0, u16(id)) }
    static func infe(_ id: Int, _ type: String, hidden: Bool = false, name: String = "", contentType: String? = nil)
        -> [UInt8]
    {
        var b = u16(id) + u16(0) + cc(type) + cc(name) + [0]
        if let contentType { b += cc(contentType) + [0] }
        return full("infe", 2, hidden ? 1 : 0, b)
    }
    static func iinf(_ entries: [[UInt8]]) -> [UInt8] {
        full("iinf", 0, 0, u16(entries.count) + entries.flatMap { $0 })
    }
    static func ispe(_ w: Int, _ h: Int) -> [UInt8] { full("ispe", 0, 0, u32(w) + u32(h)) }
    /// ipma with 7- or 15-bit indices: (item, [(index, essential)]).
    static func ipma(_ entries: [(Int, [(Int, Bool)])], version: Int = 0, wide: Bool = false) -> [UInt8] {
        var b = u32(entries.count)
        for (id, list) in entries {
            b += version == 0 ? u16(id) : u32(id)
            b.append(UInt8(list.count))
            for (i, e) in list {
                if wide { b += u16(i | (e ? 0x8000 : 0)) } else { b.append(UInt8(i | (e ? 0x80 : 0))) }
            }
        }
        return full("ipma", version, wide ? 1 : 0, b)
    }
    static func iprp(_ props: [[UInt8]], _ ipma: [UInt8]) -> [UInt8] {
        box("iprp", box("ipco", props.flatMap { $0 }) + ipma)
    }
    /// iloc: (item, construction method, [(offset, length)]).
    static func iloc(
        _ entries: [(Int, Int, [(Int, Int)])], version: Int = 1, offsetSize: Int = 4, lengthSize: Int = 4,
        baseSize: Int = 0, indexSize: Int = 0, base: Int = 0
    ) -> [UInt8] {
        var b: [UInt8] = [UInt8(offsetSize << 4 | lengthSize), UInt8(baseSize << 4 | (version >= 1 ? indexSize : 0))]
        b += version < 2 ? u16(entries.count) : u32(entries.count)
        func n(_ v: Int, _ s: Int) -> [UInt8] { s == 0 ? [] : s == 4 ? u32(v) : u64(v) }
        for (id, method, extents) in entries {
            b += version < 2 ? u16(id) : u32(id)
            if version >= 1 { b += u16(method) }
            b += u16(0) + n(base, baseSize) + u16(extents.count)
            for (i, (o, l)) in extents.enumerated() {
                if version >= 1 && indexSize > 0 { b += n(i + 1, indexSize) }
                b += n(o, offsetSize) + n(l, lengthSize)
            }
        }
        return full("iloc", version, 0, b)
    }
    static func iref(_ refs: [(String, Int, [Int])], version: Int = 0) -> [UInt8] {
        full(
            "iref", version, 0,
            refs.flatMap { (t, f, to) in
                box(
                    t,
                    (version == 0 ? u16(f) : u32(f)) + u16(to.count) + to.flatMap { version == 0 ? u16($0) : u32($0) })
            })
    }
    static func meta(_ children: [[UInt8]]) -> [UInt8] { full("meta", 0, 0, children.flatMap { $0 }) }

    /// A complete one-image file: ftyp, meta (hdlr, pitm 1, iinf [1 hvc1], iloc → mdat, iprp ispe), mdat.
    static func simpleFile(payload: [UInt8] = [1, 2, 3, 4, 5]) -> [UInt8] {
        let ft = ftyp()
        func build(_ mdatOffset: Int) -> [UInt8] {
            meta([
                hdlr, pitm(1), iinf([infe(1, "hvc1")]), iloc([(1, 0, [(mdatOffset, payload.count)])]),
                iprp([ispe(64, 48)], ipma([(1, [(1, false)])])),
            ])
        }
        let m0 = build(0)
        let off = ft.count + m0.count + 8
        return ft + build(off) + box("mdat", payload)
    }
}
