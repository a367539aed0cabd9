/// Colour signalling as coded in a `colr` box of type `nclx` (ISO/IEC 23008-12 §6.5.5) and in libheif's
/// `heif_color_profile_nclx`: the three ITU-T H.273 code points and the full-range flag.
///
/// The codes are kept as the raw 16-bit values read from the file, so any code (known or not) round-trips byte for
/// byte; `knownPrimaries`, `knownTransfer` and `knownMatrix` name the ones this project acts on.
public struct NCLX: Sendable, Hashable, Codable {
    /// `colour_primaries` (H.273 Table 2).
    public var colourPrimaries: UInt16
    /// `transfer_characteristics` (H.273 Table 3).
    public var transferCharacteristics: UInt16
    /// `matrix_coefficients` (H.273 Table 4).
    public var matrixCoefficients: UInt16
    /// `full_range_flag` (H.273 §8.3): true for 0…2^n − 1 code values, false for video (limited) range.
    public var fullRange: Bool

    /// Makes a signalling from raw code points.
    public init(colourPrimaries: UInt16, transferCharacteristics: UInt16, matrixCoefficients: UInt16, fullRange: Bool) {
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// Makes a signalling from named code points.
    public init(_ primaries: Primaries, _ transfer: Transfer, _ matrix: Matrix, fullRange: Bool) {
        self.init(
            colourPrimaries: primaries.rawValue, transferCharacteristics: transfer.rawValue,
            matrixCoefficients: matrix.rawValue, fullRange: fullRange)
    }

    /// The named primaries, or nil for a code this project does not name.
    public var knownPrimaries: Primaries? { Primaries(rawValue: colourPrimaries) }
    /// The named transfer, or nil for a code this project does not name.
    public var knownTransfer: Transfer? { Transfer(rawValue: transferCharacteristics) }
    /// The named matrix, or nil for a code this project does not name.
    public var knownMatrix: Matrix? { Matrix(rawValue: matrixCoefficients) }

    /// Whether the transfer is a high-dynamic-range one (PQ or HLG).
    public var hasHDRTransfer: Bool { knownTransfer == .pq || knownTransfer == .hlg }

    /// Display P3: P3 primaries with D65 (12), sRGB transfer (13), BT.601 matrix (6), full range — Apple's choice.
    public static let displayP3 = NCLX(.displayP3, .sRGB, .bt601, fullRange: true)
    /// sRGB: BT.709 primaries (1), sRGB transfer (13), BT.601 matrix (6), full range.
    public static let sRGB = NCLX(.bt709, .sRGB, .bt601, fullRange: true)
    /// Unspecified primaries and transfer (2), BT.601 matrix (6), full range: a gain map (monochrome, so the
    /// matrix is not used), or an image whose ICC profile governs its colour. libavif writes the same on its maps.
    public static let unspecified = NCLX(.unspecified, .unspecified, .bt601, fullRange: true)
    /// The signalling written on a gain-map image (`unspecified`).
    public static let gainMap = unspecified

    /// `colour_primaries` code points (ITU-T H.273 Table 2) the project reads or writes.
    public enum Primaries: UInt16, Sendable, CaseIterable {
        /// ITU-R BT.709 / sRGB (IEC 61966-2-1).
        case bt709 = 1
        /// Unspecified: the image characteristics are unknown or determined by the application (e.g. an ICC).
        case unspecified = 2
        /// ITU-R BT.2020 / BT.2100.
        case bt2020 = 9
        /// SMPTE EG 432-1 (P3 with the D65 white point): Display P3.
        case displayP3 = 12

        /// The H.273 name.
        public var name: String {
            switch self {
            case .bt709: "BT.709"
            case .unspecified: "unspecified"
            case .bt2020: "BT.2020"
            case .displayP3: "Display P3 (SMPTE EG 432-1)"
            }
        }
    }

    /// `transfer_characteristics` code points (ITU-T H.273 Table 3) the project reads or writes.
    public enum Transfer: UInt16, Sendable, CaseIterable {
        /// ITU-R BT.709 (the camera OETF).
        case bt709 = 1
        /// Unspecified.
        case unspecified = 2
        /// Linear.
        case linear = 8
        /// IEC 61966-2-1 sRGB (also the transfer of Display P3).
        case sRGB = 13
        /// SMPTE ST 2084 perceptual quantizer (PQ), BT.2100.
        case pq = 16
        /// ARIB STD-B67 hybrid log-gamma (HLG), BT.2100.
        case hlg = 18

        /// The H.273 name.
        public var name: String {
            switch self {
            case .bt709: "BT.709"
            case .unspecified: "unspecified"
            case .linear: "linear"
            case .sRGB: "sRGB (IEC 61966-2-1)"
            case .pq: "PQ (SMPTE ST 2084)"
            case .hlg: "HLG (ARIB STD-B67)"
            }
        }
    }

    /// `matrix_coefficients` code points (ITU-T H.273 Table 4) the project reads or writes.
    public enum Matrix: UInt16, Sendable, CaseIterable {
        /// Identity (GBR, no YCbCr transform).
        case identity = 0
        /// ITU-R BT.709.
        case bt709 = 1
        /// Unspecified.
        case unspecified = 2
        /// ITU-R BT.601 (625-line, BT.470 System B/G): the matrix libheif and Apple write for RGB photos.
        case bt601 = 6
        /// ITU-R BT.2020 non-constant luminance.
        case bt2020NCL = 9

        /// The H.273 name.
        public var name: String {
            switch self {
            case .identity: "identity"
            case .bt709: "BT.709"
            case .unspecified: "unspecified"
            case .bt601: "BT.601"
            case .bt2020NCL: "BT.2020 non-constant luminance"
            }
        }
    }
}
