/// One metadata field, typed and classified.
public struct Field: Sendable, Hashable, Codable {
    /// exiftool-style identity ("ExifIFD:DateTimeOriginal").
    public let key: FieldKey
    /// Exif tag id (nil for XMP/IPTC).
    public let tagID: UInt16?
    public let value: MetadataValue
    public let criticality: Criticality
    /// Expected to be dropped or rewritten by a conversion (thumbnail, strips, DNG structure, pixel dimensions).
    public let structural: Bool
    /// True when the field is in our tag tables (typed by definition, checked against exiftool).
    public let inTable: Bool
    /// The underlying exiv2 key ("Exif.Photo.DateTimeOriginal").
    public let sourceKey: String

    public init(
        key: FieldKey, tagID: UInt16?, value: MetadataValue, criticality: Criticality, structural: Bool,
        inTable: Bool, sourceKey: String
    ) {
        self.key = key
        self.tagID = tagID
        self.value = value
        self.criticality = criticality
        self.structural = structural
        self.inTable = inTable
        self.sourceKey = sourceKey
    }
}

/// What the MakerNote holds: the vendor (recognised by header or by Make), how many tags exiv2 decoded from it,
/// and the raw blob's size and hash when exiv2 kept it opaque.
public struct MakerNoteInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// "Canon", "Nikon", "Sony", "Apple", ... or nil when unrecognised.
    public let vendor: String?
    /// How the vendor was recognised: "header" or "make".
    public let recognisedBy: String?
    /// Tags exiv2 decoded from inside the MakerNote (0 when kept opaque).
    public let decodedTagCount: Int
    /// The undecoded MakerNote bytes (length + SHA-256), when exiv2 kept it opaque.
    public let blob: BlobDigest?
    /// The MakerNote's size in bytes, parsed or not (for the size note when a rewrite moved its offsets).
    public let length: Int?
    /// The tags exiv2 decoded from inside it ("Canon.ModelID", "NikonAf2.AFAreaMode"), without the pointers and sizes
    /// a rewrite legitimately changes (preview offsets and lengths): what a comparison by content compares.
    public let tags: [String: MetadataValue]
    /// The tags of its embedded preview image ("Nikon3.Preview", "NikonPreview.JPEGInterchangeFormat",
    /// "Pentax.PreviewOffset"): the preview sub-IFD, its pointer, and the offsets, lengths and data of the image. Not
    /// content: an output with its own thumbnail need not carry the camera's preview (docs/policy.md, MakerNote).
    public let previewTags: Set<String>

    public init(
        vendor: String?, recognisedBy: String?, decodedTagCount: Int, blob: BlobDigest?, length: Int? = nil,
        tags: [String: MetadataValue] = [:], previewTags: Set<String> = []
    ) {
        self.vendor = vendor
        self.recognisedBy = recognisedBy
        self.decodedTagCount = decodedTagCount
        self.blob = blob
        self.length = length ?? blob?.length
        self.tags = tags
        self.previewTags = previewTags
    }

    /// The tags stay out of JSON (the diff shows the summary; a Canon MakerNote decodes into hundreds).
    enum CodingKeys: String, CodingKey { case vendor, recognisedBy, decodedTagCount, blob, length }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            vendor: try c.decodeIfPresent(String.self, forKey: .vendor),
            recognisedBy: try c.decodeIfPresent(String.self, forKey: .recognisedBy),
            decodedTagCount: try c.decode(Int.self, forKey: .decodedTagCount),
            blob: try c.decodeIfPresent(BlobDigest.self, forKey: .blob),
            length: try c.decodeIfPresent(Int.self, forKey: .length))
    }

    public var description: String {
        let v = vendor ?? "unrecognised"
        if decodedTagCount > 0 { return "\(v), \(decodedTagCount) tags decoded" }
        if let blob { return "\(v), opaque \(blob.length) bytes" }
        return v
    }

    /// Recognises a MakerNote vendor from its first bytes (the vendor signature most MakerNotes open with).
    public static func vendor(fromHeader bytes: [UInt8]) -> String? {
        let signatures: [(String, String)] = [
            ("Apple iOS", "Apple"), ("Nikon", "Nikon"), ("OLYMPUS", "Olympus"), ("OLYMP", "Olympus"),
            ("OM SYSTEM", "Olympus"), ("FUJIFILM", "Fujifilm"), ("SONY", "Sony"), ("Panasonic", "Panasonic"),
            ("AOC\0", "Pentax"), ("PENTAX", "Pentax"), ("LEICA", "Leica"), ("SIGMA", "Sigma"),
            ("SAMSUNG", "Samsung"), ("KDK", "Kodak"), ("Ricoh", "Ricoh"), ("RICOH", "Ricoh"), ("QVC", "Casio"),
            ("MLT0", "Minolta"), ("GOOGLE", "Google"),
        ]
        for (sig, vendor) in signatures {
            let s = Array(sig.utf8)
            if bytes.count >= s.count, Array(bytes[0..<s.count]) == s { return vendor }
        }
        return nil
    }

    /// Recognises a vendor from the Make tag.
    public static func vendor(fromMake make: String) -> String? {
        let m = make.lowercased()
        let known: [(String, String)] = [
            ("canon", "Canon"), ("nikon", "Nikon"), ("sony", "Sony"), ("fujifilm", "Fujifilm"), ("olympus", "Olympus"),
            ("om digital", "Olympus"), ("panasonic", "Panasonic"), ("pentax", "Pentax"), ("ricoh", "Pentax"),
            ("apple", "Apple"), ("samsung", "Samsung"), ("leica", "Leica"), ("minolta", "Minolta"),
            ("sigma", "Sigma"), ("google", "Google"), ("phase one", "PhaseOne"), ("casio", "Casio"),
        ]
        return known.first { m.contains($0.0) }?.1
    }
}

