import ColorScience
import Foundation

/// DNG 1.4 writer: Bayer CFA and LinearRaw images, uncompressed, with Exif, GPS, XMP and a MakerNote.
///
/// Layout (as cameras write it): IFD0 holds a small 8-bit RGB preview (NewSubFileType 1) and all the DNG and
/// TIFF/EP tags; its SubIFDs (330) hold the raw image (NewSubFileType 0), which is where LibRaw reads it from, and a
/// larger JPEG preview (`previewIFD`), the rendering the audit's render check compares a conversion with.
/// Scene-linear RGB (1.0 = diffuse white) becomes camera values through the profile's ColorMatrix1
/// (XYZ → camera, DNG 1.4 §6 "Camera to XYZ (D50)…"), normalised so a white object reads `AsShotNeutral`, then
/// scaled so diffuse white sits `headroomStops` below the white level (see `DNGSpec.baselineExposure`).

/// The 2×2 Bayer arrangement, named from the top-left site (TIFF/EP CFAPattern, 0 = red, 1 = green, 2 = blue).
public enum CFAPattern: String, Sendable, Codable, CaseIterable {
    case rggb = "RGGB"
    case bggr = "BGGR"
    case grbg = "GRBG"
    case gbrg = "GBRG"
    /// CFAPattern tag bytes for the 2×2 repeat (row-major).
    public var codes: [UInt8] {
        switch self {
        case .rggb: return [0, 1, 1, 2]
        case .bggr: return [2, 1, 1, 0]
        case .grbg: return [1, 0, 2, 1]
        case .gbrg: return [1, 2, 0, 1]
        }
    }
    /// The colour (0 R, 1 G, 2 B) at stored sensor position (x, y).
    public func colour(x: Int, y: Int) -> Int { Int(codes[(y & 1) * 2 + (x & 1)]) }
}

/// A camera as DNG describes it: names, lens and colour matrix.
public struct CameraProfile: Sendable, Codable, Equatable {
    public var make: String
    public var model: String
    public var uniqueCameraModel: String
    public var lensMake: String
    public var lensModel: String
    public var bodySerial: String
    /// ColorMatrix1, XYZ → camera native, row-major 3×3 (DNG 1.4 tag 50721).
    public var colorMatrix1: [Double]
    /// CalibrationIlluminant1 (EXIF LightSource code; 21 = D65).
    public var calibrationIlluminant1: UInt16

    public init(
        make: String, model: String, uniqueCameraModel: String, lensMake: String, lensModel: String,
        bodySerial: String, colorMatrix1: [Double], calibrationIlluminant1: UInt16 = 21
    ) {
        self.make = make
        self.model = model
        self.uniqueCameraModel = uniqueCameraModel
        self.lensMake = lensMake
        self.lensModel = lensModel
        self.bodySerial = bodySerial
        self.colorMatrix1 = colorMatrix1
        self.calibrationIlluminant1 = calibrationIlluminant1
    }

    /// A fictional camera whose native space is linear sRGB with per-channel gains (0.55, 1, 0.72) for D65 white:
    /// ColorMatrix1 = diag(gains) · XYZ→sRGB. LibRaw's camera-to-sRGB matrix for it is the identity, so its
    /// decode (camera white balance) returns the scene's linear sRGB directly.
    public static let synthetic = CameraProfile(
        make: "Readback", model: "Synthetic Bayer", uniqueCameraModel: "Readback Synthetic Bayer",
        lensMake: "Readback", lensModel: "Readback 50mm F1.8 Test Lens", bodySerial: "RB0000001",
        colorMatrix1: Matrix3.scaleRows([0.55, 1.0, 0.72], Primaries.xyzToSRGB))

