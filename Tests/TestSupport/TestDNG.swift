import Foundation

/// A minimal DNG writer for tests only (TIFF/EP + DNG 1.4 tags, uncompressed 16-bit), shared by the converter
/// and batch tests.
///
/// Camera space is linear sRGB (ColorMatrix1 = XYZ→linear-sRGB, D65), AsShotNeutral 1/1/1, so a scene
/// value `v` (0…1 of white) is written as `black + v·(white − black)`.
public enum TestDNG {
    public struct Options {
        public var width = 256
        public var height = 192
        /// Bayer RGGB CFA (true) or LinearRaw 3 samples per pixel (false).
        public var bayer = true
        public var orientation: UInt16 = 1
        public var black: UInt16 = 512
        public var white: UInt16 = 16383
        public var make = "Readback"
        public var model = "TestCam 1"
        public var baselineExposure: Double? = nil
        /// Write an Exif IFD and a GPS IFD with the values in `TestDNG.exifValues`.
        public var exif = true
        /// A raw code written as it is at (x, y) instead of the scene's (for every sample of that pixel): values
        /// the scene cannot give, above the white level (clipped highlights, garbage). nil keeps the scene's.
        public var rawCode: (@Sendable (Int, Int) -> UInt16?)? = nil
        /// ColorMatrix1 (XYZ D65 → camera space, row-major); nil = linear sRGB. A wider camera space lets a scene
        /// hold colours outside the output gamut.
        public var colorMatrix: [Double]? = nil

        public init() {}
    }

    /// The capture metadata written when `Options.exif` is set (exiftool -n values).
    public static let exifValues: [String: String] = [
        "Make": "Readback", "Model": "TestCam 1", "LensModel": "Readback 35mm F1.4 Test",
        "DateTimeOriginal": "2024:05:17 14:03:27", "SubSecTimeOriginal": "123", "OffsetTimeOriginal": "+02:00",
        "ExposureTime": "0.004", "FNumber": "2.8", "ISO": "400", "FocalLength": "35",
        "GPSLatitude": "48.8583", "GPSLongitude": "2.2945", "GPSAltitude": "35.5",
    ]

