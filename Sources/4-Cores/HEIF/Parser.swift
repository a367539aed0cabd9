import Findings

/// Parses `ftyp` and the `meta` box family into the model (ISO/IEC 14496-12 §8.11, ISO/IEC 23008-12 §9).
struct MetaParser {
    var tree: BoxTreeReader
    var brands: Brands?
    var handler: FourCC?
    var primaryItemID: UInt32?
    var pitmOffset: Int?
    var items: [Item] = []
    var locations: [UInt32: ItemLocation] = [:]
    var ilocLayout: ILocLayout?
    var ilocOffset: Int?
    var propertyBoxes: [PropertyBox] = []
    var associations: [UInt32: [Association]] = [:]
    var associationOrder: [UInt32] = []
    var references: [ItemReference] = []
    var irefVersion: UInt8 = 0
    var groups: [EntityGroup] = []
    var idat: Range<Int>?
    var metaBox: Box?
    var allocated = 0
    var counts = (extents: 0, refs: 0, assoc: 0, entities: 0)

    var bytes: [UInt8] { tree.bytes }
    var limits: Limits { tree.limits }

    mutating func add(_ code: FindingCode, _ message: String, offset: Int?) { tree.add(code, message, offset: offset) }

    /// Counts bytes about to be copied; false (and a finding) once over the limit.
    mutating func allocate(_ n: Int, at offset: Int) -> Bool {
        allocated += n
        if allocated > limits.maxAllocatedBytes {
            tree.limit("allocated bytes (\(limits.maxAllocatedBytes))", offset: offset)
            return false
        }
        return true
    }

    mutating func parse(top: [Box]) {
        if let f = top.first(where: { $0.type == "ftyp" }) {
            var r = ByteReader(bytes, from: f.bodyRange.lowerBound, to: f.bodyRange.upperBound)
            if let major = r.fourCC(), let minor = r.u32() {
                var compat: [FourCC] = []
                while let c = r.fourCC() { compat.append(c) }
                brands = Brands(major: major, minorVersion: minor, compatible: compat)
            } else {
                add(.containerBoxMalformed, "ftyp is shorter than major brand + minor version", offset: f.offset)
            }
            if top.first?.type != "ftyp" {
                add(.containerFtypMissing, "ftyp is not the first box", offset: f.offset)
            }
        } else {
            add(.containerFtypMissing, "no ftyp box", offset: nil)
        }
        let metas = top.filter { $0.type == "meta" }
        if metas.count > 1 {
            add(.containerMetaDuplicate, "\(metas.count) top-level meta boxes", offset: metas[1].offset)
        }
        guard let meta = metas.first else {
            // An image sequence (HEIF §7: a `moov` with a `pict` track) needs no meta; the auditor names it.
            if !top.contains(where: { $0.type == "moov" }) {
                add(.containerMetaMissing, "no top-level meta box", offset: nil)
            }
            return
        }
        metaBox = meta
        var seen: Set<FourCC> = []
        for b in meta.children {
            let once: Set<FourCC> = ["hdlr", "pitm", "iinf", "iloc", "iref", "iprp", "idat", "grpl"]
            if once.contains(b.type) {
                if seen.contains(b.type) {
                    add(.containerBoxDuplicate, "a second '\(b.type)' in meta is ignored", offset: b.offset)
                    continue
                }
                seen.insert(b.type)
            }
            switch b.type {
            case "hdlr": parseHdlr(b)
            case "pitm": parsePitm(b)
            case "iinf": parseIinf(b)
            case "iloc": parseIloc(b)
            case "iref": parseIref(b)
            case "iprp": parseIprp(b)
            case "idat": idat = b.bodyRange
            case "grpl": parseGrpl(b)
            default: break
            }
        }
        if handler != "pict" {
            add(
                .containerHdlrNotPict, handler.map { "meta handler is '\($0)', not 'pict'" } ?? "meta has no hdlr",
                offset: meta.offset)
        }
        if !seen.contains("iinf") { add(.containerIinfMissing, "meta has no iinf", offset: meta.offset) }
    }