    /// A ProRAW-like linear DNG camera (same colour science as `synthetic`).
    public static let syntheticLinear = CameraProfile(
        make: "Readback", model: "Synthetic Linear", uniqueCameraModel: "Readback Synthetic Linear",
        lensMake: "Readback", lensModel: "Readback 6.9mm F1.78 Test Lens", bodySerial: "RB0000002",
        colorMatrix1: Matrix3.scaleRows([0.55, 1.0, 0.72], Primaries.xyzToSRGB))
}

/// The capture metadata written to Exif, GPS and XMP.
public struct CaptureMetadata: Sendable, Codable, Equatable {
    public var dateTimeOriginal: String  // "YYYY:MM:DD HH:MM:SS"
    public var subSecTimeOriginal: String
    public var offsetTimeOriginal: String  // "+02:00"
    public var exposureTime: [UInt32]  // numerator, denominator
    public var fNumber: [UInt32]
    public var iso: UInt16
    public var focalLength: [UInt32]
    public var focalLength35mm: UInt16
    public var exposureBias: [Int32]
    public var artist: String
    public var copyright: String
    public var gps: GPSInfo?
    public var xmp: XMPInfo?
    /// Whether to write the MakerNote blob.
    public var makerNote: Bool

    /// The default capture: 2024-06-01 12:34:56.123 +02:00, 1/250 s, f/4, ISO 200, 50 mm, in Lausanne.
    public static let standard = CaptureMetadata(
        dateTimeOriginal: "2024:06:01 12:34:56", subSecTimeOriginal: "123", offsetTimeOriginal: "+02:00",
        exposureTime: [1, 250], fNumber: [4, 1], iso: 200, focalLength: [50, 1], focalLength35mm: 50,
        exposureBias: [-1, 3], artist: "Readback Corpus", copyright: "CC0 Readback synthetic corpus",
        gps: .standard, xmp: .standard, makerNote: true)
}

/// GPS position and time (CIPA DC-008 §4.6.6).
public struct GPSInfo: Sendable, Codable, Equatable {
    /// Signed decimal degrees (north and east positive).
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level (negative below).
    public var altitude: Double
    /// UTC hours, minutes, seconds.
    public var timeStamp: [UInt32]
    public var dateStamp: String

    public static let standard = GPSInfo(
        latitude: 46.519_963, longitude: 6.633_597, altitude: 495.5, timeStamp: [10, 34, 56], dateStamp: "2024:06:01")
}

/// The XMP fields written (XMP Specification Part 2: xmp:Rating, xmp:Label, dc:subject, dc:description).
public struct XMPInfo: Sendable, Codable, Equatable {
    public var rating: Int
    public var label: String
    public var keywords: [String]
    public var caption: String

    public static let standard = XMPInfo(
        rating: 4, label: "Green", keywords: ["readback", "corpus", "chart"], caption: "Readback test chart")

    /// The XMP packet, deterministic, UTF-8.
    public var packet: String {
        let kw = keywords.map { "     <rdf:li>\(xmlEscape($0))</rdf:li>" }.joined(separator: "\n")
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:xmp="http://ns.adobe.com/xap/1.0/"
                xmlns:dc="http://purl.org/dc/elements/1.1/"
               xmp:Rating="\(rating)"
               xmp:Label="\(xmlEscape(label))">
               <dc:subject>
                <rdf:Bag>
            \(kw)
                </rdf:Bag>
               </dc:subject>
               <dc:description>
                <rdf:Alt>
                 <rdf:li xml:lang="x-default">\(xmlEscape(caption))</rdf:li>
                </rdf:Alt>
               </dc:description>
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
    }
}

func xmlEscape(_ s: String) -> String {
    s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
}

