/// Minimal single-image files, so libheif 1.15 can decode an item from a file it refuses (docs/platform.md).
extension HEIFFile {
    /// A minimal HEIF whose primary item is `itemID` alone: a coded item (codec configuration essential, ispe,
    /// pixi, colr) with its data in mdat, or a `grid` (ImageGrid payload in idat, colr copied from the grid or its
    /// first tile) with its tiles as hidden items. No transforms, no metadata.
    /// - Parameter itemID: a coded image item or a grid of coded tiles.
    /// - Returns: the file bytes, or nil when the item, its codec configuration or a payload is missing, or a grid's
    ///   tile count does not match its rows × columns, or a tile is not a coded image.
    public func standaloneFile(for itemID: UInt32) -> [UInt8]? {
        guard let it = item(itemID) else { return nil }
        let isAV1 =
            it.type == "av01"
            || (it.type == "grid" && derivedInputs(of: itemID).first.flatMap { item($0)?.type } == "av01")
        var b = HEIFBuilder(
            brands: isAV1
                ? Brands(major: "avif", compatible: ["mif1", "avif"])
                : Brands(major: "heic", compatible: ["mif1", "heic"]))
        func codedProps(_ id: UInt32) -> [(Property, essential: Bool)]? {
            var out: [(Property, essential: Bool)] = []
            guard
                let cfg = properties(of: id).first(where: { $0.property.type == "hvcC" || $0.property.type == "av1C" })
            else { return nil }
            out.append((cfg.property, true))
            for p in properties(of: id) where ["ispe", "pixi", "colr"].contains(p.property.type) {
                out.append((p.property, false))
            }
            return out
        }
        if it.type == "grid" {
            guard let g = grid(of: itemID), !g.tiles.isEmpty, g.tiles.count == g.rows * g.columns,
                let gp = payload(of: itemID)
            else { return nil }
            var tiles: [UInt32] = []
            for t in g.tiles {
                // A tile is a coded image: never the grid itself or another derived item (a loop a fuzzer found).
                guard t != itemID, let ti = item(t), ti.isImage, !Item.derivedTypes.contains(ti.type),
                    let props = codedProps(t), let data = payload(of: t)
                else { return nil }
                tiles.append(b.addCodedImage(type: ti.type, properties: props, data: data, hidden: true))
            }
            var gprops: [(Property, essential: Bool)] = [(.ispe(width: g.outputWidth, height: g.outputHeight), false)]
            var colr = colours(of: itemID)
            if colr.isEmpty, let first = g.tiles.first { colr = colours(of: first) }
            for c in colr { gprops.append((c, false)) }
            if case .pixi? = property("pixi", of: itemID), let p = property("pixi", of: itemID) {
                gprops.append((p, false))
            }
            let id = b.addDerivedImage(type: "grid", payload: gp, inputs: tiles, properties: gprops, storage: .idat)
            b.setPrimary(id)
            return b.build()
        }
        guard it.isImage, !Item.derivedTypes.contains(it.type), let props = codedProps(itemID),
            let data = payload(of: itemID)
        else {
            return nil
        }
        let id = b.addCodedImage(type: it.type, properties: props, data: data)
        b.setPrimary(id)
        return b.build()
    }
}
