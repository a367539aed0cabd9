import ColorScience

/// The item graph over the parsed model: which item is what, and how items relate (ISO/IEC 23008-12 §6, §8).
extension HEIFFile {
    /// The Apple HDR gain map auxiliary type (iOS 14.1+).
    public static let appleGainMapURN = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// Alpha auxiliary types (HEVC and MPEG-B).
    public static let alphaURNs: Set<String> = [
        "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
    ]

    /// The primary item, when `pitm` names an existing item.
    public var primaryItem: Item? { primaryItemID.flatMap { item($0) } }

    /// Image items (coded and derived).
    public var imageItems: [Item] { items.filter(\.isImage) }

    /// Thumbnails of `itemID`: items with a `thmb` reference to it.
    public func thumbnails(of itemID: UInt32) -> [UInt32] {
        references(to: itemID, type: "thmb").map(\.from)
    }

    /// The `auxC` URN of an auxiliary image item.
    public func auxiliaryType(of itemID: UInt32) -> String? {
        if case .auxC(let urn, _)? = property("auxC", of: itemID) { return urn }
        return nil
    }

    /// Auxiliary images of `itemID`: items with an `auxl` reference to it, with their `auxC` URN.
    public func auxiliaryImages(of itemID: UInt32) -> [(itemID: UInt32, urn: String?)] {
        references(to: itemID, type: "auxl").map { ($0.from, auxiliaryType(of: $0.from)) }
    }

    /// The Apple HDR gain map of `itemID` (an `auxl` item whose `auxC` is `appleGainMapURN`).
    public func appleGainMap(of itemID: UInt32) -> UInt32? {
        auxiliaryImages(of: itemID).first { $0.urn == HEIFFile.appleGainMapURN }?.itemID
    }

    /// Metadata items describing `itemID`: items with a `cdsc` reference to it, in reference order.
    public func metadataItems(describing itemID: UInt32) -> [UInt32] {
        references(to: itemID, type: "cdsc").map(\.from)
    }

    /// The items a metadata item describes (its `cdsc` targets).
    public func described(by metadataItemID: UInt32) -> [UInt32] {
        references(from: metadataItemID, type: "cdsc").flatMap(\.to)
    }

    /// All Exif items.
    public var exifItems: [UInt32] { items.filter(\.isExif).map(\.id) }
    /// All XMP items.
    public var xmpItems: [UInt32] { items.filter(\.isXMP).map(\.id) }

    /// The bare TIFF bytes ("II*\0" or "MM\0*" onwards) of an Exif item, skipping the 4-byte
    /// exif_tiff_header_offset and what it covers (ISO/IEC 23008-12 Annex A.2.1, e.g. Apple's "Exif\0\0").
    /// - Returns: nil when the item has no payload or no TIFF header is found where the offset says (or, leniently,
    ///   within the first 64 bytes after the offset field).
    public func exifTIFF(of itemID: UInt32) -> [UInt8]? {
        guard let p = payload(of: itemID) else { return nil }
        guard let start = exifTIFFStart(p) else { return nil }
        return Array(p[start...])
    }

    /// Where the TIFF header starts in an Exif item payload; the declared offset first, then a short scan.
    func exifTIFFStart(_ p: [UInt8]) -> Int? {
        func isTIFF(_ i: Int) -> Bool {
            guard i >= 0, i + 4 <= p.count else { return false }
            return (p[i] == 0x49 && p[i + 1] == 0x49 && p[i + 2] == 0x2A && p[i + 3] == 0)
                || (p[i] == 0x4D && p[i + 1] == 0x4D && p[i + 2] == 0 && p[i + 3] == 0x2A)
        }
        guard p.count >= 8 else { return nil }
        let declared = UInt64(p[0]) << 24 | UInt64(p[1]) << 16 | UInt64(p[2]) << 8 | UInt64(p[3])
        if declared < UInt64(p.count), isTIFF(4 + Int(declared)) { return 4 + Int(declared) }
        for i in 0..<min(p.count, 68) where isTIFF(i) { return i }
        return nil
    }

