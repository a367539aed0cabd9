import Findings

/// The GainMap module's finding codes: a view of the catalogue (`FindingCode` in Findings, the single source of
/// truth), under the short names the inspector and the codec use (`.tmapGammaZero` is `gainmap.tmap.gamma-zero`).
public struct GainMapFindingCode: RawRepresentable, Sendable, Hashable, CaseIterable, Comparable, Codable {
    /// The catalogue's code.
    public let code: FindingCode
    public var rawValue: String { code.rawValue }

    init(_ code: FindingCode) { self.code = code }

    /// The gain-map code `rawValue` names (an old spelling too); nil for a code of another layer.
    public init?(rawValue: String) {
        guard let c = FindingCode.named(rawValue), c.topic == .gainMap else { return nil }
        code = c
    }

    public static let missing = Self(.gainmapMissing)
    public static let tmapVersionUnsupported = Self(.gainmapTmapVersionUnsupported)
    public static let tmapMinimumVersionUnsupported = Self(.gainmapTmapMinimumVersionUnsupported)
    public static let tmapWriterVersionBelowMinimum = Self(.gainmapTmapWriterVersionBelowMinimum)
    public static let tmapGammaZero = Self(.gainmapTmapGammaZero)
    public static let tmapDenominatorZero = Self(.gainmapTmapDenominatorZero)
    public static let tmapMinExceedsMax = Self(.gainmapTmapMinExceedsMax)
    public static let tmapLength = Self(.gainmapTmapLength)
    public static let tmapExtraBytes = Self(.gainmapTmapExtraBytes)
    public static let tmapNonstandardFlags = Self(.gainmapTmapNonstandardFlags)
    public static let tmapCommonDenominator = Self(.gainmapTmapCommonDenominator)
    public static let tmapChannelCount = Self(.gainmapTmapChannelCount)
    public static let tmapBodyMissing = Self(.gainmapTmapBodyMissing)
    public static let appleXMPMissing = Self(.gainmapAppleXmpMissing)
    public static let appleVersionMissing = Self(.gainmapAppleVersionMissing)
    public static let appleHeadroomMissing = Self(.gainmapAppleHeadroomMissing)
    public static let auxMetadataMissing = Self(.gainmapAuxMetadataMissing)
    public static let descriptionItemMissing = Self(.gainmapDescriptionItemMissing)
    public static let descriptionIspeMissing = Self(.gainmapDescriptionIspeMissing)
    public static let descriptionPixiMissing = Self(.gainmapDescriptionPixiMissing)
    public static let descriptionCodecConfigMissing = Self(.gainmapDescriptionCodecConfigMissing)
    public static let descriptionSizeImplausible = Self(.gainmapDescriptionSizeImplausible)
    public static let descriptionNotHidden = Self(.gainmapDescriptionNotHidden)
    public static let dataMissing = Self(.gainmapDataMissing)
    public static let dataConstant = Self(.gainmapDataConstant)
    public static let dataUndecodable = Self(.gainmapDataUndecodable)
    public static let dataNotDecoded = Self(.gainmapDataNotDecoded)
    public static let colrMissing = Self(.gainmapColrMissing)
    public static let tmapColrMissing = Self(.gainmapTmapColrMissing)
    public static let tmapIspeMissing = Self(.gainmapTmapIspeMissing)
    public static let tmapIspeMismatch = Self(.gainmapTmapIspeMismatch)
    public static let tmapTransform = Self(.gainmapTmapTransform)
    public static let dimgInvalid = Self(.gainmapDimgInvalid)
    public static let altrOrder = Self(.gainmapAltrOrder)
    public static let altrMissing = Self(.gainmapAltrMissing)
    public static let brandMissing = Self(.gainmapBrandMissing)
    public static let brandWithoutTmap = Self(.gainmapBrandWithoutTmap)
    public static let headroomMismatch = Self(.gainmapHeadroomMismatch)
    public static let jpegMPFMissing = Self(.gainmapJpegMpfMissing)
    public static let jpegMPFOffsetPastEOF = Self(.gainmapJpegMpfOffsetPastEof)
    public static let jpegImageAbsent = Self(.gainmapJpegImageAbsent)
    public static let jpegXMPLengthMismatch = Self(.gainmapJpegXmpLengthMismatch)
    public static let jpegPrimarySignalMissing = Self(.gainmapJpegPrimarySignalMissing)
    public static let formChanged = Self(.gainmapFormChanged)
    public static let metadataChanged = Self(.gainmapMetadataChanged)

    /// The catalogue's gain-map codes, in its order.
    public static let allCases: [GainMapFindingCode] = FindingCode.allCases.filter { $0.topic == .gainMap }.map(
        Self.init)

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

extension Finding {
    /// A gain-map finding: `code`'s stable string, a severity from a reader's point of view (`error`: readers such
    /// as libavif or ImageIO ignore or drop the gain map; `warning`: non-conformant or suspicious, but readers still
    /// use it; `info`: nothing is lost), a line for a person and the byte offset (inside the `tmap` body for codec
    /// findings, in the file once the inspector has placed them; nil when there is no single place).
    public init(_ code: GainMapFindingCode, _ severity: Severity, _ message: String, offset: Int? = nil) {
        self.init(code: code.code, severity: severity, message: message, evidence: Evidence(offset: offset))
    }

    /// The code as a gain-map code, nil for a code of another layer.
    public var gainMapCode: GainMapFindingCode? { GainMapFindingCode(rawValue: code) }
}
