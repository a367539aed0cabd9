/// The diff's policy: how important each field is, tolerances, and what a conversion may drop or change.
public struct MetadataPolicy: Sendable, Codable {
    /// Criticality overrides by key; fields not listed use their table class.
    public var criticality: [FieldKey: Criticality]
    /// Fields (by key) whose loss is known and accepted.
    public var knownLosses: Set<FieldKey>
    /// Whole groups whose loss is known and accepted ("MakerNotes" stands for the MakerNote).
    public var knownLossGroups: Set<String>
    /// Field patterns whose loss is known and accepted (``FieldPattern``): the audit policy's `known-loss` lines,
    /// handed over as plain values.
    public var knownLossPatterns: [String]
    /// Fields a conversion is expected to rewrite (Software, pixel dimensions, ModifyDate of the XMP, ...).
    public var expectedChanges: Set<FieldKey>
    /// How the output's coded pixels relate to the source's, when the caller knows: true asserts the writer turned
    /// them upright (the source's display orientation baked in), false asserts they are the source's coded pixels;
    /// nil (the default) leaves it to the pixels, the sizes and the tags (``OrientationJudgement``). Value tolerances
    /// are no longer here: they are per tag, in the tag tables (``ValueRule``).
    public var outputPixelsUpright: Bool?
    /// Groups that appear in outputs without being a problem (container-specific, added by any writer).
    public var ignoredAddedGroups: Set<String>

    public init(
        criticality: [FieldKey: Criticality] = [:], knownLosses: Set<FieldKey> = [], knownLossGroups: Set<String> = [],
        expectedChanges: Set<FieldKey> = [], outputPixelsUpright: Bool? = nil, ignoredAddedGroups: Set<String> = [],
        knownLossPatterns: [String] = []
    ) {
        self.knownLossPatterns = knownLossPatterns
        self.criticality = criticality
        self.knownLosses = knownLosses
        self.knownLossGroups = knownLossGroups
        self.expectedChanges = expectedChanges
        self.outputPixelsUpright = outputPixelsUpright
        self.ignoredAddedGroups = ignoredAddedGroups
    }

    /// The policy for RAW → HEIC: MakerNote loss is known (most converters drop it), and so is IPTC (HEIF has no
    /// place for an IPTC-IIM block; keywords and captions travel as XMP dc:subject/dc:description); Software, pixel
    /// dimensions and the structural tags (thumbnail, strips, DNG) are expected to change.
    public static let standard = MetadataPolicy(
        knownLosses: [],
        knownLossGroups: ["MakerNotes", "IPTC"],
        expectedChanges: [
            FieldKey(group: "IFD0", name: "Software"),
            FieldKey(group: "ExifIFD", name: "ExifImageWidth"),
            FieldKey(group: "ExifIFD", name: "ExifImageHeight"),
            FieldKey(group: "XMP-xmp", name: "ModifyDate"),
            FieldKey(group: "XMP-xmp", name: "MetadataDate"),
            FieldKey(group: "XMP-xmp", name: "CreatorTool"),
        ])

    /// The class of a field under this policy.
    public func criticality(of field: Field) -> Criticality { criticality[field.key] ?? field.criticality }

    /// True when losing `key` is accepted by the policy.
    public func isKnownLoss(_ key: FieldKey) -> Bool {
        knownLosses.contains(key) || knownLossGroups.contains(key.group)
            || knownLossPatterns.contains { FieldPattern.matches($0, key.description) }
    }
}
