/// Composes a HEIF file from items, properties, references and groups, and writes it (ISO/IEC 23008-12 §9–10).
///
/// Layout written by `build()`: `ftyp`, `meta` (`hdlr` pict, `pitm`, `iinf`, `iloc`, `iref`, `iprp` (`ipco` +
/// `ipma`), `idat`, `grpl`), `mdat`. The smallest box versions and field sizes that hold the values are chosen;
/// identical properties are shared in `ipco`; descriptive properties come before transformative ones, and
/// transformative ones are marked essential (ISO/IEC 23008-12 §6.5.1, MIAF §7.3.6.7).
///
/// ```swift
/// var b = HEIFBuilder()
/// let img = b.addCodedImage(type: "hvc1", properties: [(.hvcC(cfg), true), (.ispe(width: w, height: h), false)], data: hevc)
/// b.setPrimary(img)
/// b.addExif(tiff: tiffBytes, describing: [img])
/// let bytes = b.build()
/// ```
public struct HEIFBuilder: Sendable {
    /// Where an item's payload is stored.
    public enum Storage: Sendable, Hashable {
        /// In `mdat` (iloc construction method 0).
        case mdat
        /// In `idat` (iloc construction method 1), for small derived-image payloads.
        case idat
    }

    /// One property of an item in the builder; `raw` keeps the original box bytes of a property read from a file.
    public struct PropertyEntry: Sendable, Hashable {
        public var property: Property
        public var essential: Bool
        public var raw: [UInt8]?
        public init(_ property: Property, essential: Bool, raw: [UInt8]? = nil) {
            self.property = property
            self.essential = essential
            self.raw = raw
        }
    }

    /// One item in the builder.
    public struct Entry: Sendable, Hashable {
        public var item: Item
        public var properties: [PropertyEntry]
        public var payload: [UInt8]
        public var storage: Storage
    }

    public var brands: Brands
    public private(set) var entries: [Entry] = []
    public private(set) var references: [ItemReference] = []
    public private(set) var groups: [EntityGroup] = []
    /// Properties associated with entity groups by their group id in `ipma` (ISO/IEC 23008-12 §9.3), written after
    /// the items' associations in group-id order.
    public private(set) var groupProperties: [UInt32: [PropertyEntry]] = [:]
    public private(set) var primaryItemID: UInt32?
    private var nextID: UInt32 = 1

    /// An empty file with the given brands (HEIC by default: major `heic`, compatible `mif1`, `heic`).
    public init(brands: Brands = Brands(major: "heic", compatible: ["mif1", "heic"])) {
        self.brands = brands
    }

    /// Loads a parsed file for editing: brands, items (with ids, names, hidden flags), their properties (original
    /// bytes kept), payloads, references, groups and the primary. Boxes the builder does not model (`dinf`, `free`,
    /// `moov`, …) are dropped. Items whose payload cannot be read get an empty payload.
    /// - Parameter file: the parsed file.
    public init(file: HEIFFile) {
        brands = file.brands ?? Brands(major: "heic", compatible: ["mif1", "heic"])
        for it in file.items {
            var props: [PropertyEntry] = []
            for a in file.associations[it.id] ?? [] where a.index >= 1 && a.index <= file.propertyBoxes.count {
                let pb = file.propertyBoxes[a.index - 1]
                props.append(
                    PropertyEntry(pb.property, essential: a.essential, raw: pb.range.map { Array(file.bytes[$0]) }))
            }
            let storage: Storage = file.locations[it.id]?.constructionMethod == 1 ? .idat : .mdat
            var item = it
            item.offset = nil
            entries.append(
                Entry(item: item, properties: props, payload: file.payload(of: it.id) ?? [], storage: storage))
            nextID = max(nextID, it.id &+ 1)
        }
        references = file.references.map {
            var r = $0
            r.offset = nil
            return r
        }
        groups = file.groups.map {
            var g = $0
            g.offset = nil
            return g
        }
        for g in groups { nextID = max(nextID, g.id &+ 1) }
        for g in groups where file.item(g.id) == nil {
            let props = (file.associations[g.id] ?? []).filter { $0.index >= 1 && $0.index <= file.propertyBoxes.count }
            guard !props.isEmpty else { continue }
            groupProperties[g.id] = props.map { a in
                let pb = file.propertyBoxes[a.index - 1]
                return PropertyEntry(pb.property, essential: a.essential, raw: pb.range.map { Array(file.bytes[$0]) })
            }
        }
        primaryItemID = file.primaryItemID
    }