/// Orientation as the file states it: the Exif Orientation (1–8) and, for HEIF, the effective orientation of the
/// primary image from its `irot`/`imir` properties (ISO/IEC 23008-12 §6.5.10, §6.5.12), which is authoritative there.
public struct OrientationInfo: Sendable, Hashable, Codable {
    /// IFD0:Orientation (CIPA DC-008 §4.6.4 tag 0x0112), nil when absent.
    public var exif: Int?
    /// The EXIF-equivalent orientation of the HEIF primary's irot/imir, nil when the file is not HEIF.
    public var heifTransform: Int?
    /// True when the HEIF primary has any irot/imir property.
    public var hasTransform: Bool
    /// The coded raster's width and height before any turn (HEIF: `ispe`, cropped by `clap`; JPEG: the frame
    /// header), nil when unknown (RAW: LibRaw's sensor size is not read here).
    public var codedWidth: Int?
    public var codedHeight: Int?

    public init(
        exif: Int? = nil, heifTransform: Int? = nil, hasTransform: Bool = false, codedWidth: Int? = nil,
        codedHeight: Int? = nil
    ) {
        self.exif = exif
        self.heifTransform = heifTransform
        self.hasTransform = hasTransform
        self.codedWidth = codedWidth
        self.codedHeight = codedHeight
    }

    /// How a viewer turns the stored pixels: the HEIF transform when the file is HEIF (Exif Orientation is only
    /// informative there), else the Exif Orientation, else 1.
    public var effective: Int {
        if let heifTransform { return heifTransform }
        return exif.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
    }

    /// The double-rotation hazard (libheif#227): a transform that turns or mirrors and an Exif Orientation other than
    /// 1, so readers that apply both turn twice.
    public var doubleRotationHazard: Bool { (heifTransform ?? 1) != 1 && (exif ?? 1) != 1 }
}

/// Everything we read from one file: typed fields sorted by (group, name), MakerNote, orientation, reading notes.
public struct MetadataSet: Sendable, Codable {
    /// The file read.
    public var path: String
    /// What kind of file it was ("heif", "jpeg", "tiff-raw", MIME type for exiv2 reads, "xmp").
    public var format: String
    /// Fields sorted by key; one per key (the first occurrence wins).
    public private(set) var fields: [Field]
    public var makerNote: MakerNoteInfo?
    public var orientation: OrientationInfo
    /// Non-fatal problems met while reading (exiv2 warnings, an unreadable XMP packet, ...).
    public var notes: [String]

    public init(
        path: String, format: String, fields: [Field], makerNote: MakerNoteInfo? = nil,
        orientation: OrientationInfo = OrientationInfo(), notes: [String] = []
    ) {
        self.path = path
        self.format = format
        var seen = Set<FieldKey>()
        self.fields = fields.filter { seen.insert($0.key).inserted }.sorted { $0.key < $1.key }
        self.makerNote = makerNote
        self.orientation = orientation
        self.notes = notes
        if self.orientation.exif == nil, case .integers(let v)? = self["IFD0:Orientation"]?.value, let o = v.first {
            self.orientation.exif = Int(o)
        }
    }

    /// The field for a key, nil when absent.
    public subscript(key: FieldKey) -> Field? { fields.first { $0.key == key } }

    /// The field for "Group:Name", nil when absent.
    public subscript(text: String) -> Field? { FieldKey(text).flatMap { self[$0] } }

    /// Adds fields (from a sidecar or another metadata item); existing keys win.
    public mutating func merge(_ more: [Field]) {
        let have = Set(fields.map(\.key))
        fields = (fields + more.filter { !have.contains($0.key) }).sorted { $0.key < $1.key }
    }

    /// The signed GPS position in decimal degrees from GPS:GPSLatitude/Ref and GPSLongitude/Ref, nil when absent.
    public var gpsPosition: (latitude: Double, longitude: Double)? {
        guard let lat = self["GPS:GPSLatitude"].flatMap({ Self.degrees($0.value) }),
            let lon = self["GPS:GPSLongitude"].flatMap({ Self.degrees($0.value) })
        else { return nil }
        let latRef = self["GPS:GPSLatitudeRef"]?.value.description.uppercased() ?? "N"
        let lonRef = self["GPS:GPSLongitudeRef"]?.value.description.uppercased() ?? "E"
        return (latRef.hasPrefix("S") ? -lat : lat, lonRef.hasPrefix("W") ? -lon : lon)
    }

    /// Decimal degrees from a degrees/minutes/seconds rational triple (or a single number).
    public static func degrees(_ v: MetadataValue) -> Double? {
        guard let n = v.numbers, !n.isEmpty, n.allSatisfy({ $0.isFinite }) else { return nil }
        return n[0] + (n.count > 1 ? n[1] / 60 : 0) + (n.count > 2 ? n[2] / 3600 : 0)
    }
}
