/// The `ftyp` brands (ISO/IEC 14496-12 §4.3).
public struct Brands: Sendable, Hashable, Codable {
    public var major: FourCC
    public var minorVersion: UInt32
    public var compatible: [FourCC]
    public init(major: FourCC, minorVersion: UInt32 = 0, compatible: [FourCC]) {
        self.major = major
        self.minorVersion = minorVersion
        self.compatible = compatible
    }
    /// True when `brand` is the major brand or a compatible brand.
    public func contains(_ brand: FourCC) -> Bool { major == brand || compatible.contains(brand) }
}

/// One item from `iinf`/`infe` (ISO/IEC 14496-12 §8.11.6, ISO/IEC 23008-12 §6.4).
public struct Item: Sendable, Hashable {
    public var id: UInt32
    /// item_type (`hvc1`, `av01`, `grid`, `tmap`, `Exif`, `mime`, …); `mime` for infe versions 0 and 1.
    public var type: FourCC
    public var name: String
    /// content_type of a `mime` item (e.g. `application/rdf+xml` for XMP).
    public var contentType: String?
    public var contentEncoding: String?
    /// item_uri_type of a `uri ` item.
    public var uriType: String?
    /// infe flags bit 0: the item is not meant to be displayed by itself.
    public var hidden: Bool
    public var protectionIndex: UInt16
    /// The infe version (0–3).
    public var infeVersion: UInt8
    /// Offset of the infe box in the file (nil for items built in memory).
    public var offset: Int?

    public init(
        id: UInt32, type: FourCC, name: String = "", contentType: String? = nil, contentEncoding: String? = nil,
        uriType: String? = nil, hidden: Bool = false, protectionIndex: UInt16 = 0, infeVersion: UInt8 = 2,
        offset: Int? = nil
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.uriType = uriType
        self.hidden = hidden
        self.protectionIndex = protectionIndex
        self.infeVersion = infeVersion
        self.offset = offset
    }

    /// Coded and derived image item types (ISO/IEC 23008-12 §6.1, §6.6; ISO 21496-1 tmap; AVIF av01).
    public static let imageTypes: Set<FourCC> = [
        "hvc1", "hev1", "av01", "jpeg", "avc1", "vvc1", "unci", "j2k1", "grid", "iovl", "iden", "tmap",
    ]
    /// Derived image types (their payload describes an operation on `dimg` inputs).
    public static let derivedTypes: Set<FourCC> = ["grid", "iovl", "iden", "tmap"]

    /// True for image item types (coded or derived).
    public var isImage: Bool { Item.imageTypes.contains(type) }
    /// True for an Exif metadata item.
    public var isExif: Bool { type == "Exif" }
    /// True for an XMP item (`mime` with content type `application/rdf+xml`).
    public var isXMP: Bool { type == "mime" && contentType == "application/rdf+xml" }
}

/// One `iloc` extent: offset and length relative to the item's base offset.
public struct Extent: Sendable, Hashable {
    public var index: UInt64
    public var offset: UInt64
    /// 0 means "to the end of the data" (ISO/IEC 14496-12 §8.11.3.3).
    public var length: UInt64
    public init(index: UInt64 = 0, offset: UInt64, length: UInt64) {
        self.index = index
        self.offset = offset
        self.length = length
    }
}

/// Where one item's bytes are (ISO/IEC 14496-12 §8.11.3 ItemLocationBox entry).
public struct ItemLocation: Sendable, Hashable {
    public var itemID: UInt32
    /// 0 file offset, 1 idat offset, 2 item offset.
    public var constructionMethod: UInt8
    public var dataReferenceIndex: UInt16
    public var baseOffset: UInt64
    public var extents: [Extent]
    /// Offset of this entry inside the iloc box.
    public var offset: Int?
}

/// The field sizes and version an `iloc` box was written with, kept so it can be written back the same way.
public struct ILocLayout: Sendable, Hashable {
    public var version: UInt8
    public var offsetSize: Int
    public var lengthSize: Int
    public var baseOffsetSize: Int
    public var indexSize: Int
}