    /// Reserves and returns an unused id (for items or entity groups).
    public mutating func newID() -> UInt32 {
        while entries.contains(where: { $0.item.id == nextID }) || groups.contains(where: { $0.id == nextID })
            || nextID == 0
        {
            nextID &+= 1
        }
        defer { nextID &+= 1 }
        return nextID
    }

    /// Adds any item.
    /// - Parameters:
    ///   - item: the item; its `id` is replaced by a fresh one when 0.
    ///   - properties: (property, essential) in association order.
    ///   - payload: the item's bytes.
    ///   - storage: mdat or idat.
    /// - Returns: the item id.
    @discardableResult
    public mutating func addItem(
        _ item: Item, properties: [(Property, essential: Bool)] = [], payload: [UInt8], storage: Storage = .mdat
    ) -> UInt32 {
        var it = item
        if it.id == 0 { it.id = newID() } else { nextID = max(nextID, it.id &+ 1) }
        it.offset = nil
        entries.append(
            Entry(
                item: it,
                properties: HEIFBuilder.ordered(properties.map { PropertyEntry($0.0, essential: $0.essential) }),
                payload: payload, storage: storage))
        return it.id
    }

    /// Adds a coded image item (`hvc1`, `av01`, …) whose bitstream goes in mdat.
    /// - Parameters:
    ///   - type: the item type.
    ///   - properties: (property, essential); put the codec configuration (essential) and `ispe` here.
    ///   - data: the coded bitstream (length-prefixed NAL units for HEVC).
    ///   - hidden: true for tiles and gain maps.
    ///   - name: the infe item name.
    /// - Returns: the item id.
    @discardableResult
    public mutating func addCodedImage(
        type: FourCC = "hvc1", properties: [(Property, essential: Bool)], data: [UInt8], hidden: Bool = false,
        name: String = ""
    ) -> UInt32 {
        addItem(Item(id: 0, type: type, name: name, hidden: hidden), properties: properties, payload: data)
    }

    /// Adds a derived image item (`grid`, `tmap`, `iden`, `iovl`) and its `dimg` reference to `inputs`.
    /// - Parameters:
    ///   - type: the item type.
    ///   - payload: the item body (ImageGrid, ToneMapImage, …).
    ///   - inputs: the dimg targets in order (grid tiles row by row; tmap [base, gain map]).
    ///   - properties: (property, essential); `ispe` of the output at least.
    ///   - hidden: the infe hidden flag.
    ///   - storage: idat (default) or mdat.
    ///   - name: the infe item name.
    /// - Returns: the item id.
    @discardableResult
    public mutating func addDerivedImage(
        type: FourCC, payload: [UInt8], inputs: [UInt32], properties: [(Property, essential: Bool)],
        hidden: Bool = false,
        storage: Storage = .idat, name: String = ""
    ) -> UInt32 {
        let id = addItem(
            Item(id: 0, type: type, name: name, hidden: hidden), properties: properties, payload: payload,
            storage: storage)
        if !inputs.isEmpty { addReference(type: "dimg", from: id, to: inputs) }
        return id
    }