    mutating func parseHdlr(_ b: Box) {
        var r = ByteReader(bytes, from: b.bodyRange.lowerBound, to: b.bodyRange.upperBound)
        guard r.skip(8), let t = r.fourCC() else {
            add(.containerBoxMalformed, "hdlr is too short", offset: b.offset)
            return
        }
        handler = t
    }

    mutating func parsePitm(_ b: Box) {
        var r = ByteReader(bytes, from: b.bodyRange.lowerBound, to: b.bodyRange.upperBound)
        guard let v = r.u8(), r.skip(3) else {
            add(.containerBoxMalformed, "pitm is too short", offset: b.offset)
            return
        }
        let id = v == 0 ? r.u16().map(UInt32.init) : r.u32()
        guard let id else {
            add(.containerBoxMalformed, "pitm is too short", offset: b.offset)
            return
        }
        primaryItemID = id
        pitmOffset = b.offset
    }

    mutating func parseIinf(_ b: Box) {
        var seenIDs: Set<UInt32> = []
        for e in b.children where e.type == "infe" {
            if items.count >= limits.maxItems {
                tree.limit("item count (\(limits.maxItems))", offset: e.offset)
                break
            }
            guard let item = parseInfe(e) else { continue }
            if seenIDs.contains(item.id) {
                add(.containerItemDuplicateId, "item id \(item.id) is listed twice", offset: e.offset)
                continue
            }
            seenIDs.insert(item.id)
            items.append(item)
        }
    }

    mutating func parseInfe(_ b: Box) -> Item? {
        var r = ByteReader(bytes, from: b.bodyRange.lowerBound, to: b.bodyRange.upperBound)
        guard let v = r.u8(), let flags = r.u24() else {
            add(.containerBoxMalformed, "infe is too short", offset: b.offset)
            return nil
        }
        guard allocate(b.size, at: b.offset) else { return nil }
        var item = Item(id: 0, type: "mime", hidden: flags & 1 != 0, infeVersion: v, offset: b.offset)
        if v < 2 {
            guard let id = r.u16(), let prot = r.u16() else {
                add(.containerBoxMalformed, "infe v\(v) is too short", offset: b.offset)
                return nil
            }
            item.id = UInt32(id)
            item.protectionIndex = prot
            item.name = r.cString()?.value ?? ""
            item.contentType = r.cString()?.value
            if !r.atEnd { item.contentEncoding = r.cString()?.value }
            return item
        }
        let id: UInt32?
        if v == 2 { id = r.u16().map(UInt32.init) } else { id = r.u32() }
        guard let id, let prot = r.u16(), let t = r.fourCC() else {
            add(.containerBoxMalformed, "infe v\(v) is too short", offset: b.offset)
            return nil
        }
        item.id = id
        item.protectionIndex = prot
        item.type = t
        item.name = r.cString()?.value ?? ""
        if t == "mime" {
            item.contentType = r.cString()?.value
            if !r.atEnd { item.contentEncoding = r.cString()?.value }
        } else if t == "uri " {
            item.uriType = r.cString()?.value
        }
        return item
    }