extension String {
    func replacingAll(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// How the raw image is laid out.
public enum DNGLayout: Sendable, Codable, Equatable {
    /// One sample per pixel behind a 2×2 Bayer CFA (PhotometricInterpretation 32803).
    case bayer(CFAPattern)
    /// Three samples per pixel, already demosaiced (PhotometricInterpretation 34892 LinearRaw, like ProRAW).
    case linear

    public var name: String {
        switch self {
        case .bayer(let p): return p.rawValue
        case .linear: return "LinearRaw"
        }
    }
}

/// Everything that decides a DNG's bytes.
public struct DNGSpec: Sendable, Codable, Equatable {
    public var layout: DNGLayout
    /// 12, 14 or 16. 12 and 14 are packed big-endian bit streams (TIFF BitsPerSample 12/14); 16 is plain shorts.
    public var bitsPerSample: Int
    public var blackLevel: UInt32
    /// Diffuse white sits this many stops below the white level (BaselineExposure = headroomStops − 1.5).
    public var headroomStops: Double
    /// Gaussian read noise, standard deviation in raw codes (0 for none).
    public var noiseSigma: Double
    /// Shot + read noise in electrons (`SensorNoise`), applied instead of `noiseSigma`; nil for none.
    public var sensorNoise: SensorNoise?
    public var seed: UInt64
    /// Exif Orientation 1…8; the raw data is stored so that applying it shows the scene upright.
    public var orientation: Int
    public var camera: CameraProfile
    public var capture: CaptureMetadata
    /// TIFF byte order of the file.
    public var bigEndian: Bool
    /// Compression 7 (lossless Huffman JPEG, `LosslessJPEG`) instead of 1 (uncompressed).
    public var losslessJPEG: Bool
    /// Masked (optical black) rows above and columns left of the image; ActiveArea excludes them. Even values keep
    /// the CFA phase.
    public var maskedTop: Int
    public var maskedLeft: Int
    /// The embedded preview's tone curve, as a camera's look: each channel c renders as 0.18 · 2^previewExposure ·
    /// (c / 0.18)^previewContrast before the clip and the sRGB transfer (0 and 1: the scene as it is).
    public var previewExposure: Double = 0
    public var previewContrast: Double = 1
    /// The embedded preview's saturation, after its tone curve: each channel c renders as Y + s · (c − Y), Y its
    /// BT.709 luminance (1: as the curve leaves it; < 1: a camera that renders paler than colorimetric).
    public var previewSaturation: Double = 1

    public init(
        layout: DNGLayout, bitsPerSample: Int = 16, blackLevel: UInt32? = nil, headroomStops: Double = 4,
        noiseSigma: Double = 0, seed: UInt64 = 1, orientation: Int = 1, camera: CameraProfile = .synthetic,
        capture: CaptureMetadata = .standard, bigEndian: Bool = false, losslessJPEG: Bool = false,
        maskedTop: Int = 0, maskedLeft: Int = 0, sensorNoise: SensorNoise? = nil
    ) {
        self.sensorNoise = sensorNoise
        self.losslessJPEG = losslessJPEG
        self.maskedTop = maskedTop
        self.maskedLeft = maskedLeft
        self.layout = layout
        self.bitsPerSample = bitsPerSample
        self.blackLevel = blackLevel ?? UInt32(1 << max(0, bitsPerSample - 8))  // 16 @12 bit, 64 @14, 256 @16
        self.headroomStops = headroomStops
        self.noiseSigma = noiseSigma
        self.seed = seed
        self.orientation = orientation
        self.camera = camera
        self.capture = capture
        self.bigEndian = bigEndian
    }

    public var whiteLevel: UInt32 { UInt32((1 << bitsPerSample) - 1) }

    /// Stops a renderer places the sensor clip above diffuse white before BaselineExposure (the Converter's
    /// `clipStopsAboveWhite`, a typical camera default); BaselineExposure = headroomStops − this, so diffuse white
    /// renders at 1.0.
    public static let renderClipStops = 1.5
    /// The BaselineExposure written (DNG 1.4 tag 50730).
    public var baselineExposure: Double { headroomStops - DNGSpec.renderClipStops }
}

/// Colour maths on `RGB` for the writer and the tests (the constants and curves live in ColorScience).
public enum ColorMath {
    /// `m · v` for a row-major 3×3 matrix.
    public static func apply3(_ m: [Double], _ v: RGB) -> RGB {
        let r = Matrix3.apply(m, (v.r, v.g, v.b))
        return RGB(r.0, r.1, r.2)
    }

    /// sRGB OETF (IEC 61966-2-1) of a linear value, clipped to 0…1.
    public static func srgbEncode(_ x: Double) -> Double {
        SRGBTransfer.encode(min(1, max(0, x)))
    }
}

/// A deterministic generator (SplitMix64): the same seed gives the same sequence on every platform. The tests draw
/// their reproducible inputs from it too (`Int.random(in:using:)`).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Approximately normal, mean 0, standard deviation 1 (Irwin–Hall with 4 terms).
    public mutating func gaussian() -> Double { (unit() + unit() + unit() + unit() - 2) * 1.7320508075688772 }
}

/// Writes DNG files.
public enum DNGWriter {
    /// The MakerNote header: recognisable, and unknown to every maker-note parser (so LibRaw and exiftool keep it
    /// as opaque bytes).
    public static let makerNoteHeader: [UInt8] = Array("READBACK MAKERNOTE v1\0".utf8)