    /// Adds a `grid` derived image (ISO/IEC 23008-12 §6.6.2.3) over coded tiles: the tiles as hidden items in raster
    /// order, the ImageGrid payload (16-bit output sizes, 32-bit when either exceeds 65535) in idat, `ispe` of the
    /// output size first, then `properties`, and one `dimg` grid → tiles. Identical tile properties (e.g. one
    /// `hvcC` for equal encoder settings) are stored once in `ipco` by `build()`.
    /// - Parameters:
    ///   - columns: tiles per row, 1…256.
    ///   - rows: tile rows, 1…256.
    ///   - outputWidth: the grid's width (≤ columns × tile width; the right tiles' padding is cropped).
    ///   - outputHeight: the grid's height (≤ rows × tile height).
    ///   - tileType: the tiles' item type.
    ///   - tiles: rows × columns tiles, row by row: their properties (codec configuration essential, `ispe` of the
    ///     tile size) and bitstreams.
    ///   - properties: the grid's own properties besides `ispe` (colr, pixi, auxC, …).
    ///   - hidden: the grid's infe hidden flag (true for a gain-map grid).
    ///   - name: the grid's item name.
    /// - Returns: the grid id and the tile ids in raster order.
    @discardableResult
    public mutating func addGrid(
        columns: Int, rows: Int, outputWidth: UInt32, outputHeight: UInt32, tileType: FourCC = "hvc1",
        tiles: [(properties: [(Property, essential: Bool)], data: [UInt8])],
        properties: [(Property, essential: Bool)], hidden: Bool = false, name: String = ""
    ) -> (grid: UInt32, tiles: [UInt32]) {
        precondition((1...256).contains(columns) && (1...256).contains(rows), "grid rows and columns must be 1…256")
        precondition(tiles.count == rows * columns, "a grid needs rows × columns tiles")
        let ids = tiles.map { addCodedImage(type: tileType, properties: $0.properties, data: $0.data, hidden: true) }
        let payload = ImageGrid.payload(
            rows: rows, columns: columns, outputWidth: outputWidth, outputHeight: outputHeight)
        let grid = addDerivedImage(
            type: "grid", payload: payload, inputs: ids,
            properties: [(.ispe(width: outputWidth, height: outputHeight), false)] + properties, hidden: hidden,
            storage: .idat, name: name)
        return (grid, ids)
    }

    /// Adds an Exif item: the 4-byte exif_tiff_header_offset (0) and the bare TIFF bytes (ISO/IEC 23008-12 A.2.1),
    /// with `cdsc` references to `describing`.
    /// - Parameters:
    ///   - tiff: bytes starting with "II*\0" or "MM\0*".
    ///   - describing: the items it describes (one target keeps libheif < 1.18 able to read the file).
    /// - Returns: the item id.
    @discardableResult
    public mutating func addExif(tiff: [UInt8], describing: [UInt32]) -> UInt32 {
        let id = addItem(Item(id: 0, type: "Exif", hidden: true), payload: [0, 0, 0, 0] + tiff)
        if !describing.isEmpty { addReference(type: "cdsc", from: id, to: describing) }
        return id
    }

    /// Adds an XMP item (`mime`, content type `application/rdf+xml`) with `cdsc` references to `describing`.
    /// - Returns: the item id.
    @discardableResult
    public mutating func addXMP(_ packet: [UInt8], describing: [UInt32]) -> UInt32 {
        let id = addItem(Item(id: 0, type: "mime", contentType: "application/rdf+xml", hidden: true), payload: packet)
        if !describing.isEmpty { addReference(type: "cdsc", from: id, to: describing) }
        return id
    }

    /// Adds targets to the reference box of (`type`, `from`), creating it when absent: one box per pair.
    public mutating func addReference(type: FourCC, from: UInt32, to: [UInt32]) {
        if let i = references.firstIndex(where: { $0.type == type && $0.from == from }) {
            references[i].to += to
        } else {
            references.append(ItemReference(type: type, from: from, to: to))
        }
    }

    /// Adds an entity group (e.g. `altr` [tmap, base]).
    /// - Parameters:
    ///   - type: the grouping type.
    ///   - id: the group id; nil picks an id no item or group uses.
    ///   - entities: item ids, preferred first for `altr`.
    /// - Returns: the group id.
    @discardableResult
    public mutating func addEntityGroup(type: FourCC, id: UInt32? = nil, entities: [UInt32]) -> UInt32 {
        let gid = id ?? newID()
        groups.append(EntityGroup(type: type, id: gid, entities: entities))
        return gid
    }

    /// Sets the primary item (`pitm`).
    public mutating func setPrimary(_ id: UInt32?) { primaryItemID = id }

    // MARK: Editing