    mutating func parseIloc(_ b: Box) {
        var r = ByteReader(bytes, from: b.bodyRange.lowerBound, to: b.bodyRange.upperBound)
        ilocOffset = b.offset
        guard let v = r.u8(), r.skip(3), let s1 = r.u8(), let s2 = r.u8() else {
            add(.containerBoxMalformed, "iloc is too short", offset: b.offset)
            return
        }
        guard v <= 2 else {
            add(.containerBoxMalformed, "iloc version \(v) is unknown", offset: b.offset)
            return
        }
        let offSize = Int(s1 >> 4)
        let lenSize = Int(s1 & 15)
        let baseSize = Int(s2 >> 4)
        let idxSize = v >= 1 ? Int(s2 & 15) : 0
        let valid: Set<Int> = [0, 4, 8]
        guard valid.contains(offSize), valid.contains(lenSize), valid.contains(baseSize), valid.contains(idxSize) else {
            add(
                .containerBoxMalformed,
                "iloc field sizes \(offSize)/\(lenSize)/\(baseSize)/\(idxSize) are not 0, 4 or 8",
                offset: b.offset)
            return
        }
        ilocLayout = ILocLayout(
            version: v, offsetSize: offSize, lengthSize: lenSize, baseOffsetSize: baseSize, indexSize: idxSize)
        let count: UInt32? = v < 2 ? r.u16().map(UInt32.init) : r.u32()
        guard let count else {
            add(.containerBoxMalformed, "iloc has no item count", offset: b.offset)
            return
        }
        for _ in 0..<count {
            if locations.count >= limits.maxItems {
                tree.limit("item count (\(limits.maxItems))", offset: r.pos)
                return
            }
            let entryOffset = r.pos
            let id: UInt32? = v < 2 ? r.u16().map(UInt32.init) : r.u32()
            var method: UInt8 = 0
            if v >= 1 {
                guard let m = r.u16() else { return truncatedIloc(b, r.pos) }
                method = UInt8(m & 15)
            }
            guard let id, let dri = r.u16(), let base = r.uint(size: baseSize), let n = r.u16() else {
                return truncatedIloc(b, r.pos)
            }
            counts.extents += Int(n)
            if counts.extents > limits.maxExtents {
                tree.limit("extent count (\(limits.maxExtents))", offset: entryOffset)
                return
            }
            var extents: [Extent] = []
            extents.reserveCapacity(Int(n))
            for _ in 0..<n {
                let idx = idxSize > 0 ? r.uint(size: idxSize) : 0
                guard let idx, let off = r.uint(size: offSize), let len = r.uint(size: lenSize) else {
                    return truncatedIloc(b, r.pos)
                }
                extents.append(Extent(index: idx, offset: off, length: len))
            }
            if locations[id] != nil {
                add(.containerBoxMalformed, "iloc lists item \(id) twice; the first entry is used", offset: entryOffset)
                continue
            }
            locations[id] = ItemLocation(
                itemID: id, constructionMethod: method, dataReferenceIndex: dri, baseOffset: base, extents: extents,
                offset: entryOffset)
        }
    }

    mutating func truncatedIloc(_ b: Box, _ at: Int) {
        add(.containerBoxMalformed, "iloc entries run past the end of the box", offset: at)
    }

    mutating func parseIref(_ b: Box) {
        var r = ByteReader(bytes, from: b.bodyRange.lowerBound, to: b.bodyRange.upperBound)
        guard let v = r.u8() else {
            add(.containerBoxMalformed, "iref is too short", offset: b.offset)
            return
        }
        irefVersion = v
        for c in b.children {
            var cr = ByteReader(bytes, from: c.bodyRange.lowerBound, to: c.bodyRange.upperBound)
            let from: UInt32? = v == 0 ? cr.u16().map(UInt32.init) : cr.u32()
            guard let from, let n = cr.u16() else {
                add(.containerBoxMalformed, "'\(c.type)' reference is too short", offset: c.offset)
                continue
            }
            counts.refs += Int(n)
            if counts.refs > limits.maxReferences {
                tree.limit("reference count (\(limits.maxReferences))", offset: c.offset)
                return
            }
            var to: [UInt32] = []
            to.reserveCapacity(Int(n))
            for _ in 0..<n {
                guard let t = v == 0 ? cr.u16().map(UInt32.init) : cr.u32() else {
                    add(
                        .containerBoxMalformed, "'\(c.type)' reference lists more targets than it holds",
                        offset: c.offset)
                    break
                }
                to.append(t)
            }
            references.append(ItemReference(type: c.type, from: from, to: to, offset: c.offset))
        }
    }