    /// The XMP packet bytes of an XMP item (its payload).
    public func xmp(of itemID: UInt32) -> [UInt8]? {
        guard let it = item(itemID), it.isXMP else { return nil }
        return payload(of: itemID)
    }

    /// The derived-image inputs of `itemID` (its `dimg` targets, in order; the first dimg box only).
    public func derivedInputs(of itemID: UInt32) -> [UInt32] {
        references(from: itemID, type: "dimg").first?.to ?? []
    }

    /// The grid layout of a `grid` item: rows, columns, output size and tiles.
    /// - Returns: nil when the item is not a grid or its payload is not an ImageGrid.
    public func grid(of itemID: UInt32) -> ImageGrid? {
        guard item(itemID)?.type == "grid", let p = payload(of: itemID), let g = ImageGrid.parse(p) else { return nil }
        return ImageGrid(
            rows: g.rows, columns: g.columns, outputWidth: g.width, outputHeight: g.height,
            tiles: derivedInputs(of: itemID),
            largeFields: g.large)
    }

    /// The `tmap` items (ISO 21496-1 tone-map derived images).
    public var toneMapItems: [UInt32] { items.filter { $0.type == "tmap" }.map(\.id) }

    /// The inputs of a `tmap` item: `dimg` [base, gain map].
    /// - Returns: nil unless the item is a tmap with at least two dimg inputs.
    public func toneMapInputs(of itemID: UInt32) -> (base: UInt32, gainMap: UInt32)? {
        guard item(itemID)?.type == "tmap" else { return nil }
        let d = derivedInputs(of: itemID)
        guard d.count >= 2 else { return nil }
        return (d[0], d[1])
    }

    /// The `altr` groups that contain `itemID`.
    public func alternativeGroups(containing itemID: UInt32) -> [EntityGroup] {
        groups.filter { $0.type == "altr" && $0.entities.contains(itemID) }
    }

    /// Width and height from `ispe` (before any transform).
    public func imageSize(of itemID: UInt32) -> (width: UInt32, height: UInt32)? {
        if case .ispe(let w, let h)? = property("ispe", of: itemID) { return (w, h) }
        return nil
    }

    /// Bits per channel: `pixi` when present, else the codec configuration (luma depth), else for a grid its
    /// first tile's.
    public func bitDepth(of itemID: UInt32) -> Int? {
        if case .pixi(let b)? = property("pixi", of: itemID), let f = b.first { return Int(f) }
        switch property("hvcC", of: itemID) {
        case .hvcC(let c)?: return Int(c.bitDepthLuma)
        default: break
        }
        if case .av1C(let c)? = property("av1C", of: itemID) { return c.bitDepth }
        if item(itemID)?.type == "grid", let t = derivedInputs(of: itemID).first, t != itemID {
            if case .pixi(let b)? = property("pixi", of: t), let f = b.first { return Int(f) }
            if case .hvcC(let c)? = property("hvcC", of: t) { return Int(c.bitDepthLuma) }
            if case .av1C(let c)? = property("av1C", of: t) { return c.bitDepth }
        }
        return nil
    }

    /// The chroma format of a coded item or of a grid's first tile (0 4:0:0, 1 4:2:0, 2 4:2:2, 3 4:4:4).
    public func chromaFormat(of itemID: UInt32) -> Int? {
        var id = itemID
        if item(itemID)?.type == "grid", let t = derivedInputs(of: itemID).first { id = t }
        switch property("hvcC", of: id) {
        case .hvcC(let c)?: return Int(c.chromaFormat)
        default: break
        }
        if case .av1C(let c)? = property("av1C", of: id) {
            if c.monochrome { return 0 }
            return c.chromaSubsamplingX ? (c.chromaSubsamplingY ? 1 : 2) : 3
        }
        return nil
    }