    /// Removes an item, its properties and payload, the references from it, it as a reference target (empty
    /// reference boxes go), and it from groups. The primary is cleared when it was this item.
    public mutating func removeItem(_ id: UInt32) {
        entries.removeAll { $0.item.id == id }
        references = references.compactMap { r in
            guard r.from != id else { return nil }
            var r = r
            r.to.removeAll { $0 == id }
            return r.to.isEmpty ? nil : r
        }
        for i in groups.indices { groups[i].entities.removeAll { $0 == id } }
        if primaryItemID == id { primaryItemID = nil }
    }

    /// Changes an item's infe fields (type, name, hidden, content type); the id stays.
    public mutating func updateItem(_ id: UInt32, _ change: (inout Item) -> Void) {
        guard let i = entries.firstIndex(where: { $0.item.id == id }) else { return }
        change(&entries[i].item)
        entries[i].item.id = id
    }

    /// Replaces an item's payload.
    public mutating func replacePayload(of id: UInt32, with payload: [UInt8], storage: Storage? = nil) {
        guard let i = entries.firstIndex(where: { $0.item.id == id }) else { return }
        entries[i].payload = payload
        if let storage { entries[i].storage = storage }
    }

    /// Replaces an item's properties exactly as given (order and essential flags kept as they are, so tests and the
    /// corpus mutator can write non-conforming files).
    public mutating func setProperties(of id: UInt32, _ properties: [(Property, essential: Bool)]) {
        guard let i = entries.firstIndex(where: { $0.item.id == id }) else { return }
        entries[i].properties = properties.map { PropertyEntry($0.0, essential: $0.essential) }
    }

    /// Removes the properties of `type` from an item.
    public mutating func removeProperties(_ type: FourCC, of id: UInt32) {
        guard let i = entries.firstIndex(where: { $0.item.id == id }) else { return }
        entries[i].properties.removeAll { $0.property.type == type }
    }

    /// Removes reference boxes of `type` (any when nil) from `from` (any when nil).
    public mutating func removeReferences(type: FourCC? = nil, from: UInt32? = nil) {
        references.removeAll { (type == nil || $0.type == type) && (from == nil || $0.from == from) }
    }

    /// Replaces the whole reference list (order kept; several boxes for one (type, from) are allowed here).
    public mutating func setReferences(_ refs: [ItemReference]) { references = refs }

    /// Removes an entity group and its properties.
    public mutating func removeGroup(id: UInt32) {
        groups.removeAll { $0.id == id }
        groupProperties[id] = nil
    }

    /// Replaces the properties associated with the entity group `id` (none when empty).
    public mutating func setGroupProperties(of id: UInt32, _ properties: [(Property, essential: Bool)]) {
        groupProperties[id] = properties.isEmpty ? nil : properties.map { PropertyEntry($0.0, essential: $0.essential) }
    }

    /// Replaces the whole group list.
    public mutating func setGroups(_ g: [EntityGroup]) { groups = g }

    /// Descriptive properties first, then transformative ones, which are made essential.
    static func ordered(_ props: [PropertyEntry]) -> [PropertyEntry] {
        let descriptive = props.filter { !$0.property.isTransformative }
        let transforms = props.filter { $0.property.isTransformative }.map { p -> PropertyEntry in
            var p = p
            p.essential = true
            return p
        }
        return descriptive + transforms
    }

    // MARK: Writing

    /// Writes the file.
    /// - Returns: ftyp, meta, mdat (mdat only when some payload goes there).
    public func build() -> [UInt8] {
        let ftyp = ByteWriter.box(
            "ftyp", brands.major.bytes + beU32(brands.minorVersion) + brands.compatible.flatMap(\.bytes))
        // Payload layout.
        var mdatBody: [UInt8] = []
        var idatBody: [UInt8] = []
        var placed: [(id: UInt32, method: UInt8, offset: Int, length: Int)] = []
        let mdatTotal = entries.filter { $0.storage == .mdat }.reduce(0) { $0 + $1.payload.count }
        mdatBody.reserveCapacity(mdatTotal)
        for e in entries {
            switch e.storage {
            case .mdat:
                placed.append((e.item.id, 0, mdatBody.count, e.payload.count))
                mdatBody += e.payload
            case .idat:
                placed.append((e.item.id, 1, idatBody.count, e.payload.count))
                idatBody += e.payload
            }
        }
        let mdatHeader = mdatBody.count + 8 > Int(UInt32.max) ? 16 : 8
        let wide = ftyp.count + mdatBody.count + 1_000_000 > Int(UInt32.max)
        let fieldSize = wide ? 8 : 4
        let metaWithoutOffsets = metaBox(placed: placed, idat: idatBody, mdatStart: 0, fieldSize: fieldSize)
        let mdatStart = ftyp.count + metaWithoutOffsets.count + mdatHeader
        let meta = metaBox(placed: placed, idat: idatBody, mdatStart: mdatStart, fieldSize: fieldSize)
        var out = ftyp + meta
        if !mdatBody.isEmpty {
            out.reserveCapacity(out.count + mdatBody.count + 16)
            if mdatHeader == 16 {
                out += beU32(1) + FourCC("mdat").bytes + beU64(UInt64(mdatBody.count + 16))
            } else {
                out += beU32(UInt32(mdatBody.count + 8)) + FourCC("mdat").bytes
            }
            out += mdatBody
        }
        return out
    }

