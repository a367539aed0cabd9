/// Every finding code Readback emits, in one catalogue: the container parser (HEIF), the gain-map inspector
/// (GainMap), the metadata diff (Metadata), the render check (RenderCheck) and the auditor's own checks (Audit).
///
/// A code's string is dotted, lower-case, with kebab-case segments (`container.iloc.extent-past-eof`); reports,
/// baselines and policies key on it. Each case carries its default severity, its topic, a one-line meaning and what
/// it does to a conversion (``ConversionEffect``); `readback codes` prints the catalogue and docs/codes.md is
/// generated from it. A renamed code keeps its old name as an alias (``aliases``) for one report-schema version.
public enum FindingCode: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    case containerBoxTruncated = "container.box.truncated"
    case containerBoxInvalidSize = "container.box.invalid-size"
    case containerBoxMalformed = "container.box.malformed"
    case containerFileTrailingBytes = "container.file.trailing-bytes"
    case containerFtypMissing = "container.ftyp.missing"
    case containerBrandMif1Missing = "container.brand.mif1.missing"
    case containerMetaMissing = "container.meta.missing"
    case containerMetaDuplicate = "container.meta.duplicate"
    case containerHdlrNotPict = "container.hdlr.not-pict"
    case containerBoxDuplicate = "container.box.duplicate"
    case containerPitmMissing = "container.pitm.missing"
    case containerPitmDangling = "container.pitm.dangling"
    case containerPitmHidden = "container.pitm.hidden"
    case containerIinfMissing = "container.iinf.missing"
    case containerItemDuplicateId = "container.item.duplicate-id"
    case containerItemNoLocation = "container.item.no-location"
    case containerIspeMissing = "container.ispe.missing"
    case containerIlocExtentPastEof = "container.iloc.extent-past-eof"
    case containerIlocUnsupported = "container.iloc.unsupported"
    case containerIlocUnknownItem = "container.iloc.unknown-item"
    case containerIrefMissingItem = "container.iref.missing-item"
    case containerIrefDimgDuplicate = "container.iref.dimg-duplicate"
    case containerIrefCdscMultiTarget = "container.iref.cdsc-multi-target"
    case containerIrefAuxlMultiTarget = "container.iref.auxl-multi-target"
    case containerIpmaIndexOutOfRange = "container.ipma.index-out-of-range"
    case containerIpmaUnknownItem = "container.ipma.unknown-item"
    case containerIpmaDuplicateItem = "container.ipma.duplicate-item"
    case containerPropertyMalformed = "container.property.malformed"
    case containerPropertyNotEssential = "container.property.not-essential"
    case containerPropertyTransformBeforeIspe = "container.property.transform-before-ispe"
    case containerGridInvalid = "container.grid.invalid"
    case containerTmapBrandWithoutItem = "container.tmap.brand-without-item"
    case containerTmapItemWithoutBrand = "container.tmap.item-without-brand"
    case containerTmapInputs = "container.tmap.inputs"
    case containerAltrOrder = "container.altr.order"
    case containerExifBadOffset = "container.exif.bad-offset"
    case containerLimitsExceeded = "container.limits.exceeded"
    case containerTruncated = "container.truncated"
    case inputUnreadable = "input.unreadable"
    case outputMissing = "output.missing"
    case outputNotHeif = "output.not-heif"
    case sizeRatio = "size.ratio"
    case decodePrimaryFailed = "decode.primary-failed"
    case decodePrimaryRewrapped = "decode.primary-rewrapped"
    case decodeGainmapFailed = "decode.gainmap-failed"
    case signallingNclxMissing = "signalling.nclx-missing"
    case signallingBitDepthMismatch = "signalling.bit-depth-mismatch"
    case metadataLost = "metadata.lost"
    case metadataChanged = "metadata.changed"
    case metadataRounded = "metadata.rounded"
    case metadataReencoded = "metadata.reencoded"
    case metadataAdded = "metadata.added"
    case metadataKnownLoss = "metadata.known-loss"
    case metadataKnownLossNotHappened = "metadata.known-loss-not-happened"
    case metadataUnreadable = "metadata.unreadable"
    case metadataNone = "metadata.none"
    case orientationChanged = "orientation.changed"
    case orientationInconsistent = "orientation.inconsistent"
    case orientationDoubleRotation = "orientation.double-rotation"
    case orientationUnverified = "orientation.unverified"
    case gainmapMissing = "gainmap.missing"
    case gainmapTmapVersionUnsupported = "gainmap.tmap.version-unsupported"
    case gainmapTmapMinimumVersionUnsupported = "gainmap.tmap.minimum-version-unsupported"
    case gainmapTmapWriterVersionBelowMinimum = "gainmap.tmap.writer-version-below-minimum"
    case gainmapTmapGammaZero = "gainmap.tmap.gamma-zero"
    case gainmapTmapDenominatorZero = "gainmap.tmap.denominator-zero"
    case gainmapTmapMinExceedsMax = "gainmap.tmap.min-exceeds-max"
    case gainmapTmapLength = "gainmap.tmap.length"
    case gainmapTmapExtraBytes = "gainmap.tmap.extra-bytes"
    case gainmapTmapNonstandardFlags = "gainmap.tmap.nonstandard-flags"
    case gainmapTmapCommonDenominator = "gainmap.tmap.common-denominator"
    case gainmapTmapChannelCount = "gainmap.tmap.channel-count"
    case gainmapTmapBodyMissing = "gainmap.tmap.body-missing"
    case gainmapAppleXmpMissing = "gainmap.apple.xmp-missing"
    case gainmapAppleVersionMissing = "gainmap.apple.version-missing"
    case gainmapAppleHeadroomMissing = "gainmap.apple.headroom-missing"
    case gainmapAuxMetadataMissing = "gainmap.aux.metadata-missing"
    case gainmapDescriptionItemMissing = "gainmap.description.item-missing"
    case gainmapDescriptionIspeMissing = "gainmap.description.ispe-missing"
    case gainmapDescriptionPixiMissing = "gainmap.description.pixi-missing"
    case gainmapDescriptionCodecConfigMissing = "gainmap.description.codec-config-missing"
    case gainmapDescriptionSizeImplausible = "gainmap.description.size-implausible"
    case gainmapDescriptionNotHidden = "gainmap.description.not-hidden"
    case gainmapDataMissing = "gainmap.data-missing"
    case gainmapDataConstant = "gainmap.data-constant"
    case gainmapDataUndecodable = "gainmap.data-undecodable"
    case gainmapDataNotDecoded = "gainmap.data-not-decoded"
    case gainmapColrMissing = "gainmap.colr-missing"
    case gainmapTmapColrMissing = "gainmap.tmap.colr-missing"
    case gainmapTmapIspeMissing = "gainmap.tmap.ispe-missing"
    case gainmapTmapIspeMismatch = "gainmap.tmap.ispe-mismatch"
    case gainmapTmapTransform = "gainmap.tmap.transform"
    case gainmapDimgInvalid = "gainmap.dimg.invalid"
    case gainmapAltrOrder = "gainmap.altr.order"
    case gainmapAltrMissing = "gainmap.altr.missing"
    case gainmapBrandMissing = "gainmap.brand.missing"
    case gainmapBrandWithoutTmap = "gainmap.brand.without-tmap"
    case gainmapHeadroomMismatch = "gainmap.headroom-mismatch"
    case fileModeWidened = "file.mode.widened"
    case fileMtimeChanged = "file.mtime.changed"
    case fileOwnerChanged = "file.owner.changed"
    case fileXattrLost = "file.xattr.lost"
    case fileXattrChanged = "file.xattr.changed"
    case fileXattrDropped = "file.xattr.dropped"
    case fileXattrUnsupported = "file.xattr.unsupported"
    case sidecarEditsNotApplied = "sidecar.edits-not-applied"
    case renderBlank = "render.blank"
    case renderOrientation = "render.orientation"
    case renderCast = "render.cast"
    case renderExposure = "render.exposure"
    case renderNoReference = "render.no-reference"
    case renderSkipped = "render.skipped"
    // Gain maps in JPEG files, and a gain map compared across containers.
    case gainmapJpegMpfMissing = "gainmap.jpeg.mpf-missing"
    case gainmapJpegMpfOffsetPastEof = "gainmap.jpeg.mpf-offset-past-eof"
    case gainmapJpegImageAbsent = "gainmap.jpeg.image-absent"
    case gainmapJpegXmpLengthMismatch = "gainmap.jpeg.xmp-length-mismatch"
    case gainmapJpegPrimarySignalMissing = "gainmap.jpeg.primary-signal-missing"
    case gainmapFormChanged = "gainmap.form-changed"
    case gainmapMetadataChanged = "gainmap.metadata-changed"
    case decodeLibavifRefused = "decode.libavif-refused"
    case renderSaturation = "render.saturation"
    case decodeUnsupported = "decode.unsupported"
    case containerUnsupportedEssential = "container.unsupported-essential"
    case conformanceIspeMismatch = "conformance.ispe-mismatch"
    case conformanceClapOdd = "conformance.clap-odd"
    case conformanceBoxVersion = "conformance.box-version"
    case conformanceFtypMinorVersion = "conformance.ftyp-minor-version"
    case conformancePrimaryNotImage = "conformance.primary-not-image"
    case conformanceThumbnailChain = "conformance.thumbnail-chain"
    case conformanceDerivedVersion = "conformance.derived-version"
    case conformanceIdenInputs = "conformance.iden-inputs"
    case conformanceDerivationOrigin = "conformance.derivation-origin"
    case conformanceGridTileSizes = "conformance.grid-tile-sizes"
    case conformanceHdlrNotFirst = "conformance.hdlr-not-first"
    case conformanceBrandMiafMissing = "conformance.brand-miaf-missing"
    case conformanceMetaXML = "conformance.meta-xml"
    case conformanceConstructionMethod = "conformance.construction-method"
    case conformanceItemProtected = "conformance.item-protected"
    case conformanceMetadataInIdat = "conformance.metadata-in-idat"
    case conformancePrimaryNotMaster = "conformance.primary-not-master"
    case conformancePaspNotSquare = "conformance.pasp-not-square"
    case conformancePixiMissing = "conformance.pixi-missing"
    case conformanceTransformOrder = "conformance.transform-order"
    case conformanceIdenChain = "conformance.iden-chain"
    case conformanceDerivationOrder = "conformance.derivation-order"
    case conformanceThumbnailRatio = "conformance.thumbnail-ratio"
    case conformanceGridTileSmall = "conformance.grid-tile-small"
    case conformanceGridInputsDiffer = "conformance.grid-inputs-differ"
    case conformanceGridTileChroma = "conformance.grid-tile-chroma"
    case conformanceProfileMiHB = "conformance.profile-mihb"
    case conformanceProfileMiHA = "conformance.profile-miha"
    case conformanceProfileMiHE = "conformance.profile-mihe"
    case conformanceGridCoverage = "conformance.grid-coverage"
    case conformanceIpmaOrder = "conformance.ipma-order"
    case conformanceIinfOrder = "conformance.iinf-order"
    case conformanceConfigNotEssential = "conformance.config-not-essential"
    case decodeCrashed = "decode.crashed"
    case decodeTimeout = "decode.timeout"
    case decodeOutOfMemory = "decode.out-of-memory"
    case conformanceHdlrFields = "conformance.hdlr-fields"
    case conformanceIpmaDuplicate = "conformance.ipma-duplicate"
    case conformanceLselNotEssential = "conformance.lsel-not-essential"
    case conformanceClliInvalid = "conformance.clli-invalid"
    case conformanceMdcvInvalid = "conformance.mdcv-invalid"
    case conformanceGridLimit = "conformance.grid-limit"
    case conformanceProfileMiAB = "conformance.profile-miab"
    case conformanceMiPrBoxOrder = "conformance.mipr-box-order"
    case conformanceMiPrThumbnail = "conformance.mipr-thumbnail"
    case conformanceMiPrEarlyData = "conformance.mipr-early-data"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The code's string, as reports write it.
    public var code: String { rawValue }
    /// The code's string, so a code interpolated into a message reads as reports write it (not as the case name).
    public var description: String { rawValue }
    /// The severity the emitter gives a finding unless it says otherwise (the audit policy may rewrite it).
    public var severity: Severity { entry.severity }
    /// What the code is about.
    public var topic: Topic { entry.topic }
    /// What one finding of this code, at its default severity, does to a conversion.
    public var effect: ConversionEffect { entry.effect }
    /// One line for a person.
    public var meaning: String { entry.meaning }
    /// The code's old spellings, accepted in policies and baselines for one report-schema version.
    public var aliases: [String] { Self.aliases.filter { $0.value == self }.map(\.key).sorted() }

    /// The catalogue's entry for this code.
    var entry: Entry {
        guard let e = Self.entries[self] else { preconditionFailure("\(rawValue) has no catalogue entry") }
        return e
    }

    static let entries: [FindingCode: Entry] = Dictionary(
        catalogue.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })

    /// The code a string names: a current code or an old spelling (``aliases``); nil for anything else.
    public static func named(_ s: String) -> FindingCode? { FindingCode(rawValue: s) ?? aliases[s] }

    /// `s` with an old spelling replaced by the current one; any other string unchanged.
    public static func current(_ s: String) -> String { aliases[s]?.rawValue ?? s }

    /// A finding of this code with its default severity unless `severity` is given.
    public func finding(_ message: String, severity: Severity? = nil, evidence: Evidence? = nil) -> Finding {
        Finding(code: self, severity: severity ?? self.severity, message: message, evidence: evidence)
    }

    /// Reads a code's string: a current code or an old spelling (``aliases``, read as the current code). A string
    /// the catalogue does not know (a report or baseline written by a newer Readback) is ``Unknown``, which names
    /// the code and where it was; it is never read as some other code.
    public init(from decoder: any Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let code = Self.named(s) else { throw Unknown(code: s, codingPath: decoder.codingPath) }
        self = code
    }

    /// A code string this build's catalogue does not list.
    public struct Unknown: Error, CustomStringConvertible, Sendable {
        /// The string read.
        public let code: String
        /// Where it was read, `files[3].findings[0].code`; empty at the top level.
        public let path: String

        init(code: String, codingPath: [any CodingKey]) {
            self.code = code
            path = codingPath.reduce("") { p, k in
                k.intValue.map { "\(p)[\($0)]" } ?? (p.isEmpty ? k.stringValue : "\(p).\(k.stringValue)")
            }
        }

        public var description: String {
            let at = path.isEmpty ? "" : " (\(path))"
            return "unknown finding code '\(code)'\(at): this build's catalogue does not list it; was the report"
                + " written by a newer Readback?"
        }
    }

    /// What a code is about.
    public enum Topic: String, CaseIterable, Sendable, Codable {
        case container
        case input
        case output
        case size
        case decode
        case signalling
        case metadata
        case orientation
        case gainMap = "gain-map"
        case fileFacts = "file-facts"
        case sidecar
        case render
        /// HEIF/MIAF rules on coded items the reference checker misses or checks in part.
        case conformance
    }

    /// What a finding does to a conversion whose read-back audit raises it (`readback convert`, Batch's
    /// AuditVerifier): the output is unusable and the conversion fails; the output is kept but so is the original
    /// (removal is vetoed); or it is information only.
    public enum ConversionEffect: String, CaseIterable, Sendable, Codable {
        case failsConversion = "fails-conversion"
        case keepsOriginal = "keeps-original"
        case informationOnly = "information-only"
    }

    /// One row of the catalogue.
    struct Entry: Sendable {
        let code: FindingCode
        let severity: Severity
        let topic: Topic
        let effect: ConversionEffect
        let meaning: String

        init(_ code: FindingCode, _ severity: Severity, _ topic: Topic, _ effect: ConversionEffect, _ meaning: String) {
            self.code = code
            self.severity = severity
            self.topic = topic
            self.effect = effect
            self.meaning = meaning
        }
    }
}

extension Finding {
    /// A finding of a catalogued code, with the code's default severity unless `severity` is given: a call site
    /// names a severity only where it differs from the catalogue's.
    public init(_ code: FindingCode, severity: Severity? = nil, message: String, evidence: Evidence? = nil) {
        self.init(code: code, severity: severity ?? code.severity, message: message, evidence: evidence)
    }
}
