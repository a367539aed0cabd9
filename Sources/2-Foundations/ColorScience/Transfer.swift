import Foundation

/// The sRGB transfer (IEC 61966-2-1:1999 §5.2), the transfer of both sRGB and Display P3 (`NCLX.Transfer.sRGB`).
///
/// The Float overloads write the constants as Float literals: a literal rounds once to Float, while a Double
/// constant converted to Float would round twice, and the converter's 8/10-bit code tables must not move by a code.
public enum SRGBTransfer {
    /// The parameters (IEC 61966-2-1 §5.2): V = scale·L^(1/gamma) − offset from `linearThreshold` up,
    /// V = linearSlope·L below it; decoding switches segments at `encodedThreshold` (the standard's rounding of
    /// linearThreshold·linearSlope). An ICC `para` curve of function type 3 is written from them.
    public static let gamma = 2.4, scale = 1.055, offset = 0.055
    public static let linearSlope = 12.92, linearThreshold = 0.0031308, encodedThreshold = 0.04045

    /// Linear light → encoded value (the inverse EOTF); not clipped, meant for 0…1.
    public static func encode(_ v: Float) -> Float {
        v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }

    /// Linear light → encoded value (the inverse EOTF); not clipped, meant for 0…1.
    public static func encode(_ v: Double) -> Double {
        v <= linearThreshold ? linearSlope * v : scale * pow(v, 1 / gamma) - offset
    }

    /// Encoded value → linear light (the EOTF); not clipped, meant for 0…1.
    public static func decode(_ v: Float) -> Float {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Encoded value → linear light (the EOTF); not clipped, meant for 0…1.
    public static func decode(_ v: Double) -> Double {
        v <= encodedThreshold ? v / linearSlope : pow((v + offset) / scale, gamma)
    }
}

/// The ITU-R BT.709 camera transfer (`NCLX.Transfer.bt709`, BT.709-6 item 1.2).
public enum BT709Transfer {
    /// Encoded value → scene light: the inverse of the BT.709 OETF V = 1.099·L^0.45 − 0.099 (L ≥ 0.018), 4.5·L below.
    public static func decode(_ v: Float) -> Float {
        v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
    }
}

/// The SMPTE ST 2084 perceptual quantizer (`NCLX.Transfer.pq`), in absolute luminance: 1.0 encoded = 10,000 cd/m².
public enum PQTransfer {
    /// The luminance of the encoded value 1.0, in cd/m².
    public static let peakLuminance = 10_000.0
    static let m1 = 2610.0 / 16384
    static let m2 = 2523.0 / 4096 * 128
    static let c1 = 3424.0 / 4096
    static let c2 = 2413.0 / 4096 * 32
    static let c3 = 2392.0 / 4096 * 32

    /// Luminance in cd/m² (0…10,000) → encoded value 0…1 (the inverse EOTF, ST 2084 §5.3).
    public static func encode(luminance: Double) -> Double {
        let y = pow(min(max(luminance / peakLuminance, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// Encoded value 0…1 → luminance in cd/m² (the EOTF, ST 2084 §5.2).
    public static func decode(_ v: Double) -> Double {
        let p = pow(min(max(v, 0), 1), 1 / m2)
        return peakLuminance * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }
}
