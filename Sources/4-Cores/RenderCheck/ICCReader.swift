import ColorScience
import Foundation

/// Reads the colour space of an RGB matrix/TRC ICC profile (ICC.1:2010 §8.3.3): the `rXYZ`/`gXYZ`/`bXYZ` colorants
/// (PCS, D50-adapted) brought back to D65 with Bradford, and the `rTRC` curve (the green and blue curves are assumed
/// equal, as in every display profile). Bounded: every offset and count is checked against the profile's length.
public enum ICCReader {
    /// The space the profile describes, nil for a profile that is not RGB matrix/TRC (LUT-based, grey, CMYK) or is
    /// malformed.
    public static func colourSpace(_ icc: [UInt8]) -> ColorSpace? {
        guard icc.count >= 132, string(icc, 16, 4) == "RGB ", string(icc, 36, 4) == "acsp" else { return nil }
        let count = Int(u32(icc, 128))
        guard count > 0, count < 1000, 132 + 12 * count <= icc.count else { return nil }
        var tags: [String: (Int, Int)] = [:]
        for i in 0..<count {
            let e = 132 + 12 * i
            let off = Int(u32(icc, e + 4))
            let size = Int(u32(icc, e + 8))
            guard off >= 0, size >= 8, off + size <= icc.count else { continue }
            tags[string(icc, e, 4)] = (off, size)
        }
        guard let r = xyz(icc, tags["rXYZ"]), let g = xyz(icc, tags["gXYZ"]), let b = xyz(icc, tags["bXYZ"]),
            let trc = curve(icc, tags["rTRC"])
        else { return nil }
        let d50 = [r.0, g.0, b.0, r.1, g.1, b.1, r.2, g.2, b.2]
        let toXYZ = Matrix3.multiply(Matrix3.invert(Primaries.bradfordD65ToD50), d50)
        return ColorSpace(name: "ICC \(description(icc, tags["desc"]) ?? "RGB")", toXYZ: toXYZ, transfer: trc)
    }

    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }

    static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) << 8 | UInt16(b[o + 1]) }

    static func s15(_ b: [UInt8], _ o: Int) -> Double { Double(Int32(bitPattern: u32(b, o))) / 65536 }

    static func string(_ b: [UInt8], _ o: Int, _ n: Int) -> String {
        String(decoding: b[o..<(o + n)], as: UTF8.self)
    }

    static func xyz(_ b: [UInt8], _ tag: (Int, Int)?) -> (Double, Double, Double)? {
        guard let (o, size) = tag, size >= 20, string(b, o, 4) == "XYZ " else { return nil }
        return (s15(b, o + 8), s15(b, o + 12), s15(b, o + 16))
    }

    static func curve(_ b: [UInt8], _ tag: (Int, Int)?) -> TransferCurve? {
        guard let (o, size) = tag, size >= 12 else { return nil }
        switch string(b, o, 4) {
        case "curv":
            let n = Int(u32(b, o + 8))
            guard 12 + 2 * n <= size else { return nil }
            if n == 0 { return .linear }
            if n == 1 { return .gamma(Double(u16(b, o + 12)) / 256) }
            return .table((0..<n).map { Double(u16(b, o + 12 + 2 * $0)) / 65535 })
        case "para":
            let type = Int(u16(b, o + 8))
            let counts = [1, 3, 4, 5, 7]
            guard type < counts.count, 12 + 4 * counts[type] <= size else { return nil }
            return .parametric(type: type, params: (0..<counts[type]).map { s15(b, o + 12 + 4 * $0) })
        default:
            return nil
        }
    }

    /// The profile's description (`desc`: v2 textDescriptionType or v4 multiLocalizedUnicodeType), for reports.
    static func description(_ b: [UInt8], _ tag: (Int, Int)?) -> String? {
        guard let (o, size) = tag, size >= 12 else { return nil }
        switch string(b, o, 4) {
        case "desc":
            let n = Int(u32(b, o + 8))
            guard n > 0, 12 + n <= size else { return nil }
            return String(decoding: b[(o + 12)..<(o + 12 + n)].prefix { $0 != 0 }, as: UTF8.self)
        case "mluc":
            guard size >= 28, u32(b, o + 8) > 0 else { return nil }
            let len = Int(u32(b, o + 20))
            let at = o + Int(u32(b, o + 24))
            guard at + len <= o + size, len % 2 == 0 else { return nil }
            let units = stride(from: at, to: at + len, by: 2).map { u16(b, $0) }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }
}
