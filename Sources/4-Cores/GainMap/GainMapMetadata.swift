/// ISO 21496-1 gain-map parameters for one colour channel (clause C.2.2, per-channel loop).
///
/// All values are log2 except the offsets, which are linear. Decoding: `logG = min + (max − min)·g^(1/gamma)`.
public struct GainMapChannel: Sendable, Hashable {
    /// `gain_map_min`: log2 of the smallest gain the map encodes (map value 0).
    public var min: Fraction
    /// `gain_map_max`: log2 of the largest gain the map encodes (map value 1); max ≥ min.
    public var max: Fraction
    /// `gamma`: the map was encoded as `((logG − min)/(max − min))^gamma`; > 0.
    public var gamma: UFraction
    /// `base_offset`: added to the base before the ratio is taken (k_sdr).
    public var baseOffset: Fraction
    /// `alternate_offset`: added to the alternate before the ratio is taken (k_hdr).
    public var alternateOffset: Fraction

    /// Makes one channel's parameters.
    /// - Parameters:
    ///   - min: `gain_map_min` (log2).
    ///   - max: `gain_map_max` (log2).
    ///   - gamma: `gamma`.
    ///   - baseOffset: `base_offset`.
    ///   - alternateOffset: `alternate_offset`.
    public init(min: Fraction, max: Fraction, gamma: UFraction, baseOffset: Fraction, alternateOffset: Fraction) {
        self.min = min
        self.max = max
        self.gamma = gamma
        self.baseOffset = baseOffset
        self.alternateOffset = alternateOffset
    }
}

/// ISO 21496-1 GainMapMetadata (clause C.2.2): versions, flags, headrooms and one or three channels.
///
/// This is the part shared by every carrier (HEIF `tmap` body after its version byte, JPEG APP2). The flags
/// byte is kept in parts so that reserved bits read from a file survive and can be reported.
public struct GainMapMetadata: Sendable, Hashable {
    /// The highest `minimum_version` this implementation understands.
    public static let supportedVersion: UInt16 = 0

    /// `minimum_version`: a reader must understand at least this version.
    public var minimumVersion: UInt16
    /// `writer_version`: the version the writer implemented; ≥ minimumVersion.
    public var writerVersion: UInt16
    /// Flag bit 6, `use_base_colour_space`: apply the map in the base's colour space (else the alternate's).
    public var useBaseColorSpace: Bool
    /// Flag bits 5..0 as read (reserved, 0 in ISO 21496-1; libultrahdr uses 0x04 and 0x08).
    public var reservedFlags: UInt8
    /// `base_hdr_headroom` (log2).
    public var baseHdrHeadroom: UFraction
    /// `alternate_hdr_headroom` (log2).
    public var alternateHdrHeadroom: UFraction
    /// One channel (luminance map, flag bit 7 clear) or three (R, G, B; `is_multichannel`).
    public var channels: [GainMapChannel]

    /// Makes the metadata.
    /// - Parameters:
    ///   - minimumVersion: `minimum_version` (0).
    ///   - writerVersion: `writer_version` (0).
    ///   - useBaseColorSpace: flag bit 6.
    ///   - reservedFlags: flag bits 5..0 (0 for a conformant writer).
    ///   - baseHdrHeadroom: `base_hdr_headroom` (log2).
    ///   - alternateHdrHeadroom: `alternate_hdr_headroom` (log2).
    ///   - channels: one or three channels.
    public init(
        minimumVersion: UInt16 = 0, writerVersion: UInt16 = 0, useBaseColorSpace: Bool = true,
        reservedFlags: UInt8 = 0, baseHdrHeadroom: UFraction, alternateHdrHeadroom: UFraction,
        channels: [GainMapChannel]
    ) {
        self.minimumVersion = minimumVersion
        self.writerVersion = writerVersion
        self.useBaseColorSpace = useBaseColorSpace
        self.reservedFlags = reservedFlags
        self.baseHdrHeadroom = baseHdrHeadroom
        self.alternateHdrHeadroom = alternateHdrHeadroom
        self.channels = channels
    }

    /// Flag bit 7, `is_multichannel`.
    public var isMultichannel: Bool { channels.count == 3 }

    /// The flags byte as it is written.
    public var flagsByte: UInt8 {
        (isMultichannel ? 0x80 : 0) | (useBaseColorSpace ? 0x40 : 0) | (reservedFlags & 0x3F)
    }

    /// Channel `c` (0…2); a one-channel map applies channel 0 to all three (libavif, tev).
    /// - Parameter c: the channel index.
    /// - Returns: that channel's parameters.
    public func channel(_ c: Int) -> GainMapChannel {
        channels.count == 3 ? channels[c] : channels[0]
    }

