/// One metadata entry as the reader library (exiv2) delivered it, before typing: the one entry type, which
/// Exiv2Bridge fills and Metadata's `EntryDecoder` types. A leaf, so the C wrapper and the pure core share it without
/// either importing the other.
public struct RawEntry: Sendable, Hashable, Codable {
    /// Which metadata family an entry belongs to.
    public enum Family: Sendable, Hashable, Codable { case exif, iptc, xmp }
    public let family: Family
    /// The reader's key ("Exif.Photo.DateTimeOriginal", "Xmp.xmp.Rating", "Iptc.Application2.Keywords").
    public let key: String
    /// The reader's group ("Image", "Photo", "GPSInfo", "Canon", "xmp", "Application2").
    public let group: String
    /// exiv2's IFD name for Exif entries ("IFD0", "Exif", "GPSInfo", …), "" otherwise.
    public let ifd: String
    /// The reader's tag name, or XMP property path.
    public let tagName: String
    /// Numeric tag (Exif/IPTC), 0 for XMP.
    public let tag: UInt16
    /// TIFF type 1–13/16–18 for Exif; exiv2's 0x10000… ids for IPTC/XMP.
    public let typeID: Int
    /// Number of components.
    public let count: Int
    /// Exif/IPTC value bytes in big-endian order (UNDEFINED bytes as stored); XMP items separated by U+001E,
    /// language alternatives as "lang U+001F text".
    public let raw: [UInt8]
    /// The reader's string form; empty for an Exif value of over 64 components that is not ASCII (a DNG colour
    /// table, a MakerNote), whose bytes are in `raw`.
    public let text: String
    /// True for tags the reader decoded from inside a MakerNote.
    public let isMakerNote: Bool

    public init(
        family: Family, key: String, group: String, ifd: String = "", tagName: String, tag: UInt16, typeID: Int,
        count: Int, raw: [UInt8], text: String, isMakerNote: Bool
    ) {
        self.family = family
        self.key = key
        self.group = group
        self.ifd = ifd
        self.tagName = tagName
        self.tag = tag
        self.typeID = typeID
        self.count = count
        self.raw = raw
        self.text = text
        self.isMakerNote = isMakerNote
    }

    /// XMP items: each array element or, for lang-alt, "lang\u{1F}text".
    public var xmpItems: [String] {
        guard family == .xmp, !raw.isEmpty else { return [] }
        return String(decoding: raw, as: UTF8.self).split(separator: "\u{1E}", omittingEmptySubsequences: false)
            .map(String.init)
    }
}