    /// The MakerNote blob for a seed: the header, then 64 seeded bytes.
    public static func makerNote(seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed ^ 0x4D4E)
        return makerNoteHeader + (0..<64).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// Mosaics (or, for LinearRaw, samples) a scene into a DNG.
    /// - Parameters:
    ///   - scene: scene-linear colours in display orientation (what a viewer should show after orientation).
    ///   - spec: layout, bit depth, levels, orientation, camera and capture metadata.
    /// - Returns: the DNG bytes; identical for identical inputs.
    // length: split with issue 20's sensor-noise model, which rewrites this function on another branch
    public static func write(scene: some SceneSource, spec: DNGSpec) -> [UInt8] {
        let o = ExifOrientation(exif: spec.orientation)
        let (sw, sh) = o.storedSize(displayWidth: scene.displayWidth, displayHeight: scene.displayHeight)
        let samples = spec.layout == .linear ? 3 : 1
        // Camera response: XYZ(rgb) through ColorMatrix1, normalised so white reads AsShotNeutral (max 1).
        let camFromRGB = Matrix3.multiply(spec.camera.colorMatrix1, Primaries.sRGBToXYZ)
        let neutralRaw = ColorMath.apply3(camFromRGB, .grey(1))
        let nmax = neutralRaw.max
        let neutral = [neutralRaw.r / nmax, neutralRaw.g / nmax, neutralRaw.b / nmax]
        let range = Double(spec.whiteLevel - spec.blackLevel)
        let scale = range / pow(2, spec.headroomStops) / nmax
        let gain = spec.sensorNoise?.gain(range: range) ?? 1
        var rng = SplitMix64(seed: spec.seed)
        var values = [UInt16](repeating: 0, count: sw * sh * samples)
        for y in 0..<sh {
            for x in 0..<sw {
                let (dx, dy) = o.displayPosition(x: x, y: y, storedWidth: sw, storedHeight: sh)
                let c = scene.pixel(x: dx, y: dy)
                let cam = ColorMath.apply3(camFromRGB, c)
                func put(_ v: Double, _ s: Int) {
                    if let n = spec.sensorNoise {
                        values[(y * sw + x) * samples + s] = n.code(
                            clean: v * scale, gain: gain, black: Double(spec.blackLevel),
                            white: Double(spec.whiteLevel), rng: &rng)
                        return
                    }
                    var code = Double(spec.blackLevel) + v * scale
                    if spec.noiseSigma > 0 { code += rng.gaussian() * spec.noiseSigma }
                    values[(y * sw + x) * samples + s] = UInt16(min(Double(spec.whiteLevel), max(0, code.rounded())))
                }
                switch spec.layout {
                case .bayer(let p):
                    let k = p.colour(x: x, y: y)
                    put(k == 0 ? cam.r : k == 1 ? cam.g : cam.b, 0)
                case .linear:
                    put(cam.r, 0)
                    put(cam.g, 1)
                    put(cam.b, 2)
                }
            }
        }
        // Masked border: black level plus read noise (its own generator, so the active pixels do not change).
        let (mt, ml) = (max(0, spec.maskedTop), max(0, spec.maskedLeft))
        let (fw, fh) = (sw + ml, sh + mt)
        if mt > 0 || ml > 0 {
            var full = [UInt16](repeating: 0, count: fw * fh * samples)
            var mrng = SplitMix64(seed: spec.seed ^ 0x4D41_534B)
            for y in 0..<fh {
                for x in 0..<fw {
                    for s in 0..<samples {
                        let i = (y * fw + x) * samples + s
                        if y >= mt && x >= ml {
                            full[i] = values[((y - mt) * sw + (x - ml)) * samples + s]
                        } else {
                            let code = Double(spec.blackLevel) + mrng.gaussian() * max(0.5, spec.noiseSigma)
                            full[i] = UInt16(min(Double(spec.whiteLevel), max(0, code.rounded())))
                        }
                    }
                }
            }
            values = full
        }
        let data: [UInt8]
        if spec.losslessJPEG {
            // A Bayer row of W samples is coded as W/2 × 2 components, a LinearRaw row as W × 3 (DNG SDK layout).
            let bayer = spec.layout != .linear
            data = LosslessJPEG.encode(
                values, width: bayer ? fw / 2 : fw, height: fh, components: bayer ? 2 : 3, precision: spec.bitsPerSample
            )
        } else {
            data = pack(values, bits: spec.bitsPerSample, rowSamples: fw * samples, rows: fh, bigEndian: spec.bigEndian)
        }

        // Raw IFD (SubIFD 0).
        var raw = TIFFIFD()
        raw[254] = .longs([0])
        raw[256] = .longs([UInt32(fw)])
        raw[257] = .longs([UInt32(fh)])
        raw[258] = .shorts(Array(repeating: UInt16(spec.bitsPerSample), count: samples))
        raw[259] = .shorts([spec.losslessJPEG ? 7 : 1])
        raw[277] = .shorts([UInt16(samples)])
        raw[278] = .longs([UInt32(sh)])
        raw[284] = .shorts([1])
        switch spec.layout {
        case .bayer(let p):
            raw[262] = .shorts([32803])
            raw[33421] = .shorts([2, 2])
            raw[33422] = .bytes(p.codes)
            raw[50710] = .bytes([0, 1, 2])  // CFAPlaneColor
            raw[50711] = .shorts([1])  // CFALayout: rectangular
        case .linear:
            raw[262] = .shorts([34892])
        }
        raw[50713] = .shorts([1, 1])  // BlackLevelRepeatDim
        raw[50714] = .longs(Array(repeating: spec.blackLevel, count: samples))
        raw[50717] = .longs(Array(repeating: spec.whiteLevel, count: samples))
        raw[50718] = .rationals([1, 1], [1, 1])  // DefaultScale
        raw[50719] = .longs([0, 0])  // DefaultCropOrigin
        raw[50720] = .longs([UInt32(sw), UInt32(sh)])  // DefaultCropSize
        raw[50829] = .longs([UInt32(mt), UInt32(ml), UInt32(fh), UInt32(fw)])  // ActiveArea: top, left, bottom, right
        if mt > 0 || ml > 0 {
            // MaskedAreas (DNG 1.4 tag 50830): the optical-black strips, top then left.
            var masked: [UInt32] = []
            if mt > 0 { masked += [0, 0, UInt32(mt), UInt32(fw)] }
            if ml > 0 { masked += [UInt32(mt), 0, UInt32(fh), UInt32(ml)] }
            raw[50830] = .longs(masked)
        }
        raw.imageData = data

        // IFD0: preview + DNG/TIFF-EP tags.
        var ifd0 = TIFFIFD()
        let (pw, ph) = (max(1, sw / 4), max(1, sh / 4))
        var preview = [UInt8](repeating: 0, count: pw * ph * 3)
        for y in 0..<ph {
            for x in 0..<pw {
                let sx = min(sw - 1, x * 4 + 2)
                let sy = min(sh - 1, y * 4 + 2)
                let (dx, dy) = o.displayPosition(x: sx, y: sy, storedWidth: sw, storedHeight: sh)
                let c = scene.pixel(x: dx, y: dy)
                let i = 3 * (y * pw + x)
                preview[i] = UInt8((ColorMath.srgbEncode(c.r) * 255).rounded())
                preview[i + 1] = UInt8((ColorMath.srgbEncode(c.g) * 255).rounded())
                preview[i + 2] = UInt8((ColorMath.srgbEncode(c.b) * 255).rounded())
            }
        }
        let cam = spec.camera
        let cap = spec.capture
        ifd0[254] = .longs([1])
        ifd0[256] = .longs([UInt32(pw)])
        ifd0[257] = .longs([UInt32(ph)])
        ifd0[258] = .shorts([8, 8, 8])
        ifd0[259] = .shorts([1])
        ifd0[262] = .shorts([2])
        ifd0[271] = .ascii(cam.make)
        ifd0[272] = .ascii(cam.model)
        ifd0[274] = .shorts([UInt16(o.exif)])
        ifd0[277] = .shorts([3])
        ifd0[278] = .longs([UInt32(ph)])
        ifd0[284] = .shorts([1])
        ifd0[305] = .ascii("Readback CorpusKit 1")
        ifd0[306] = .ascii(cap.dateTimeOriginal)
        ifd0[315] = .ascii(cap.artist)
        ifd0[33432] = .ascii(cap.copyright)
        if let xmp = cap.xmp {
            ifd0[270] = .ascii(xmp.caption)
            ifd0[700] = .bytes(Array(xmp.packet.utf8))
        }
        ifd0[330] = .ifds([
            raw,
            previewIFD(
                scene, storedWidth: sw, storedHeight: sh, orientation: o.exif,
                tone: (spec.previewExposure, spec.previewContrast), saturation: spec.previewSaturation),
        ])
        ifd0[34665] = .ifd(exifIFD(spec))
        if let gps = cap.gps { ifd0[34853] = .ifd(gpsIFD(gps)) }
        ifd0[50706] = .bytes([1, 4, 0, 0])  // DNGVersion
        ifd0[50707] = .bytes([1, 1, 0, 0])  // DNGBackwardVersion
        ifd0[50708] = .ascii(cam.uniqueCameraModel)
        ifd0[50721] = .srationals(cam.colorMatrix1)
        ifd0[50728] = .rationals(neutral.map { UInt32(($0 * 1_000_000).rounded()) }, [1_000_000, 1_000_000, 1_000_000])
        ifd0[50730] = .srationals([spec.baselineExposure], denominator: 100)  // BaselineExposure
        if cap.makerNote { ifd0[50741] = .shorts([1]) }  // MakerNoteSafety: safe
        ifd0[50778] = .shorts([cam.calibrationIlluminant1])
        ifd0.imageData = preview
        return TIFFWriter.serialize(ifd0, order: spec.bigEndian ? .big : .little)
    }

