import CorpusKit
import Foundation

/// A minimal DNG for tests (TIFF/EP + DNG 1.4 tags, uncompressed 16-bit, a scene given per pixel), shared by the
/// converter and batch tests, written with CorpusKit's TIFF writer.
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
        var t = TIFFIFD(imageData: pix)
        t[254] = .longs([0])
        t[256] = .longs([UInt32(o.width)])
        t[257] = .longs([UInt32(o.height)])
        t[258] = .shorts(Array(repeating: 16, count: spp))
        t[259] = .shorts([1])
        t[262] = .shorts([o.bayer ? 32803 : 34892])
        t[271] = .ascii(o.make)
        t[272] = .ascii(o.model)
        t[274] = .shorts([o.orientation])
        t[277] = .shorts([UInt16(spp)])
        t[278] = .longs([UInt32(o.height)])
        t[284] = .shorts([1])
        if o.bayer {
            t[33421] = .shorts([2, 2])
            t[33422] = .bytes([0, 1, 1, 2])
        }
        t[50706] = .bytes([1, 4, 0, 0])
        t[50707] = .bytes([1, 1, 0, 0])
        t[50708] = .ascii("\(o.make) \(o.model)")
        t[50714] = .longs(Array(repeating: UInt32(o.black), count: spp))
        t[50717] = .longs(Array(repeating: UInt32(o.white), count: spp))
        t[50721] = .srationals(m)
        t[50728] = .rationals([1, 1, 1], [1, 1, 1])
        if let b = o.baselineExposure { t[50730] = .srationals([b], denominator: 100) }
        t[50778] = .shorts([21])
        if o.exif {
            var e = TIFFIFD()
            e[33434] = .rationals([1], [250])
            e[33437] = .rationals([28], [10])
            e[34855] = .shorts([400])
            e[36864] = .undefined(Array("0231".utf8))
            e[36867] = .ascii("2024:05:17 14:03:27")
            e[36881] = .ascii("+02:00")
            e[37521] = .ascii("123")
            e[37386] = .rationals([35], [1])
            e[42036] = .ascii("Readback 35mm F1.4 Test")
            var g = TIFFIFD()
            g[0] = .bytes([2, 3, 0, 0])
            g[1] = .ascii("N")
            g[2] = .rationals([48, 51, 2988], [1, 1, 100])  // 48°51'29.88" = 48.8583
            g[3] = .ascii("E")
            g[4] = .rationals([2, 17, 4020], [1, 1, 100])  // 2°17'40.20" = 2.2945
            g[5] = .bytes([0])
            g[6] = .rationals([355], [10])
            t[34665] = .ifd(e)
            t[34853] = .ifd(g)
        }
        return TIFFWriter.serialize(t, order: .little)
    }
}