    /// The size an image is shown at: its `ispe` after its own `clap` (the cropped size) and `irot` (a quarter turn
    /// swaps the sides), in association order (ISO/IEC 23008-12 §6.5.9, §6.5.10). An `iden`'s `ispe` already is its
    /// input's shown size, so only the item's own transforms count. Nil without `ispe`.
    public func displaySize(of itemID: UInt32) -> (width: UInt32, height: UInt32)? {
        guard case .ispe(var w, var h)? = property("ispe", of: itemID) else { return nil }
        for p in properties(of: itemID) {
            switch p.property {
            case .clap(let c) where c.widthD > 0 && c.heightD > 0:
                (w, h) = (c.widthN / c.widthD, c.heightN / c.heightD)
            case .irot(let q) where q & 1 == 1:
                (w, h) = (h, w)
            default: break
            }
        }
        return (w, h)
    }

    /// The `colr` properties of an item (nclx and/or ICC), in association order.
    public func colours(of itemID: UInt32) -> [Property] {
        properties(of: itemID).map(\.property).filter { $0.type == "colr" }
    }

    /// The effective orientation of an image from its `irot`/`imir` properties, applied in association order
    /// (ISO/IEC 23008-12 §6.5.10, §6.5.12), as the Exif orientation a viewer would apply.
    /// `imir` follows 23008-12 AMD2's `mode` reading, as libheif (1.15 checked by decoding), Apple and current
    /// libavif do: 0 swaps top and bottom, 1 swaps left and right (MPEGGroup/FileFormat#22).
    /// An `iden` item (§6.6.2.2) shows its input transformed once more: its own transforms follow those of the item
    /// it derives from, so a chain iden → iden → coded composes every step (two `irot` 90° make 180°, Exif 3).
    public func orientation(of itemID: UInt32) -> ExifOrientation { transform(of: itemID, depth: 0) }

    /// The transform of `itemID`, composed through `iden` inputs (at most 16 deep: a cycle stops there).
    func transform(of itemID: UInt32, depth: Int) -> ExifOrientation {
        var m = ExifOrientation.identity
        if depth < 16, item(itemID)?.type == "iden", let input = derivedInputs(of: itemID).first {
            m = transform(of: input, depth: depth + 1)
        }
        for p in properties(of: itemID) {
            switch p.property {
            case .irot(let q): m = m.then(ExifOrientation.irot(quarterTurns: Int(q & 3)))
            case .imir(let axis): m = m.then(ExifOrientation.imir(axis: axis))
            default: break
            }
        }
        return m
    }
}

extension ExifOrientation {
    /// `irot`: `q` quarter turns anticlockwise.
    static func irot(quarterTurns q: Int) -> ExifOrientation { ExifOrientation(exif: [1, 8, 3, 6][q & 3]) }
    /// `imir`: axis 0 swaps top and bottom (Exif 4), 1 swaps left and right (Exif 2).
    static func imir(axis: UInt8) -> ExifOrientation { ExifOrientation(exif: axis == 0 ? 4 : 2) }
}

extension HEIFFile {
    /// The `irot`/`imir` properties (in order) that express an EXIF orientation value: rotation first, then mirror.
    /// - Parameter exif: EXIF Orientation 1–8.
    /// - Returns: the properties to associate (essential) after `ispe`; empty for 1.
    public static func transformProperties(forEXIFOrientation exif: Int) -> [Property] {
        let target = ExifOrientation(exif: exif)
        for q in 0..<4 {
            for mirror in [-1, 0, 1] {
                let turned = ExifOrientation.irot(quarterTurns: q)
                let m = mirror < 0 ? turned : turned.then(.imir(axis: UInt8(mirror)))
                if m == target {
                    var out: [Property] = []
                    if q > 0 { out.append(.irot(quarterTurns: UInt8(q))) }
                    if mirror >= 0 { out.append(.imir(axis: UInt8(mirror))) }
                    return out
                }
            }
        }
        return []
    }
}