    /// Writes a DNG whose linear scene RGB (fractions of the white level) at (x, y) is `scene(x, y)`.
    public static func make(_ o: Options, scene: (Int, Int) -> (Double, Double, Double)) -> [UInt8] {
        let spp = o.bayer ? 1 : 3
        var pix = [UInt8]()
        pix.reserveCapacity(o.width * o.height * spp * 2)
        let range = Double(o.white) - Double(o.black)
        for y in 0..<o.height {
            for x in 0..<o.width {
                let s = scene(x, y)
                let rgb = [s.0, s.1, s.2]
                let vals: [Double]
                if o.bayer {
                    // RGGB
                    let c = (y % 2 == 0) ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                    vals = [rgb[c]]
                } else {
                    vals = rgb
                }
                for v in vals {
                    let code =
                        o.rawCode?(x, y)
                        ?? UInt16(max(0, min(65535, (Double(o.black) + max(0, min(1, v)) * range).rounded())))
                    pix.append(UInt8(code & 0xff))
                    pix.append(UInt8(code >> 8))
                }
            }
        }
        // XYZ (D65) → linear sRGB, as SRATIONAL with denominator 10000.
        let m: [Double] =
            o.colorMatrix ?? [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        var t = TIFF()
        t.add(254, .long, [0])
        t.add(256, .long, [UInt32(o.width)])
        t.add(257, .long, [UInt32(o.height)])
        t.add(258, .short, Array(repeating: 16, count: spp))
        t.add(259, .short, [1])
        t.add(262, .short, [o.bayer ? 32803 : 34892])
        t.addASCII(271, o.make)
        t.addASCII(272, o.model)
        t.add(273, .long, [0])  // patched
        t.add(274, .short, [UInt32(o.orientation)])
        t.add(277, .short, [UInt32(spp)])
        t.add(278, .long, [UInt32(o.height)])
        t.add(279, .long, [UInt32(pix.count)])
        t.add(284, .short, [1])
        if o.bayer {
            t.add(33421, .short, [2, 2])
            t.add(33422, .byte, [0, 1, 1, 2])
        }
        t.add(50706, .byte, [1, 4, 0, 0])
        t.add(50707, .byte, [1, 1, 0, 0])
        t.addASCII(50708, "\(o.make) \(o.model)")
        t.add(50714, .long, Array(repeating: UInt32(o.black), count: spp))
        t.add(50717, .long, Array(repeating: UInt32(o.white), count: spp))
        t.addSRational(50721, m.map { (Int32(($0 * 10000).rounded()), 10000) })
        t.addRational(50728, [(1, 1), (1, 1), (1, 1)])
        if let b = o.baselineExposure { t.addSRational(50730, [(Int32((b * 100).rounded()), 100)]) }
        t.add(50778, .short, [21])
        guard o.exif else { return t.write(pixelData: pix, stripOffsetTag: 273) }
        var e = TIFF()
        e.addRational(33434, [(1, 250)])
        e.addRational(33437, [(28, 10)])
        e.add(34855, .short, [400])
        e.add(36864, .undefined, Array("0231".utf8).map(UInt32.init))
        e.addASCII(36867, "2024:05:17 14:03:27")
        e.addASCII(36881, "+02:00")
        e.addASCII(37521, "123")
        e.addRational(37386, [(35, 1)])
        e.addASCII(42036, "Readback 35mm F1.4 Test")
        var g = TIFF()
        g.add(0, .byte, [2, 3, 0, 0])
        g.addASCII(1, "N")
        g.addRational(2, [(48, 1), (51, 1), (2988, 100)])  // 48°51'29.88" = 48.8583
        g.addASCII(3, "E")
        g.addRational(4, [(2, 1), (17, 1), (4020, 100)])  // 2°17'40.20" = 2.2945
        g.add(5, .byte, [0])
        g.addRational(6, [(355, 10)])
        t.add(34665, .long, [0])  // patched
        t.add(34853, .long, [0])  // patched
        return TIFF.writeFile(ifd0: t, exif: e, gps: g, pixelData: pix)
    }

    enum FieldType: UInt16 {
        case byte = 1
        case ascii = 2
        case short = 3
        case long = 4
        case rational = 5
        case undefined = 7
        case srational = 10
    }

    struct TIFF {
        var entries: [(tag: UInt16, type: FieldType, count: UInt32, data: [UInt8])] = []

        mutating func add(_ tag: UInt16, _ type: FieldType, _ values: [UInt32]) {
            var d = [UInt8]()
            for v in values {
                switch type {
                case .byte, .undefined: d.append(UInt8(v))
                case .short: d += le16(UInt16(v))
                default: d += le32(v)
                }
            }
            entries.append((tag, type, UInt32(values.count), d))
        }

        mutating func addASCII(_ tag: UInt16, _ s: String) {
            let d = Array(s.utf8) + [0]
            entries.append((tag, .ascii, UInt32(d.count), d))
        }

        mutating func addRational(_ tag: UInt16, _ v: [(UInt32, UInt32)]) {
            entries.append((tag, .rational, UInt32(v.count), v.flatMap { le32($0.0) + le32($0.1) }))
        }

        mutating func addSRational(_ tag: UInt16, _ v: [(Int32, Int32)]) {
            entries.append(
                (
                    tag, .srational, UInt32(v.count),
                    v.flatMap { le32(UInt32(bitPattern: $0.0)) + le32(UInt32(bitPattern: $0.1)) }
                ))
        }

        /// Bytes of this IFD (entries + next-IFD 0 + overflow values) when written at `offset`, with `patch`
        /// replacing the value of LONG tags.
        func ifdBytes(at offset: Int, patch: [UInt16: UInt32]) -> [UInt8] {
            let sorted = entries.sorted { $0.tag < $1.tag }
            var extraBase = offset + 2 + sorted.count * 12 + 4
            var out = le16(UInt16(sorted.count))
            var extra = [UInt8]()
            for e in sorted {
                out += le16(e.tag) + le16(e.type.rawValue) + le32(e.count)
                let data = patch[e.tag].map { le32($0) } ?? e.data
                if data.count <= 4 {
                    out += data + [UInt8](repeating: 0, count: 4 - data.count)
                } else {
                    out += le32(UInt32(extraBase))
                    extra += data
                    if data.count & 1 == 1 { extra.append(0) }
                    extraBase += data.count + (data.count & 1)
                }
            }
            return out + le32(0) + extra
        }

        /// A TIFF with IFD0, its Exif IFD and GPS IFD, then the pixel strip.
        static func writeFile(ifd0: TIFF, exif: TIFF, gps: TIFF, pixelData: [UInt8]) -> [UInt8] {
            let o0 = 8
            let s0 = ifd0.ifdBytes(at: o0, patch: [273: 0, 34665: 0, 34853: 0]).count
            let oE = o0 + s0
            let sE = exif.ifdBytes(at: oE, patch: [:]).count
            let oG = oE + sE
            let sG = gps.ifdBytes(at: oG, patch: [:]).count
            let data = oG + sG
            var out: [UInt8] = [0x49, 0x49, 42, 0] + le32(UInt32(o0))
            out += ifd0.ifdBytes(at: o0, patch: [273: UInt32(data), 34665: UInt32(oE), 34853: UInt32(oG)])
            out += exif.ifdBytes(at: oE, patch: [:])
            out += gps.ifdBytes(at: oG, patch: [:])
            precondition(out.count == data)
            return out + pixelData
        }

        func write(pixelData: [UInt8], stripOffsetTag: UInt16) -> [UInt8] {
            let sorted = entries.sorted { $0.tag < $1.tag }
            let ifdOffset = 8
            let ifdSize = 2 + sorted.count * 12 + 4
            var extra = [UInt8]()
            var extraBase = ifdOffset + ifdSize
            var dataStart = 0
            // First pass: compute where pixel data goes (after IFD and overflow values).
            var overflow = 0
            for e in sorted where e.data.count > 4 { overflow += e.data.count + (e.data.count & 1) }
            dataStart = extraBase + overflow
            var out = [UInt8]([0x49, 0x49, 42, 0]) + le32(UInt32(ifdOffset))
            out += le16(UInt16(sorted.count))
            for e in sorted {
                out += le16(e.tag) + le16(e.type.rawValue) + le32(e.count)
                var data = e.data
                if e.tag == stripOffsetTag { data = le32(UInt32(dataStart)) }
                if data.count <= 4 {
                    out += data + [UInt8](repeating: 0, count: 4 - data.count)
                } else {
                    out += le32(UInt32(extraBase))
                    extra += data
                    if data.count & 1 == 1 { extra.append(0) }
                    extraBase += data.count + (data.count & 1)
                }
            }
            out += le32(0)
            out += extra
            precondition(out.count == dataStart)
            return out + pixelData
        }
    }
}

private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
private func le32(_ v: UInt32) -> [UInt8] {
    [UInt8(v & 0xff), UInt8((v >> 8) & 0xff), UInt8((v >> 16) & 0xff), UInt8(v >> 24)]
}