    static func exifIFD(_ spec: DNGSpec) -> TIFFIFD {
        let cap = spec.capture
        let cam = spec.camera
        var e = TIFFIFD()
        e[33434] = .rationals([cap.exposureTime[0]], [cap.exposureTime[1]])
        e[33437] = .rationals([cap.fNumber[0]], [cap.fNumber[1]])
        e[34850] = .shorts([3])  // ExposureProgram: aperture priority
        e[34855] = .shorts([cap.iso])
        e[34864] = .shorts([2])  // SensitivityType: REI… (2 = recommended exposure index)
        e[36864] = .undefined(Array("0232".utf8))
        e[36867] = .ascii(cap.dateTimeOriginal)
        e[36868] = .ascii(cap.dateTimeOriginal)
        e[36880] = .ascii(cap.offsetTimeOriginal)
        e[36881] = .ascii(cap.offsetTimeOriginal)
        e[36882] = .ascii(cap.offsetTimeOriginal)
        e[37380] = .srationals([cap.exposureBias[0]], [cap.exposureBias[1]])
        e[37383] = .shorts([5])  // MeteringMode: pattern
        e[37385] = .shorts([16])  // Flash: did not fire, compulsory off
        e[37386] = .rationals([cap.focalLength[0]], [cap.focalLength[1]])
        if cap.makerNote { e[37500] = .undefined(makerNote(seed: spec.seed)) }
        e[37521] = .ascii(cap.subSecTimeOriginal)
        e[37522] = .ascii(cap.subSecTimeOriginal)
        e[41989] = .shorts([cap.focalLength35mm])
        e[42033] = .ascii(cam.bodySerial)
        e[42034] = .rationals(
            [cap.focalLength[0], cap.focalLength[0], cap.fNumber[0], cap.fNumber[0]],
            [cap.focalLength[1], cap.focalLength[1], cap.fNumber[1], cap.fNumber[1]])
        e[42035] = .ascii(cam.lensMake)
        e[42036] = .ascii(cam.lensModel)
        return e
    }