    private func metaBox(
        placed: [(id: UInt32, method: UInt8, offset: Int, length: Int)], idat: [UInt8], mdatStart: Int, fieldSize: Int
    ) -> [UInt8] {
        let maxID = max(entries.map(\.item.id).max() ?? 0, primaryItemID ?? 0, groupProperties.keys.max() ?? 0)
        let bigIDs = maxID > 0xFFFF
        var body: [UInt8] = []
        // hdlr
        body += ByteWriter.fullBox(
            "hdlr", version: 0, flags: 0, beU32(0) + FourCC("pict").bytes + beU32(0) + beU32(0) + beU32(0) + [0])
        // pitm
        if let p = primaryItemID {
            body +=
                p > 0xFFFF
                ? ByteWriter.fullBox("pitm", version: 1, flags: 0, beU32(p))
                : ByteWriter.fullBox("pitm", version: 0, flags: 0, beU16(UInt16(p)))
        }
        // iinf
        var iinf: [UInt8] = entries.count > 0xFFFF ? beU32(UInt32(entries.count)) : beU16(UInt16(entries.count))
        for e in entries { iinf += HEIFBuilder.infe(e.item) }
        body += ByteWriter.fullBox("iinf", version: entries.count > 0xFFFF ? 1 : 0, flags: 0, iinf)
        body += ilocBox(placed: placed, mdatStart: mdatStart, fieldSize: fieldSize, bigIDs: bigIDs)
        if !references.isEmpty { body += irefBox() }
        if entries.contains(where: { !$0.properties.isEmpty }) || !groupProperties.isEmpty {
            body += iprpBox(bigIDs: bigIDs)
        }
        if !idat.isEmpty { body += ByteWriter.box("idat", idat) }
        if !groups.isEmpty { body += grplBox() }
        return ByteWriter.fullBox("meta", version: 0, flags: 0, body)
    }

    /// The item locations: `mdatStart` added to each `mdat` offset, offsets and lengths `fieldSize` bytes wide.
    private func ilocBox(
        placed: [(id: UInt32, method: UInt8, offset: Int, length: Int)], mdatStart: Int, fieldSize: Int, bigIDs: Bool
    ) -> [UInt8] {
        let ilocVersion: UInt8 = bigIDs ? 2 : 1
        var il = ByteWriter()
        il.u8(UInt8(fieldSize << 4 | fieldSize))
        il.u8(0)
        if ilocVersion == 2 { il.u32(UInt32(placed.count)) } else { il.u16(UInt16(placed.count)) }
        for p in placed {
            if ilocVersion == 2 { il.u32(p.id) } else { il.u16(UInt16(p.id)) }
            il.u16(UInt16(p.method))
            il.u16(0)
            if p.length == 0 {
                il.u16(0)
                continue
            }
            il.u16(1)
            let off = p.method == 0 ? mdatStart + p.offset : p.offset
            il.uint(UInt64(off), size: fieldSize)
            il.uint(UInt64(p.length), size: fieldSize)
        }
        return ByteWriter.fullBox("iloc", version: ilocVersion, flags: 0, il.bytes)
    }

