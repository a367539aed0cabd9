/// The XMP properties we type and classify (XMP Specification Part 1 §8, Part 2 §3; Exif 2.3 for XMP §4;
/// Apple HDRGainMap and apdi namespaces, docs/platform.md). Other properties are still read,
/// as informational text, named the way exiftool names them.
public enum XMPTables {
    private static func x(
        _ prefix: String, _ property: String, _ name: String? = nil, _ c: Criticality = .informational,
        _ kind: TagKind = .plain, structural: Bool = false, print: ValueRule.PrintForm? = nil
    ) -> TagDefinition {
        TagDefinition(
            group: "XMP-\(prefix)", name: name ?? exiftoolName(property), property: property, kind: kind,
            criticality: c, structural: structural, rule: print.map { ValueRule.printed($0) })
    }

    public static let all: [TagDefinition] = [
        // xmp: XMP basic.
        x("xmp", "Rating", nil, .important, .number),
        x("xmp", "Label", nil, .important),
        x("xmp", "CreateDate", nil, .important, .dateTime),
        x("xmp", "ModifyDate", nil, .informational, .dateTime, structural: true),
        x("xmp", "MetadataDate", nil, .informational, .dateTime, structural: true),
        x("xmp", "CreatorTool", nil, .informational, structural: true),
        // dc: Dublin Core.
        x("dc", "subject", nil, .important),
        x("dc", "description", nil, .important),
        x("dc", "title", nil, .important),
        x("dc", "creator", nil, .important),
        x("dc", "rights", nil, .important),
        x("dc", "format", nil, .informational, structural: true),
        // photoshop.
        x("photoshop", "DateCreated", nil, .critical, .dateTime),
        x("photoshop", "City", nil, .important),
        x("photoshop", "State", nil, .important),
        x("photoshop", "Country", nil, .important),
        x("photoshop", "Headline", nil, .important),
        x("photoshop", "Credit", nil, .important),
        x("photoshop", "ColorMode"),
        x("photoshop", "ICCProfile"),
        // exif: Exif for XMP.
        x("exif", "DateTimeOriginal", nil, .critical, .dateTime),
        x("exif", "DateTimeDigitized", "DateTimeDigitized", .important, .dateTime),
        x("exif", "ExposureTime", nil, .critical, .number, print: .exposureTime),
        x("exif", "FNumber", nil, .critical, .number, print: .fNumber),
        x("exif", "ISOSpeedRatings", "ISO", .critical, .number),
        x("exif", "FocalLength", nil, .critical, .number, print: .oneDecimal),
        x("exif", "GPSLatitude", nil, .critical, .gpsCoordinate),
        x("exif", "GPSLongitude", nil, .critical, .gpsCoordinate),
        x("exif", "GPSAltitude", nil, .critical, .number),
        x("exif", "GPSAltitudeRef", nil, .critical, .number),
        x("exif", "PixelXDimension", "ExifImageWidth", .informational, .number, structural: true),
        x("exif", "PixelYDimension", "ExifImageHeight", .informational, .number, structural: true),
        x("exif", "ExposureBiasValue", "ExposureCompensation", .important, .number, print: .fraction),
        // tiff: TIFF for XMP.
        x("tiff", "Make", nil, .important),
        x("tiff", "Model", nil, .important),
        x("tiff", "Orientation", nil, .important, .number),
        x("tiff", "ImageWidth", nil, .informational, .number, structural: true),
        x("tiff", "ImageLength", "ImageHeight", .informational, .number, structural: true),
        // aux: Adobe auxiliary.
        x("aux", "Lens", nil, .important),
        x("aux", "LensInfo", nil, .informational, .number),
        x("aux", "LensID"),
        x("aux", "SerialNumber", nil, .important),
        x("aux", "LensSerialNumber"),
        // Apple gain map (exiftool ≥ 13.05 names; 12.57 uses the same group from the prefix).
        x("HDRGainMap", "HDRGainMapVersion", nil, .important, .number),
        x("HDRGainMap", "HDRGainMapHeadroom", nil, .important, .number),
        x("apdi", "AuxiliaryImageType", nil, .important),
        x("apdi", "NativeFormat", nil, .informational, .number),
        x("apdi", "StoredFormat", nil, .informational, .number),
    ]

    private static let index: [String: TagDefinition] = {
        var out: [String: TagDefinition] = [:]
        for d in all { out["\(d.group)|\(d.property)"] = d }
        return out
    }()

    /// The definition for a property in an XMP namespace prefix ("xmp", "Rating"), nil when not in the table.
    /// Writers differ in the case of the first letter ("dc:Format" for "dc:format"); exiftool ignores it, so do we.
    public static func definition(prefix: String, property: String) -> TagDefinition? {
        if let d = index["XMP-\(prefix)|\(property)"] { return d }
        guard let f = property.first else { return nil }
        let flipped = (f.isUppercase ? f.lowercased() : f.uppercased()) + property.dropFirst()
        return index["XMP-\(prefix)|\(flipped)"]
    }

    /// exiftool's tag name for an XMP property: the first letter upper-cased ("subject" → "Subject").
    public static func exiftoolName(_ property: String) -> String {
        guard let f = property.first else { return property }
        return f.uppercased() + property.dropFirst()
    }
}
