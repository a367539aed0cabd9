/// Every tag table (Exif and XMP) looked up by field key: the definition, and so the comparison rule, of a field.
public enum TagTables {
    private static let byKey: [FieldKey: TagDefinition] = {
        var out: [FieldKey: TagDefinition] = [:]
        for d in ExifTables.all + XMPTables.all where out[d.key] == nil { out[d.key] = d }
        return out
    }()

    /// The definition of a field, nil when no table lists it.
    public static func definition(for key: FieldKey) -> TagDefinition? { byKey[key] }

    /// How values of the field compare: the table's rule, else the standard one.
    public static func rule(for key: FieldKey) -> ValueRule { byKey[key]?.rule ?? .standard }

    /// What exiftool's ValueConv does to the field's raw value (APEX tags), `.none` when nothing.
    public static func conversion(for key: FieldKey) -> ExiftoolConversion { byKey[key]?.conversion ?? .none }
}
