import ColorScience
import HEIF

/// A coded gain-map image ready to be stored: its codec configuration, bitstream and description.
public struct CodedGainMapImage: Sendable, Hashable {
    /// The item type (`hvc1` for HEVC, `av01` for AV1).
    public var itemType: FourCC
    /// The codec configuration property (`.hvcC` or `.av1C`), stored essential.
    public var codecConfiguration: Property
    /// The bitstream (for HEVC: length-prefixed NAL units, as in the item data of a HEIF).
    public var data: [UInt8]
    /// Width in pixels (`ispe`).
    public var width: UInt32
    /// Height in pixels (`ispe`).
    public var height: UInt32
    /// Bits per channel (`pixi`): [8] for a one-channel map, [8, 8, 8] for three.
    public var bitsPerChannel: [UInt8]
    /// The map's own colour signalling (`colr` nclx); libavif writes primaries and transfer 2 (unspecified),
    /// the matrix and range of its YCbCr coding.
    public var nclx: NCLX
    /// When set, the map is written as a `grid` of these tiles (ISO/IEC 23008-12 §6.6.2.3) instead of one coded item;
    /// `codecConfiguration` and `data` are then those of the first tile, and `width`/`height` the grid's output size.
    public var grid: GainMapGrid?

    /// Describes a coded gain map.
    /// - Parameters:
    ///   - itemType: `hvc1` or `av01`.
    ///   - codecConfiguration: `.hvcC(…)` or `.av1C(…)`.
    ///   - data: the bitstream.
    ///   - width: width in pixels.
    ///   - height: height in pixels.
    ///   - bitsPerChannel: `pixi`.
    ///   - nclx: the map's `colr` (default 2/2/6 full range; use matrix 0 or 6 for monochrome, it is not used).
    public init(
        itemType: FourCC = "hvc1", codecConfiguration: Property, data: [UInt8], width: UInt32, height: UInt32,
        bitsPerChannel: [UInt8] = [8],
        nclx: NCLX = .gainMap
    ) {
        self.itemType = itemType
        self.codecConfiguration = codecConfiguration
        self.data = data
        self.width = width
        self.height = height
        self.bitsPerChannel = bitsPerChannel
        self.nclx = nclx
    }
}

/// The tiles of a gain map coded as an image grid, in raster order, each an independent coded image of
/// `tileWidth` × `tileHeight` (the grid's output size crops the right and bottom ones).
public struct GainMapGrid: Sendable, Hashable {
    public var columns: Int
    public var rows: Int
    public var tileWidth: UInt32
    public var tileHeight: UInt32
    /// Each tile's codec configuration (`hvcC`/`av1C`) and bitstream.
    public var tiles: [Tile]

    public struct Tile: Sendable, Hashable {
        public var codecConfiguration: Property
        public var data: [UInt8]
        public init(codecConfiguration: Property, data: [UInt8]) {
            self.codecConfiguration = codecConfiguration
            self.data = data
        }
    }

    /// Describes a grid of `columns` × `rows` tiles of `tileWidth` × `tileHeight`.
    public init(columns: Int, rows: Int, tileWidth: UInt32, tileHeight: UInt32, tiles: [Tile]) {
        self.columns = columns
        self.rows = rows
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.tiles = tiles
    }
}

/// How the alternate (HDR) rendition described by the `tmap` item is signalled.
public struct AlternateRendition: Sendable, Hashable {
    /// `colr` nclx of the alternate, e.g. 9/16/9 full (BT.2020 PQ) or 12/16/0-style for P3 PQ.
    public var nclx: NCLX?
    /// `colr` ICC profile of the alternate, if any.
    public var icc: [UInt8]?
    /// `pixi` of the alternate (bit depth after applying the map), e.g. [10, 10, 10].
    public var bitsPerChannel: [UInt8]?
    /// `clli` of the alternate (cd/m²), when known.
    public var contentLightLevel: (maxCLL: UInt16, maxPALL: UInt16)?