    /// The item references, with 32-bit ids when any id needs them.
    private func irefBox() -> [UInt8] {
        let big = references.contains { $0.from > 0xFFFF || $0.to.contains { $0 > 0xFFFF } }
        var w = ByteWriter()
        for r in references {
            var rb = ByteWriter()
            if big { rb.u32(r.from) } else { rb.u16(UInt16(r.from)) }
            rb.u16(UInt16(clamping: r.to.count))
            for t in r.to.prefix(0xFFFF) { if big { rb.u32(t) } else { rb.u16(UInt16(t)) } }
            w.append(ByteWriter.box(r.type, rb.bytes))
        }
        return ByteWriter.fullBox("iref", version: big ? 1 : 0, flags: 0, w.bytes)
    }

    /// The item properties: each distinct property once in `ipco`, and every item's associations in `ipma`.
    private func iprpBox(bigIDs: Bool) -> [UInt8] {
        var ipco: [[UInt8]] = []
        var indexOf: [[UInt8]: Int] = [:]
        var assoc: [(UInt32, [(Int, Bool)])] = []
        let owners =
            entries.filter { !$0.properties.isEmpty }.map { ($0.item.id, $0.properties) }
            + groupProperties.keys.sorted().map { ($0, groupProperties[$0]!) }
        for (owner, properties) in owners {
            var list: [(Int, Bool)] = []
            for p in properties {
                let bytes = p.raw ?? p.property.encoded()
                let idx: Int
                if let i = indexOf[bytes] {
                    idx = i
                } else {
                    ipco.append(bytes)
                    idx = ipco.count
                    indexOf[bytes] = idx
                }
                list.append((idx, p.essential))
            }
            assoc.append((owner, list))
        }
        let wideIdx = ipco.count > 127
        var w = ByteWriter()
        w.u32(UInt32(assoc.count))
        for (id, list) in assoc {
            if bigIDs { w.u32(id) } else { w.u16(UInt16(id)) }
            w.u8(UInt8(clamping: list.count))
            for (i, ess) in list.prefix(255) {
                if wideIdx {
                    w.u16(UInt16(i & 0x7FFF) | (ess ? 0x8000 : 0))
                } else {
                    w.u8(UInt8(i & 0x7F) | (ess ? 0x80 : 0))
                }
            }
        }
        let ipma = ByteWriter.fullBox("ipma", version: bigIDs ? 1 : 0, flags: wideIdx ? 1 : 0, w.bytes)
        return ByteWriter.box("iprp", ByteWriter.box("ipco", ipco.flatMap { $0 }) + ipma)
    }

    /// The entity groups (`altr` and others).
    private func grplBox() -> [UInt8] {
        var g: [UInt8] = []
        for grp in groups {
            var w = ByteWriter()
            w.u32(grp.id)
            w.u32(UInt32(grp.entities.count))
            for x in grp.entities { w.u32(x) }
            w.append(grp.extra)
            g += ByteWriter.fullBox(grp.type, version: grp.version, flags: grp.flags, w.bytes)
        }
        return ByteWriter.box("grpl", g)
    }

    /// An infe box, version 2 (16-bit id) or 3 (32-bit id) (ISO/IEC 14496-12 §8.11.6.2).
    static func infe(_ it: Item) -> [UInt8] {
        var w = ByteWriter()
        let v: UInt8 = it.id > 0xFFFF ? 3 : 2
        if v == 3 { w.u32(it.id) } else { w.u16(UInt16(it.id)) }
        w.u16(it.protectionIndex)
        w.fourCC(it.type)
        w.cString(it.name)
        if it.type == "mime" {
            w.cString(it.contentType ?? "")
            if let enc = it.contentEncoding { w.cString(enc) }
        } else if it.type == "uri " {
            w.cString(it.uriType ?? "")
        }
        return ByteWriter.fullBox("infe", version: v, flags: it.hidden ? 1 : 0, w.bytes)
    }
}

@inline(__always) func beU16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(truncatingIfNeeded: v)] }
@inline(__always) func beU32(_ v: UInt32) -> [UInt8] {
    [
        UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
        UInt8(truncatingIfNeeded: v),
    ]
}
@inline(__always) func beU64(_ v: UInt64) -> [UInt8] { beU32(UInt32(v >> 32)) + beU32(UInt32(truncatingIfNeeded: v)) }
