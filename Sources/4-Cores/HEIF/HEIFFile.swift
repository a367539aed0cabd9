import Findings

/// # The HEIF container layer
///
/// A pure-Swift reader and writer for HEIF/HEIC/AVIF files (ISO/IEC 14496-12 ISOBMFF, ISO/IEC 23008-12 HEIF,
/// ISO 21496-1 `tmap`). It imports no C module.
///
/// Reading — never throws, never traps; problems become `findings`:
/// ```swift
/// let file = HEIFFile(bytes: bytes)                 // or try HEIFFile(contentsOf: path)
/// file.brands?.compatible                           // ftyp
/// file.boxes                                        // top-level box tree (type, offset, size, children)
/// file.primaryItemID, file.items                    // pitm, iinf/infe
/// file.properties(of: id)                           // [AssociatedProperty]: property, essential, ipco index
/// file.references(from: id, type: "dimg")           // iref
/// file.groups                                       // grpl (altr, …)
/// file.payload(of: id)                              // all iloc extents, file offsets or idat, bounded
/// file.findings                                     // [Finding]: code, severity, message, evidence.offset
/// ```
/// The item graph (HEIFFile+ItemGraph.swift): `primaryItem`, `thumbnails(of:)`, `auxiliaryImages(of:)`,
/// `auxiliaryType(of:)`, `metadataItems(describing:)`, `exifTIFF(of:)`, `xmp(of:)`, `grid(of:)`,
/// `toneMapInputs(of:)`, `toneMapItems`, `appleGainMap(of:)`, `orientation(of:)`, `imageSize(of:)`, `bitDepth(of:)`.
///
/// Writing (HEIFWriter.swift, HEIFBuilder.swift):
/// - `file.serialize()` gives back the identical bytes for an unchanged file (boxes are written from their
///   original bytes).
/// - `HEIFBuilder` composes a new file: `addCodedImage`, `addDerivedImage`, `addExif`, `addXMP`,
///   `addReference`, `addEntityGroup`, `setPrimary`, `build()`. `HEIFBuilder(file:)` loads a parsed file for
///   editing (remove or replace items, properties, references, groups, payloads) and rebuilds it.
/// - `file.standaloneFile(for: id)` wraps one coded item (or a grid and its tiles) as the primary of a minimal
///   HEIF that libheif 1.15 decodes even when it refuses the original.
///
/// Orientation: `orientation(of:)` composes `irot`/`imir` in association order into an `ExifOrientation`;
/// `HEIFFile.transformProperties(forEXIFOrientation:)` gives the properties for a value. `imir` 0 swaps top and
/// bottom, 1 swaps left and right, as libheif 1.15 decodes it (all eight checked by decoding with heif-convert).
///
/// Also: `Inspection` (the `readback inspect` view: `text()` and versioned `json()`), `HEIFFuzz.exercise`
/// (what the fuzz target runs on each input).
///
/// Finding codes are the catalogue's `container.*` codes (`FindingCode` in Findings). Limits are in `Limits`
/// (`.default` for real files, `.fuzzing` for hostile input). Reading a file from a path reads it once, whole, into
/// memory.
public struct HEIFFile: Sendable {
    /// The whole file. Payloads are read from it on demand; nothing is copied at parse time.
    public let bytes: [UInt8]
    public let limits: Limits
    /// The `ftyp` brands, nil when there is no readable ftyp.
    public let brands: Brands?
    /// The top-level boxes, with the children of the container boxes.
    public let boxes: [Box]
    /// The meta handler type (`pict` for images).
    public let handler: FourCC?
    /// The `pitm` item id.
    public let primaryItemID: UInt32?
    /// Items in `iinf` order.
    public let items: [Item]
    /// `iloc` entries by item id.
    public let locations: [UInt32: ItemLocation]
    /// How the `iloc` box was written (version and field sizes).
    public let ilocLayout: ILocLayout?
    /// `ipco` properties in order (index 1 is the first).
    public let propertyBoxes: [PropertyBox]
    /// `ipma` associations by item id.
    public let associations: [UInt32: [Association]]
    /// Item ids in `ipma` order.
    public let associationOrder: [UInt32]
    /// `iref` references in file order.
    public let references: [ItemReference]
    /// The `iref` version (0: 16-bit ids, 1: 32-bit).
    public let irefVersion: UInt8
    /// `grpl` entity groups in file order.
    public let groups: [EntityGroup]
    /// The body of `idat`, as a range of `bytes`.
    public let idat: Range<Int>?
    /// The bodies of the top-level `mdat` boxes.
    public let mdat: [Range<Int>]
    /// Everything structurally wrong or noteworthy, in the order found.
    public private(set) var findings: [Finding]

    private let itemIndex: [UInt32: Int]

