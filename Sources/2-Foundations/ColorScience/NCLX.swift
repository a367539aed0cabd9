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
        case bt709 = 1  // BT.709, and sRGB
        case unspecified = 2  // unknown, or left to an ICC profile
        case bt2020 = 9  // BT.2020 / BT.2100
        case displayP3 = 12  // SMPTE EG 432-1: P3 with a D65 white, Display P3
    }

    /// `transfer_characteristics` code points (ITU-T H.273 Table 3) the project reads or writes.
    public enum Transfer: UInt16, Sendable, CaseIterable {
        case bt709 = 1  // BT.709 camera OETF
        case unspecified = 2
        case linear = 8
        case sRGB = 13  // IEC 61966-2-1, also Display P3's transfer
        case pq = 16  // SMPTE ST 2084 perceptual quantizer (BT.2100 HDR)
        case hlg = 18  // ARIB STD-B67 hybrid log-gamma (BT.2100 HDR)
    }

    /// `matrix_coefficients` code points (ITU-T H.273 Table 4) the project reads or writes.
    public enum Matrix: UInt16, Sendable, CaseIterable {
        case identity = 0  // GBR, no YCbCr transform
        case bt709 = 1
        case unspecified = 2
        case bt601 = 6  // BT.601 625-line: what libheif and Apple write for RGB photos
        case bt2020NCL = 9  // BT.2020 non-constant luminance
    }
}