/// An item reference (ISO/IEC 14496-12 §8.11.12 SingleItemTypeReferenceBox): `from` refers to `to` by `type`.
public struct ItemReference: Sendable, Hashable {
    /// `dimg`, `thmb`, `auxl`, `cdsc`, `base`, `prem`, …
    public var type: FourCC
    public var from: UInt32
    /// The targets, in file order (order matters for `dimg`).
    public var to: [UInt32]
    /// Offset of the reference box in the file.
    public var offset: Int?
    public init(type: FourCC, from: UInt32, to: [UInt32], offset: Int? = nil) {
        self.type = type
        self.from = from
        self.to = to
        self.offset = offset
    }
}

/// An entity group from `grpl` (ISO/IEC 14496-12 §8.18.3 EntityToGroupBox). `altr` lists alternatives,
/// preferred first; other group types are kept as they are (`raw` is the body after version/flags).
public struct EntityGroup: Sendable, Hashable {
    public var type: FourCC
    public var id: UInt32
    public var entities: [UInt32]
    public var version: UInt8
    public var flags: UInt32
    /// Bytes after the entity list (group-type specific), kept to be written back.
    public var extra: [UInt8]
    public var offset: Int?
    public init(
        type: FourCC, id: UInt32, entities: [UInt32], version: UInt8 = 0, flags: UInt32 = 0, extra: [UInt8] = [],
        offset: Int? = nil
    ) {
        self.type = type
        self.id = id
        self.entities = entities
        self.version = version
        self.flags = flags
        self.extra = extra
        self.offset = offset
    }
}

/// One property in `ipco`: the typed value and where its box lies in the file.
public struct PropertyBox: Sendable, Hashable {
    public var property: Property
    /// The box range in the file (nil for properties made in memory).
    public var range: Range<Int>?
    /// True when a known property type could not be read (it is then `.unknown`).
    public var malformed: Bool
}

/// A property associated with an item by `ipma` (ISO/IEC 23008-12 §9.3).
public struct AssociatedProperty: Sendable, Hashable {
    public var property: Property
    /// True when the association is marked essential (readers that do not understand it must not show the item).
    public var essential: Bool
    /// The 1-based index into `ipco`.
    public var index: Int
}

/// One `ipma` association as stored: 1-based property index (0 = none) and essential flag.
public struct Association: Sendable, Hashable {
    public var index: Int
    public var essential: Bool
    public init(index: Int, essential: Bool) {
        self.index = index
        self.essential = essential
    }
}

/// The ImageGrid payload of a `grid` item (ISO/IEC 23008-12 §6.6.2.3) and its tiles.
public struct ImageGrid: Sendable, Hashable {
    public var rows: Int
    public var columns: Int
    public var outputWidth: UInt32
    public var outputHeight: UInt32
    /// The `dimg` inputs of the grid, row by row.
    public var tiles: [UInt32]
    /// True when the payload used 32-bit output sizes.
    public var largeFields: Bool

    /// Parses the ImageGrid payload bytes.
    public static func parse(_ p: [UInt8]) -> (rows: Int, columns: Int, width: UInt32, height: UInt32, large: Bool)? {
        var r = ByteReader(p, from: 0, to: p.count)
        guard let v = r.u8(), v == 0, let flags = r.u8(), let rows = r.u8(), let cols = r.u8() else { return nil }
        let large = flags & 1 != 0
        if large {
            guard let w = r.u32(), let h = r.u32() else { return nil }
            return (Int(rows) + 1, Int(cols) + 1, w, h, true)
        }
        guard let w = r.u16(), let h = r.u16() else { return nil }
        return (Int(rows) + 1, Int(cols) + 1, UInt32(w), UInt32(h), false)
    }

    /// Encodes an ImageGrid payload, with 16-bit sizes when they fit.
    public static func payload(rows: Int, columns: Int, outputWidth: UInt32, outputHeight: UInt32) -> [UInt8] {
        var w = ByteWriter()
        let large = outputWidth > 0xFFFF || outputHeight > 0xFFFF
        w.u8(0)
        w.u8(large ? 1 : 0)
        w.u8(UInt8(clamping: max(rows - 1, 0)))
        w.u8(UInt8(clamping: max(columns - 1, 0)))
        if large {
            w.u32(outputWidth)
            w.u32(outputHeight)
        } else {
            w.u16(UInt16(outputWidth))
            w.u16(UInt16(outputHeight))
        }
        return w.bytes
    }
}
