import CAVIF

/// A libavif failure: the call and libavif's own words.
public struct AVIFError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public let operation: String
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }
}

/// An AVIF's primary image as libavif decodes it: its coded size and depth, and 8-bit RGB, interleaved, row-major.
public struct AVIFImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The coded bit depth (8, 10 or 12).
    public var depth: Int
    /// `width × height × 3` samples, R G B (empty when decoded without RGB, `rgb: false`).
    public var samples: [UInt8]
    /// The colour signalling libavif reports for the image (its `colr` nclx, else the AV1 sequence header's), as
    /// H.273 code points.
    public var colourPrimaries: UInt16 = 2
    public var transferCharacteristics: UInt16 = 2
    public var matrixCoefficients: UInt16 = 2
    public var fullRange: Bool = true
    /// The ICC profile (`colr` prof), when the file has one.
    public var icc: [UInt8]? = nil

    public init(
        width: Int, height: Int, depth: Int, samples: [UInt8], colourPrimaries: UInt16 = 2,
        transferCharacteristics: UInt16 = 2, matrixCoefficients: UInt16 = 2, fullRange: Bool = true,
        icc: [UInt8]? = nil
    ) {
        (self.width, self.height, self.depth, self.samples) = (width, height, depth, samples)
        (self.colourPrimaries, self.transferCharacteristics) = (colourPrimaries, transferCharacteristics)
        (self.matrixCoefficients, self.fullRange, self.icc) = (matrixCoefficients, fullRange, icc)
    }
}

/// AV1 decoding through libavif (a second, independent reader of AVIF next to libheif).
public enum AVIFDecoder {
    /// Largest image decoded (pixels); bigger ones are refused before any pixel is decoded.
    public static let maxPixels: UInt32 = 120_000_000

    /// The version of the libavif loaded at run time (`avifVersion()`, "0.11.1").
    public static let shortVersion = String(cString: avifVersion())

    /// libavif's version and the AV1 codecs it was built with ("0.11.1 (dav1d [dec]:1.0.0, aom ...)").
    public static var version: String {
        var buf = [CChar](repeating: 0, count: 256)
        avifCodecVersions(&buf)
        let codecs = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "\(shortVersion) (\(codecs))"
    }

    /// Decodes the primary image of an AVIF to 8-bit RGB.
    /// - Parameters:
    ///   - strict: libavif's default strict checks (`pixi` required, valid `clap`, alpha `ispe`); false turns them
    ///     all off, as `avifdec --no-strict` does.
    ///   - rgb: false decodes the AV1 data but skips the RGB conversion (`samples` stays empty).
    /// - Throws: `AVIFError` with libavif's result and diagnostic for bytes it cannot decode.
    public static func decode(_ bytes: [UInt8], strict: Bool = true, rgb wantRGB: Bool = true) throws(AVIFError)
        -> AVIFImage
    {
        guard let d = avifDecoderCreate() else {
            throw AVIFError(operation: "avifDecoderCreate", message: "out of memory")
        }
        defer { avifDecoderDestroy(d) }
        d.pointee.maxThreads = 1
        d.pointee.imageSizeLimit = maxPixels
        d.pointee.strictFlags = strict ? AVIF_STRICT_ENABLED.rawValue : AVIF_STRICT_DISABLED.rawValue
        guard let img = avifImageCreateEmpty() else {
            throw AVIFError(operation: "avifImageCreateEmpty", message: "out of memory")
        }
        defer { avifImageDestroy(img) }
        let r = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(d, img, $0.baseAddress, $0.count) }
        guard r == AVIF_RESULT_OK else {
            throw AVIFError(operation: "avifDecoderReadMemory", message: describe(r, d))
        }
        var out = AVIFImage(
            width: Int(img.pointee.width), height: Int(img.pointee.height), depth: Int(img.pointee.depth), samples: [],
            colourPrimaries: UInt16(img.pointee.colorPrimaries),
            transferCharacteristics: UInt16(img.pointee.transferCharacteristics),
            matrixCoefficients: UInt16(img.pointee.matrixCoefficients),
            fullRange: img.pointee.yuvRange == AVIF_RANGE_FULL)
        let icc = img.pointee.icc
        if icc.size > 0, let data = icc.data { out.icc = Array(UnsafeBufferPointer(start: data, count: icc.size)) }
        guard wantRGB else { return out }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, img)
        // RGBA, then the alpha dropped: libavif 0.11 asked for RGB of an image with alpha multiplies the colour by
        // the alpha (composites over black); libheif's RGB, and every viewer's colour, is the straight one.
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        let c = avifImageYUVToRGB(img, &rgb)
        guard c == AVIF_RESULT_OK, let pixels = rgb.pixels else {
            throw AVIFError(operation: "avifImageYUVToRGB", message: String(cString: avifResultToString(c)))
        }
        let w = Int(rgb.width)
        let h = Int(rgb.height)
        var samples = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let row = pixels + y * Int(rgb.rowBytes)
            for x in 0..<w {
                for c in 0..<3 { samples[(y * w + x) * 3 + c] = row[x * 4 + c] }
            }
        }
        out.samples = samples
        return out
    }

    /// libavif's result string and its diagnostic line, when it wrote one.
    static func describe(_ r: avifResult, _ d: UnsafeMutablePointer<avifDecoder>) -> String {
        let result = String(cString: avifResultToString(r))
        let diag = withUnsafeBytes(of: d.pointee.diag.error) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return diag.isEmpty ? result : "\(result): \(diag)"
    }
}