    /// Describes the alternate rendition.
    public init(
        nclx: NCLX? = NCLX(.bt2020, .pq, .bt2020NCL, fullRange: true),
        icc: [UInt8]? = nil, bitsPerChannel: [UInt8]? = [10, 10, 10],
        contentLightLevel: (maxCLL: UInt16, maxPALL: UInt16)? = nil
    ) {
        self.nclx = nclx
        self.icc = icc
        self.bitsPerChannel = bitsPerChannel
        self.contentLightLevel = contentLightLevel
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.nclx == b.nclx && a.icc == b.icc && a.bitsPerChannel == b.bitsPerChannel
            && a.contentLightLevel?.maxCLL == b.contentLightLevel?.maxCLL
            && a.contentLightLevel?.maxPALL == b.contentLightLevel?.maxPALL
    }
    public func hash(into h: inout Hasher) {
        h.combine(nclx)
        h.combine(icc)
        h.combine(bitsPerChannel)
        h.combine(contentLightLevel?.maxCLL)
        h.combine(contentLightLevel?.maxPALL)
    }
}

/// What `GainMapWriter.add` created.
public struct WrittenGainMap: Sendable, Hashable {
    /// The hidden gain-map image item.
    public var gainMapItemID: UInt32
    /// The `tmap` derived image item.
    public var toneMapItemID: UInt32
    /// The `altr` entity group id.
    public var alternativeGroupID: UInt32
    /// The Apple XMP item (`cdsc` → the gain map), when the Apple view was written.
    public var appleXMPItemID: UInt32?
}