    /// Byte length of the bare GainMapMetadata in the long (explicit-denominator) form: 61 or 141.
    public var encodedByteCount: Int { 2 + 2 + 1 + 4 * 4 + 40 * channels.count }
}

/// The `tmap` item body: ToneMapImage (ISO/IEC 23008-12:2024 AMD 1 §6.6.2.4.2) = u8 version + GainMapMetadata.
public struct ToneMapImage: Sendable, Hashable {
    /// Which byte layout the GainMapMetadata had.
    public enum Layout: String, Sendable, Hashable {
        /// ISO 21496-1: every fraction with its own denominator (62 / 142 bytes with the version byte).
        case standard
        /// libultrahdr's draft form, flag 0x08: one common denominator (38 / 78 bytes with the version byte).
        case commonDenominator
    }

    /// The ToneMapImage `version` byte; only 0 is defined.
    public var version: UInt8
    /// The parsed metadata; nil when the version is unknown or the body ends before the headrooms.
    public var metadata: GainMapMetadata?
    /// The layout the metadata was read in.
    public var layout: Layout
    /// The body length as read (or as it will be written).
    public var byteCount: Int
    /// The length the layout requires (version byte included); byteCount below this means truncation.
    public var requiredByteCount: Int
    /// Offset where parsing stopped for lack of bytes, if it did.
    public var truncatedAt: Int?

    /// A conformant body for `metadata`: version 0, standard layout.
    /// - Parameter metadata: the gain-map metadata.
    public init(metadata: GainMapMetadata) {
        self.version = 0
        self.metadata = metadata
        self.layout = .standard
        self.byteCount = 1 + metadata.encodedByteCount
        self.requiredByteCount = byteCount
        self.truncatedAt = nil
    }

    /// Makes a body description with every field given (used by the decoder).
    init(version: UInt8, metadata: GainMapMetadata?, layout: Layout, byteCount: Int, required: Int, truncatedAt: Int?) {
        self.version = version
        self.metadata = metadata
        self.layout = layout
        self.byteCount = byteCount
        self.requiredByteCount = required
        self.truncatedAt = truncatedAt
    }

    /// Bytes after the end of the metadata (allowed only when writer_version > supported).
    public var trailingByteCount: Int { Swift.max(0, byteCount - requiredByteCount) }

    /// Offset of a field inside the body (version byte at 0), for findings.
    /// - Parameters:
    ///   - field: the field.
    ///   - channel: the channel, for per-channel fields.
    /// - Returns: the byte offset in the `tmap` body.
    public func offset(of field: Field, channel: Int = 0) -> Int {
        ToneMapImage.offset(of: field, channel: channel, layout: layout)
    }

    /// The fields whose position findings point at.
    public enum Field: Sendable {
        case version, minimumVersion, writerVersion, flags
        case baseHeadroomNumerator, baseHeadroomDenominator, alternateHeadroomNumerator, alternateHeadroomDenominator
        case minNumerator, minDenominator, maxNumerator, maxDenominator, gammaNumerator, gammaDenominator
        case baseOffsetNumerator, baseOffsetDenominator, alternateOffsetNumerator, alternateOffsetDenominator
    }

    static func offset(of field: Field, channel c: Int, layout: Layout) -> Int {
        switch layout {
        case .standard:
            let ch = 22 + 40 * c
            switch field {
            case .version: return 0
            case .minimumVersion: return 1
            case .writerVersion: return 3
            case .flags: return 5
            case .baseHeadroomNumerator: return 6
            case .baseHeadroomDenominator: return 10
            case .alternateHeadroomNumerator: return 14
            case .alternateHeadroomDenominator: return 18
            case .minNumerator: return ch
            case .minDenominator: return ch + 4
            case .maxNumerator: return ch + 8
            case .maxDenominator: return ch + 12
            case .gammaNumerator: return ch + 16
            case .gammaDenominator: return ch + 20
            case .baseOffsetNumerator: return ch + 24
            case .baseOffsetDenominator: return ch + 28
            case .alternateOffsetNumerator: return ch + 32
            case .alternateOffsetDenominator: return ch + 36
            }
        case .commonDenominator:
            let ch = 18 + 20 * c
            switch field {
            case .version: return 0
            case .minimumVersion: return 1
            case .writerVersion: return 3
            case .flags: return 5
            case .baseHeadroomDenominator, .alternateHeadroomDenominator, .minDenominator, .maxDenominator,
                .gammaDenominator, .baseOffsetDenominator, .alternateOffsetDenominator:
                return 6
            case .baseHeadroomNumerator: return 10
            case .alternateHeadroomNumerator: return 14
            case .minNumerator: return ch
            case .maxNumerator: return ch + 4
            case .gammaNumerator: return ch + 8
            case .baseOffsetNumerator: return ch + 12
            case .alternateOffsetNumerator: return ch + 16
            }
        }
    }
}
