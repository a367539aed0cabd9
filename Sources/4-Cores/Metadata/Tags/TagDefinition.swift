import Foundation

/// How much a field matters when it is lost or changed (the diff's policy classes).
public enum Criticality: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Capture time and offset, GPS, make/model/lens, exposure, focal length, orientation.
    case critical
    /// Descriptive fields people rely on (artist, copyright, flash, white balance, ratings, keywords, ...).
    case important
    /// Everything else.
    case informational

    private var rank: Int { self == .critical ? 0 : self == .important ? 1 : 2 }
    public static func < (a: Criticality, b: Criticality) -> Bool { a.rank < b.rank }
}

/// How a tag's bytes are interpreted beyond their TIFF type.
public enum TagKind: String, Sendable, Hashable, Codable {
    /// Decoded from the TIFF type (integers, rationals, ASCII, reals); UNDEFINED becomes a blob.
    case plain
    /// ASCII "YYYY:MM:DD HH:MM:SS" (CIPA DC-008 §4.6.5 DateTime tags).
    case dateTime
    /// Three RATIONALs degrees/minutes/seconds (CIPA DC-008 §4.6.6 GPSLatitude/GPSLongitude); compared as a
    /// coordinate with the policy's tolerance.
    case gpsCoordinate
    /// UNDEFINED[4] ASCII version digits ("0232").
    case version
    /// UNDEFINED text with an 8-byte character-code prefix (UserComment, GPSProcessingMethod, CIPA DC-008 §4.6.5).
    case encodedText
    /// BYTE UCS-2 little-endian text (Windows XP* tags).
    case ucs2
    /// Bytes shown by exiftool as space-separated numbers (ComponentsConfiguration, GPSVersionID, ...).
    case byteList
    /// XMP number written as text: an integer, a fraction "n/d" or a real.
    case number
}

/// What exiftool's ValueConv does to the raw value under `-n` (used by the oracle comparison and the diff display).
public enum ExiftoolConversion: String, Sendable, Hashable, Codable {
    case none
    /// APEX shutter: 2^-v seconds (ShutterSpeedValue).
    case apexShutter
    /// APEX aperture: 2^(v/2) (ApertureValue, MaxApertureValue).
    case apexAperture

    /// The value exiftool shows under `-n` for a raw value.
    public func apply(_ v: Double) -> Double {
        switch self {
        case .none: v
        case .apexShutter: pow(2, -v)
        case .apexAperture: pow(2, v / 2)
        }
    }
}

/// One tag in a table: the exiftool-style group and name, the numeric id (Exif) or property (XMP), the kind,
/// the criticality class and whether a RAW → HEIC conversion is expected to drop or rewrite it.
public struct TagDefinition: Sendable, Hashable, Codable {
    /// exiftool -G1 group: "IFD0", "ExifIFD", "GPS", "InteropIFD", "IFD1", "XMP-xmp", ...
    public let group: String
    /// exiftool tag name: "DateTimeOriginal", "ISO", "Rating".
    public let name: String
    /// Exif tag id; 0 for XMP.
    public let id: UInt16
    /// XMP property name as written in the packet ("Rating", "subject"); "" for Exif.
    public let property: String
    public let kind: TagKind
    public let criticality: Criticality
    /// Expected to disappear or change in a converted file (thumbnail, strips, DNG structure, pixel dimensions).
    public let structural: Bool
    public let conversion: ExiftoolConversion
    /// How two values of the tag compare (same value, rounded, changed); coordinates by default compare in degrees.
    public let rule: ValueRule

    public init(
        group: String, name: String, id: UInt16 = 0, property: String = "", kind: TagKind = .plain,
        criticality: Criticality = .informational, structural: Bool = false, conversion: ExiftoolConversion = .none,
        rule: ValueRule? = nil
    ) {
        self.group = group
        self.name = name
        self.id = id
        self.property = property
        self.kind = kind
        self.criticality = criticality
        self.structural = structural
        self.conversion = conversion
        self.rule = rule ?? (kind == .gpsCoordinate ? .coordinate : .standard)
    }

    /// "IFD0:Make".
    public var key: FieldKey { FieldKey(group: group, name: name) }
}

/// A field's identity: exiftool group and name ("ExifIFD:DateTimeOriginal"). Sorted by group, then name.
public struct FieldKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let group: String
    public let name: String

    public init(group: String, name: String) {
        self.group = group
        self.name = name
    }

    /// Parses "Group:Name".
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        group = String(text[..<colon])
        name = String(text[text.index(after: colon)...])
    }

    public var description: String { "\(group):\(name)" }

    public static func < (a: FieldKey, b: FieldKey) -> Bool {
        let ga = groupRank(a.group)
        let gb = groupRank(b.group)
        if ga != gb { return ga < gb }
        if a.group != b.group { return a.group < b.group }
        return a.name < b.name
    }

    /// Display order of groups: TIFF/Exif IFDs first, then XMP, then the rest.
    static func groupRank(_ g: String) -> Int {
        switch g {
        case "IFD0": return 0
        case "ExifIFD": return 1
        case "GPS": return 2
        case "InteropIFD": return 3
        case "IFD1": return 4
        case "MakerNotes": return 5
        case "Composite": return 6
        default: return g.hasPrefix("XMP") ? 7 : g.hasPrefix("IPTC") ? 8 : 9
        }
    }
}