/// Writes a gain map into a file being built, in both forms at once: ISO 21496-1 (`tmap`, ISO/IEC 23008-12
/// AMD 1) and Apple's auxiliary `hdrgainmap`. Every reference is single-target so Debian's libheif 1.15 still
/// opens the file (docs/platform.md, libheif reading): no `cdsc` → `tmap`, no `auxl` → [primary, tmap].
public enum GainMapWriter {
    /// Adds the gain map of `baseItemID`.
    ///
    /// Creates: the hidden gain-map item (codec config essential, `ispe`, `pixi`, `colr` nclx, the base's
    /// `irot`/`imir`, `auxC` Apple URN essential); the `tmap` item (ToneMapImage body in idat; `ispe` = the
    /// base's, the alternate's `colr`, `pixi`, `clli`; no transforms) with ONE `dimg` [base, gain map]; the
    /// `altr` group [tmap, base] with an id no item or group uses; the `tmap` brand; and the Apple view: `auxl`
    /// gain map → base, XMP with HDRGainMapVersion 131072 and HDRGainMapHeadroom by `cdsc` → the gain map.
    /// - Parameters:
    ///   - builder: the file being built; the base item must already be in it.
    ///   - baseItemID: the base (normally the primary) image item.
    ///   - gainMap: the coded gain-map image.
    ///   - metadata: the ISO 21496-1 metadata; validated with `GainMapValidation.validate` before anything is added.
    ///   - alternate: signalling of the alternate rendition for the `tmap` item.
    ///   - appleHeadroom: Apple's linear headroom; nil = 2^alternate_hdr_headroom.
    ///   - appleView: whether to write the Apple auxiliary view (auxl, auxC, XMP).
    /// - Returns: the ids created.
    /// - Throws: `GainMapError.invalidMetadata` when the metadata fails validation; `.invalidInput` when the base
    ///   is missing or has no `ispe`, or the gain map is empty.
    @discardableResult
    public static func add(
        to builder: inout HEIFBuilder, baseItemID: UInt32, gainMap: CodedGainMapImage, metadata: GainMapMetadata,
        alternate: AlternateRendition = AlternateRendition(), appleHeadroom: Double? = nil, appleView: Bool = true
    ) throws(GainMapError) -> WrittenGainMap {
        let body = try ToneMapImage(metadata: metadata).encoded()
        guard let base = builder.entries.first(where: { $0.item.id == baseItemID }) else {
            throw .invalidInput("base item \(baseItemID) is not in the builder")
        }
        guard
            let ispe = base.properties.first(where: {
                if case .ispe = $0.property { return true } else { return false }
            })?.property
        else { throw .invalidInput("base item \(baseItemID) has no ispe") }
        guard !gainMap.data.isEmpty, gainMap.width > 0, gainMap.height > 0 else {
            throw .invalidInput("the gain-map image is empty")
        }
        guard gainMap.codecConfiguration.type == "hvcC" || gainMap.codecConfiguration.type == "av1C" else {
            throw .invalidInput(
                "the gain-map codec configuration must be hvcC or av1C, not \(gainMap.codecConfiguration.type)")
        }
        let headroom = appleHeadroom ?? AppleGainMap.linearHeadroom(fromISO: metadata.alternateHdrHeadroom.doubleValue)
        guard headroom.isFinite, headroom >= 1 else { throw .invalidInput("Apple headroom \(headroom) must be ≥ 1") }

        // 1. The hidden gain-map image (transforms copied from the base so both turn the same way).
        var gmProps: [(Property, essential: Bool)] = [
            (gainMap.codecConfiguration, true), (.ispe(width: gainMap.width, height: gainMap.height), false),
            (.pixi(bitsPerChannel: gainMap.bitsPerChannel), false), (.colrNCLX(gainMap.nclx), false),
        ]
        if appleView { gmProps.append((.auxC(urn: AppleGainMap.auxiliaryURN, subtype: []), true)) }
        for p in base.properties {
            switch p.property {
            case .irot, .imir: gmProps.append((p.property, true))
            default: break
            }
        }
        let gm: UInt32
        if let grid = gainMap.grid {
            // The tiles carry the codec configuration; the grid item the map's size, pixi, colour, auxC, transforms.
            guard (1...256).contains(grid.columns), (1...256).contains(grid.rows),
                grid.tiles.count == grid.columns * grid.rows, grid.tiles.allSatisfy({ !$0.data.isEmpty })
            else { throw .invalidInput("the gain-map grid needs columns × rows (each 1…256) non-empty tiles") }
            let tileProps: [(Property, essential: Bool)] = [
                (.ispe(width: grid.tileWidth, height: grid.tileHeight), false),
                (.pixi(bitsPerChannel: gainMap.bitsPerChannel), false), (.colrNCLX(gainMap.nclx), false),
            ]
            gm =
                builder.addGrid(
                    columns: grid.columns, rows: grid.rows, outputWidth: gainMap.width, outputHeight: gainMap.height,
                    tileType: gainMap.itemType,
                    tiles: grid.tiles.map { ([($0.codecConfiguration, true)] + tileProps, $0.data) },
                    properties: Array(gmProps.dropFirst(2)), hidden: true, name: "GMap"
                ).grid
        } else {
            gm = builder.addCodedImage(
                type: gainMap.itemType, properties: gmProps, data: gainMap.data, hidden: true, name: "GMap")
        }

        // 2. The tmap derived image: ispe = base's, the alternate's colour, no transforms.
        var tProps: [(Property, essential: Bool)] = [(ispe, false)]
        if let n = alternate.nclx { tProps.append((.colrNCLX(n), false)) }
        if let icc = alternate.icc { tProps.append((.colrICC(type: "prof", profile: icc), false)) }
        if let b = alternate.bitsPerChannel { tProps.append((.pixi(bitsPerChannel: b), false)) }
        if let c = alternate.contentLightLevel { tProps.append((.clli(maxCLL: c.maxCLL, maxPALL: c.maxPALL), false)) }
        let tmap = builder.addDerivedImage(
            type: "tmap", payload: body, inputs: [baseItemID, gm], properties: tProps, storage: .idat, name: "GMap")

        // 3. altr [tmap, base] (preferred first) and the brand.
        let group = builder.addEntityGroup(type: "altr", entities: [tmap, baseItemID])
        if !builder.brands.contains("tmap") { builder.brands.compatible.append("tmap") }

        // 4. Apple's view of the same map: auxl → base (single target), XMP by cdsc → the gain-map image.
        var xmp: UInt32? = nil
        if appleView {
            builder.addReference(type: "auxl", from: gm, to: [baseItemID])
            xmp = builder.addXMP(AppleGainMapXMP.packet(headroom: headroom), describing: [gm])
        }
        return WrittenGainMap(gainMapItemID: gm, toneMapItemID: tmap, alternativeGroupID: group, appleXMPItemID: xmp)
    }
}
