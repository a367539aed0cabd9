import Findings

/// The finding codes the metadata diff raises: a view of the catalogue (`FindingCode` in Findings, the single source
/// of truth), under the short names the diff uses (`.lost` is `metadata.lost`).
public struct MetadataFindingCode: RawRepresentable, Sendable, Hashable, Codable, CaseIterable {
    /// The catalogue's code.
    public let code: FindingCode
    public var rawValue: String { code.rawValue }

    init(_ code: FindingCode) { self.code = code }

    /// The metadata-diff code `rawValue` names (an old spelling too); nil for a code of another layer.
    public init?(rawValue: String) {
        guard let c = FindingCode.named(rawValue), Self.allCases.contains(where: { $0.code == c }) else {
            return nil
        }
        code = c
    }

    public static let lost = Self(.metadataLost)
    public static let changed = Self(.metadataChanged)
    public static let rounded = Self(.metadataRounded)
    public static let reencoded = Self(.metadataReencoded)
    public static let added = Self(.metadataAdded)
    public static let knownLoss = Self(.metadataKnownLoss)
    public static let knownLossNotHappened = Self(.metadataKnownLossNotHappened)
    public static let orientationChanged = Self(.orientationChanged)
    public static let orientationInconsistent = Self(.orientationInconsistent)
    public static let doubleRotation = Self(.orientationDoubleRotation)
    public static let orientationUnverified = Self(.orientationUnverified)

    public static let allCases: [MetadataFindingCode] = [
        .lost, .changed, .rounded, .reencoded, .added, .knownLoss, .knownLossNotHappened, .orientationChanged,
        .orientationInconsistent, .doubleRotation, .orientationUnverified,
    ]
}
