import Findings

/// Every finding code the GainMap module can raise, in one place. The raw values are stable: reports,
/// baselines and the Audit module key on them.
public enum GainMapFindingCode: String, Sendable, CaseIterable, Codable, Comparable {
    // Presence (raised by the auditor when a source had a gain map or the policy expects one).
    case missing = "gainmap.missing"

    // ISO 21496-1 `tmap` body (GainMapValidation.validate).
    case tmapVersionUnsupported = "gainmap.tmap.version-unsupported"
    case tmapMinimumVersionUnsupported = "gainmap.tmap.minimum-version-unsupported"
    case tmapWriterVersionBelowMinimum = "gainmap.tmap.writer-version-below-minimum"
    case tmapGammaZero = "gainmap.tmap.gamma-zero"
    case tmapDenominatorZero = "gainmap.tmap.denominator-zero"
    case tmapMinExceedsMax = "gainmap.tmap.min-exceeds-max"
    case tmapLength = "gainmap.tmap.length"
    case tmapExtraBytes = "gainmap.tmap.extra-bytes"
    case tmapNonstandardFlags = "gainmap.tmap.nonstandard-flags"
    case tmapCommonDenominator = "gainmap.tmap.common-denominator"
    case tmapChannelCount = "gainmap.tmap.channel-count"
    case tmapBodyMissing = "gainmap.tmap.body-missing"

    // Apple `hdrgainmap` view.
    case appleXMPMissing = "gainmap.apple.xmp-missing"
    case appleVersionMissing = "gainmap.apple.version-missing"
    case appleHeadroomMissing = "gainmap.apple.headroom-missing"

    // Other vendors' auxiliary gain maps (Samsung, Adobe `hdrgm` XMP).
    case auxMetadataMissing = "gainmap.aux.metadata-missing"

    // Description part.
    case descriptionItemMissing = "gainmap.description.item-missing"
    case descriptionIspeMissing = "gainmap.description.ispe-missing"
    case descriptionPixiMissing = "gainmap.description.pixi-missing"
    case descriptionCodecConfigMissing = "gainmap.description.codec-config-missing"
    case descriptionSizeImplausible = "gainmap.description.size-implausible"
    case descriptionNotHidden = "gainmap.description.not-hidden"

    // Data part.
    case dataMissing = "gainmap.data-missing"
    case dataConstant = "gainmap.data-constant"
    case dataUndecodable = "gainmap.data-undecodable"
    case dataNotDecoded = "gainmap.data-not-decoded"

    // Colour part.
    case colrMissing = "gainmap.colr-missing"
    case tmapColrMissing = "gainmap.tmap.colr-missing"

    // Consistency.
    case tmapIspeMissing = "gainmap.tmap.ispe-missing"
    case tmapIspeMismatch = "gainmap.tmap.ispe-mismatch"
    case tmapTransform = "gainmap.tmap.transform"
    case dimgInvalid = "gainmap.dimg.invalid"
    case altrOrder = "gainmap.altr.order"
    case altrMissing = "gainmap.altr.missing"
    case brandMissing = "gainmap.brand.missing"
    case brandWithoutTmap = "gainmap.brand.without-tmap"
    case headroomMismatch = "gainmap.headroom-mismatch"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

extension Finding {
    /// A gain-map finding: `code`'s stable string, a severity from a reader's point of view (`error`: readers such
    /// as libavif or ImageIO ignore or drop the gain map; `warning`: non-conformant or suspicious, but readers still
    /// use it; `info`: nothing is lost), a line for a person and the byte offset (inside the `tmap` body for codec
    /// findings, in the file once the inspector has placed them; nil when there is no single place).
    public init(_ code: GainMapFindingCode, _ severity: Severity, _ message: String, offset: Int? = nil) {
        self.init(code: code.rawValue, severity: severity, message: message, evidence: Evidence(offset: offset))
    }

    /// The code as a gain-map code, nil for a code of another layer.
    public var gainMapCode: GainMapFindingCode? { GainMapFindingCode(rawValue: code) }
}
