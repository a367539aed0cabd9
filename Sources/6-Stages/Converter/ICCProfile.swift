import ColorScience

/// Minimal ICC v4.3 display profiles (matrix/TRC) for the two output spaces, written beside the `nclx` so readers
/// that only understand ICC still see the right colours (ICC.1:2010 §7–§10).
///
/// Tags: `desc`, `cprt` (mluc), `wtpt` (D50), `rXYZ`/`gXYZ`/`bXYZ` (colorants Bradford-adapted to D50), one shared
/// `para` curve (function type 3, the sRGB transfer used by both Display P3 and sRGB), `chad` (D65→D50 Bradford).
/// The numbers come from ColorScience.
enum ICCProfile {
    /// The profile for `space`.
    static func profile(for space: ColorSpace.Output) -> [UInt8] {
        switch space {
        case .displayP3: return build(description: "Display P3 (Readback)", toXYZD50: Primaries.displayP3ToXYZD50)
        case .sRGB: return build(description: "sRGB IEC61966-2.1 (Readback)", toXYZD50: Primaries.sRGBToXYZD50)
        }
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func s15(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }

    private static func sig(_ s: String) -> [UInt8] { Array(s.utf8.prefix(4)) }

    private static func mluc(_ text: String) -> [UInt8] {
        let utf16 = Array(text.utf16)
        var out = sig("mluc") + [0, 0, 0, 0] + be32(1) + be32(12)
        out += Array("enUS".utf8) + be32(UInt32(utf16.count * 2)) + be32(28)
        for u in utf16 { out += [UInt8(u >> 8), UInt8(u & 0xFF)] }
        return out
    }

    private static func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] {
        sig("XYZ ") + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z)
    }

    /// - Parameters:
    ///   - toXYZD50: linear RGB → XYZ (D50), row-major; its columns are the colorants.
    private static func build(description: String, toXYZD50 m: [Double]) -> [UInt8] {
        // para type 3: Y = (aX + b)^g for X ≥ d, else cX (IEC 61966-2-1).
        let t = SRGBTransfer.self
        let para =
            sig("para") + [0, 0, 0, 0] + [0, 3, 0, 0] + s15(t.gamma) + s15(1 / t.scale) + s15(t.offset / t.scale)
            + s15(1 / t.linearSlope) + s15(t.encodedThreshold)
        let chadTag = sig("sf32") + [0, 0, 0, 0] + Primaries.bradfordD65ToD50.flatMap { s15($0) }
        let d50 = WhitePoint.d50
        let tags: [(String, [UInt8])] = [
            ("desc", mluc(description)), ("cprt", mluc("No copyright, use freely")),
            ("wtpt", xyz(d50.x, d50.y, d50.z)), ("rXYZ", xyz(m[0], m[3], m[6])),
            ("gXYZ", xyz(m[1], m[4], m[7])), ("bXYZ", xyz(m[2], m[5], m[8])),
            ("rTRC", para), ("gTRC", para), ("bTRC", para), ("chad", chadTag),
        ]
        var table: [UInt8] = be32(UInt32(tags.count))
        var data: [UInt8] = []
        let dataStart = 128 + 4 + 12 * tags.count
        var sharedOffset: Int?
        for (name, body) in tags {
            let offset: Int
            if name.hasSuffix("TRC"), let s = sharedOffset {
                offset = s
            } else {
                while data.count % 4 != 0 { data.append(0) }
                offset = dataStart + data.count
                data += body
                if name.hasSuffix("TRC") { sharedOffset = offset }
            }
            table += sig(name) + be32(UInt32(offset)) + be32(UInt32(body.count))
        }
        while data.count % 4 != 0 { data.append(0) }
        let size = dataStart + data.count
        var h: [UInt8] = be32(UInt32(size)) + [0, 0, 0, 0] + [4, 0x30, 0, 0] + sig("mntr") + sig("RGB ") + sig("XYZ ")
        h += [0x07, 0xEA, 0, 11, 0, 30, 0, 0, 0, 0, 0, 0]  // 2026-11-30 00:00:00
        h +=
            sig("acsp") + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        h += be32(0) + s15(d50.x) + s15(d50.y) + s15(d50.z) + [0, 0, 0, 0]
        h += [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0, count: 28)
        precondition(h.count == 128)
        return h + table + data
    }
}