    mutating func parseIprp(_ b: Box) {
        if let ipco = b.child("ipco") {
            for c in ipco.children {
                if propertyBoxes.count >= limits.maxProperties {
                    tree.limit("property count (\(limits.maxProperties))", offset: c.offset)
                    break
                }
                guard allocate(c.size, at: c.offset) else { break }
                if let p = Property.parse(type: c.type, bytes: bytes, body: c.bodyRange) {
                    propertyBoxes.append(PropertyBox(property: p, range: c.range, malformed: false))
                } else {
                    add(.containerPropertyMalformed, "'\(c.type)' property cannot be read", offset: c.offset)
                    propertyBoxes.append(
                        PropertyBox(
                            property: .unknown(type: c.type, body: Array(bytes[c.bodyRange])), range: c.range,
                            malformed: true))
                }
            }
        }
        for ipma in b.children where ipma.type == "ipma" {
            var r = ByteReader(bytes, from: ipma.bodyRange.lowerBound, to: ipma.bodyRange.upperBound)
            guard let v = r.u8(), let flags = r.u24(), let n = r.u32() else {
                add(.containerBoxMalformed, "ipma is too short", offset: ipma.offset)
                continue
            }
            let wide = flags & 1 != 0
            for _ in 0..<n {
                let at = r.pos
                let id: UInt32? = v < 1 ? r.u16().map(UInt32.init) : r.u32()
                guard let id, let count = r.u8() else {
                    add(.containerBoxMalformed, "ipma entries run past the end of the box", offset: at)
                    break
                }
                counts.assoc += Int(count)
                if counts.assoc > limits.maxAssociations {
                    tree.limit("association count (\(limits.maxAssociations))", offset: at)
                    return
                }
                var list: [Association] = []
                var cut = false
                for _ in 0..<count {
                    if wide {
                        guard let x = r.u16() else {
                            cut = true
                            break
                        }
                        list.append(Association(index: Int(x & 0x7FFF), essential: x & 0x8000 != 0))
                    } else {
                        guard let x = r.u8() else {
                            cut = true
                            break
                        }
                        list.append(Association(index: Int(x & 0x7F), essential: x & 0x80 != 0))
                    }
                }
                if cut {
                    add(.containerBoxMalformed, "ipma entries run past the end of the box", offset: at)
                }
                if associations[id] != nil {
                    add(.containerIpmaDuplicateItem, "item \(id) has a second ipma entry; it is ignored", offset: at)
                } else {
                    associations[id] = list
                    associationOrder.append(id)
                }
                if cut { break }
            }
        }
    }

    mutating func parseGrpl(_ b: Box) {
        for g in b.children {
            var r = ByteReader(bytes, from: g.bodyRange.lowerBound, to: g.bodyRange.upperBound)
            guard let v = r.u8(), let flags = r.u24(), let id = r.u32(), let n = r.u32() else {
                add(.containerBoxMalformed, "'\(g.type)' entity group is too short", offset: g.offset)
                continue
            }
            counts.entities += Int(n)
            if counts.entities > limits.maxGroupEntities {
                tree.limit("group entity count (\(limits.maxGroupEntities))", offset: g.offset)
                return
            }
            guard UInt64(n) * 4 <= UInt64(r.remaining) else {
                add(.containerBoxMalformed, "'\(g.type)' group lists \(n) entities but holds fewer", offset: g.offset)
                continue
            }
            var ents: [UInt32] = []
            ents.reserveCapacity(Int(n))
            for _ in 0..<n { ents.append(r.u32()!) }
            guard allocate(r.remaining, at: g.offset) else { return }
            groups.append(
                EntityGroup(
                    type: g.type, id: id, entities: ents, version: v, flags: flags, extra: r.rest(), offset: g.offset))
        }
    }
}