    static func gpsIFD(_ g: GPSInfo) -> TIFFIFD {
        func dms(_ deg: Double) -> TIFFValue {
            let a = abs(deg)
            let d = a.rounded(.down)
            let m = ((a - d) * 60).rounded(.down)
            let s = (a - d - m / 60) * 3600
            return .rationals([UInt32(d), UInt32(m), UInt32((s * 10000).rounded())], [1, 1, 10000])
        }
        var i = TIFFIFD()
        i[0] = .bytes([2, 3, 0, 0])
        i[1] = .ascii(g.latitude >= 0 ? "N" : "S")
        i[2] = dms(g.latitude)
        i[3] = .ascii(g.longitude >= 0 ? "E" : "W")
        i[4] = dms(g.longitude)
        i[5] = .bytes([g.altitude >= 0 ? 0 : 1])
        i[6] = .rationals([UInt32((abs(g.altitude) * 10).rounded())], [10])
        i[7] = .rationals(g.timeStamp, [1, 1, 1])
        i[29] = .ascii(g.dateStamp)
        return i
    }

    /// Packs samples: 16-bit as shorts in the file's byte order; 12/14-bit as an MSB-first bit stream, each row
    /// starting on a byte boundary (TIFF 6.0 §2 BitsPerSample; DNG 1.4 §"Compression" value 1).
    static func pack(_ v: [UInt16], bits: Int, rowSamples: Int, rows: Int, bigEndian: Bool) -> [UInt8] {
        if bits == 16 {
            var out = [UInt8](repeating: 0, count: v.count * 2)
            for (i, x) in v.enumerated() {
                out[2 * i] = bigEndian ? UInt8(x >> 8) : UInt8(x & 0xFF)
                out[2 * i + 1] = bigEndian ? UInt8(x & 0xFF) : UInt8(x >> 8)
            }
            return out
        }
        let rowBytes = (rowSamples * bits + 7) / 8
        var out = [UInt8](repeating: 0, count: rowBytes * rows)
        for r in 0..<rows {
            var acc: UInt32 = 0
            var n = 0
            var p = r * rowBytes
            for s in 0..<rowSamples {
                acc = (acc << UInt32(bits)) | UInt32(v[r * rowSamples + s])
                n += bits
                while n >= 8 {
                    out[p] = UInt8((acc >> UInt32(n - 8)) & 0xFF)
                    p += 1
                    n -= 8
                }
                acc &= (1 << UInt32(n)) - 1
            }
            if n > 0 { out[p] = UInt8((acc << UInt32(8 - n)) & 0xFF) }
        }
        return out
    }
}
