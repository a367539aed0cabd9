/// Bounds on what the parser accepts and allocates, kept in one place.
///
/// Hostile input never makes the parser trap, hang or allocate without bound: every count below is checked
/// before the work it allows, and going over a limit becomes a `container.limits.exceeded` finding.
public struct Limits: Sendable, Equatable {
    /// Maximum nesting depth of boxes (the file is depth 0).
    public var maxDepth: Int
    /// Maximum number of boxes in the whole tree.
    public var maxBoxes: Int
    /// Maximum number of items (`infe` entries, `iloc` entries).
    public var maxItems: Int
    /// Maximum number of properties in `ipco`.
    public var maxProperties: Int
    /// Maximum number of property associations in `ipma`, all items together.
    public var maxAssociations: Int
    /// Maximum number of `iloc` extents, all items together.
    public var maxExtents: Int
    /// Maximum number of item references (`iref` target ids), all boxes together.
    public var maxReferences: Int
    /// Maximum number of entity ids in `grpl` groups, all groups together.
    public var maxGroupEntities: Int
    /// Maximum bytes the parser copies out of the file (property bodies, strings, NAL units).
    public var maxAllocatedBytes: Int
    /// Maximum bytes one `payload(of:)` call assembles.
    public var maxPayloadBytes: Int

    public init(
        maxDepth: Int = 24, maxBoxes: Int = 200_000, maxItems: Int = 65_535, maxProperties: Int = 65_535,
        maxAssociations: Int = 1_000_000, maxExtents: Int = 1_000_000, maxReferences: Int = 1_000_000,
        maxGroupEntities: Int = 1_000_000, maxAllocatedBytes: Int = 256 << 20, maxPayloadBytes: Int = 1 << 30
    ) {
        self.maxDepth = maxDepth
        self.maxBoxes = maxBoxes
        self.maxItems = maxItems
        self.maxProperties = maxProperties
        self.maxAssociations = maxAssociations
        self.maxExtents = maxExtents
        self.maxReferences = maxReferences
        self.maxGroupEntities = maxGroupEntities
        self.maxAllocatedBytes = maxAllocatedBytes
        self.maxPayloadBytes = maxPayloadBytes
    }

    /// Generous limits for real camera and phone files (a 200 MP grid has a few thousand items).
    public static let `default` = Limits()

    /// Tight limits for fuzzing: small enough that every input is parsed in well under a millisecond.
    public static let fuzzing = Limits(
        maxDepth: 16, maxBoxes: 4_096, maxItems: 1_024, maxProperties: 1_024, maxAssociations: 8_192,
        maxExtents: 8_192, maxReferences: 8_192, maxGroupEntities: 8_192, maxAllocatedBytes: 4 << 20,
        maxPayloadBytes: 4 << 20)
}