    /// Parses a file held in memory. Never throws or traps: every problem becomes a finding.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - limits: bounds on nesting, counts and allocation.
    public init(bytes: [UInt8], limits: Limits = .default) {
        self.bytes = bytes
        self.limits = limits
        var tree = BoxTreeReader(bytes: bytes, limits: limits)
        let top = tree.readBoxes(from: 0, to: bytes.count, depth: 0, topLevel: true)
        var p = MetaParser(tree: tree)
        p.parse(top: top)
        boxes = top
        brands = p.brands
        handler = p.handler
        primaryItemID = p.primaryItemID
        items = p.items
        locations = p.locations
        ilocLayout = p.ilocLayout
        propertyBoxes = p.propertyBoxes
        associations = p.associations
        associationOrder = p.associationOrder
        references = p.references
        irefVersion = p.irefVersion
        groups = p.groups
        idat = p.idat
        mdat = top.filter { $0.type == "mdat" }.map(\.bodyRange)
        findings = p.tree.findings
        var idx: [UInt32: Int] = [:]
        for (i, it) in items.enumerated() { idx[it.id] = i }
        itemIndex = idx
        findings += validate(pitmOffset: p.pitmOffset, metaOffset: p.metaBox?.offset)
    }

    /// Reads and parses a file. Only I/O errors throw; format problems become findings.
    /// - Parameters:
    ///   - path: the file path.
    ///   - limits: bounds on nesting, counts and allocation.
    /// - Throws: `HEIFReadError` when the file cannot be read.
    public init(contentsOf path: String, limits: Limits = .default) throws(HEIFReadError) {
        self.init(bytes: try readWholeFile(path), limits: limits)
    }

    /// The item with `id`.
    public func item(_ id: UInt32) -> Item? { itemIndex[id].map { items[$0] } }

    /// The properties associated with `itemID`, in `ipma` order; associations to missing properties are left out.
    /// - Parameter itemID: the item.
    /// - Returns: each property with its essential flag and 1-based ipco index.
    public func properties(of itemID: UInt32) -> [AssociatedProperty] {
        guard let list = associations[itemID] else { return [] }
        var out: [AssociatedProperty] = []
        for a in list where a.index >= 1 && a.index <= propertyBoxes.count {
            out.append(
                AssociatedProperty(
                    property: propertyBoxes[a.index - 1].property, essential: a.essential, index: a.index))
        }
        return out
    }

    /// The first property of `type` associated with `itemID`.
    public func property(_ type: FourCC, of itemID: UInt32) -> Property? {
        properties(of: itemID).first { $0.property.type == type }?.property
    }

    /// References of `type` (any type when nil) from `itemID`.
    public func references(from itemID: UInt32, type: FourCC? = nil) -> [ItemReference] {
        references.filter { $0.from == itemID && (type == nil || $0.type == type) }
    }

    /// References of `type` (any type when nil) that list `itemID` as a target.
    public func references(to itemID: UInt32, type: FourCC? = nil) -> [ItemReference] {
        references.filter { $0.to.contains(itemID) && (type == nil || $0.type == type) }
    }

    /// The absolute file ranges holding `itemID`'s bytes, in extent order (idat extents are mapped into the file).
    /// - Returns: nil when the item has no location, uses an unsupported construction method, or an extent lies
    ///   outside the file or idat.
    public func payloadRanges(of itemID: UInt32) -> [Range<Int>]? {
        guard let loc = locations[itemID], loc.dataReferenceIndex == 0 else { return nil }
        let area: Range<Int>
        switch loc.constructionMethod {
        case 0: area = 0..<bytes.count
        case 1:
            guard let idat else { return nil }
            area = idat
        default: return nil
        }
        var out: [Range<Int>] = []
        out.reserveCapacity(loc.extents.count)
        for e in loc.extents {
            let (s1, o1) = loc.baseOffset.addingReportingOverflow(e.offset)
            guard !o1, let rel = toInt(s1), rel <= area.count else { return nil }
            let start = area.lowerBound + rel
            let len: Int
            if e.length == 0 {
                len = area.upperBound - start
            } else {
                guard let l = toInt(e.length), l <= area.upperBound - start else { return nil }
                len = l
            }
            out.append(start..<(start + len))
        }
        return out
    }

    /// The bytes of `itemID`: all its extents concatenated (ISO/IEC 14496-12 §8.11.3), bounded by
    /// `limits.maxPayloadBytes`.
    /// - Returns: nil when the location is missing, unsupported, out of bounds, or over the limit.
    public func payload(of itemID: UInt32) -> [UInt8]? {
        guard let ranges = payloadRanges(of: itemID) else { return nil }
        var total = 0
        for r in ranges {
            total += r.count
            if total > limits.maxPayloadBytes { return nil }
        }
        if ranges.count == 1 { return Array(bytes[ranges[0]]) }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        for r in ranges { out.append(contentsOf: bytes[r]) }
        return out
    }

    /// Total payload length of `itemID` without copying it.
    public func payloadLength(of itemID: UInt32) -> Int? {
        payloadRanges(of: itemID).map { $0.reduce(0) { $0 + $1.count } }
    }

    /// The idat body bytes.
    public var idatBytes: [UInt8] { idat.map { Array(bytes[$0]) } ?? [] }

    /// True when any finding has error severity.
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
}

/// The file could not be read (I/O only: format problems are findings).
public struct HEIFReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
