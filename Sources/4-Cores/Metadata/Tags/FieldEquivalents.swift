/// Fields that carry the same information in two families, as data: where a writer that cannot keep one puts the
/// other. HEIF has no place for an IPTC-IIM block, so keywords and captions travel as XMP (IPTC Core 1.3 maps each
/// IIM dataset to its XMP property; exiftool's MWG module copies them the same way).
public enum FieldEquivalents {
    /// IPTC-IIM dataset (exiv2's tag name) → XMP field, exiftool-style.
    static let iptcToXMP: [String: FieldKey] = [
        "Keywords": FieldKey(group: "XMP-dc", name: "Subject"),
        "Caption": FieldKey(group: "XMP-dc", name: "Description"),
        "Byline": FieldKey(group: "XMP-dc", name: "Creator"),
        "Copyright": FieldKey(group: "XMP-dc", name: "Rights"),
        "ObjectName": FieldKey(group: "XMP-dc", name: "Title"),
        "Headline": FieldKey(group: "XMP-photoshop", name: "Headline"),
        "City": FieldKey(group: "XMP-photoshop", name: "City"),
        "ProvinceState": FieldKey(group: "XMP-photoshop", name: "State"),
        "CountryName": FieldKey(group: "XMP-photoshop", name: "Country"),
        "Credit": FieldKey(group: "XMP-photoshop", name: "Credit"),
    ]

    /// The fields in other families that carry `key`'s information (empty when none is listed).
    public static func equivalents(of key: FieldKey) -> [FieldKey] {
        guard key.group == "IPTC", let x = iptcToXMP[key.name] else { return [] }
        return [x]
    }
}
