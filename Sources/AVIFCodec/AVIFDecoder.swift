import CAVIF

/// A libavif failure: the call and libavif's own words.
public struct AVIFError: Error, Sendable, Equatable, CustomStringConvertible {
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
    /// `width × height × 3` samples, R G B.
    public var samples: [UInt8]
}

/// AV1 decoding through libavif (a second, independent reader of AVIF next to libheif).
public enum AVIFDecoder {
    /// Largest image decoded (pixels); bigger ones are refused before any pixel is decoded.
    public static let maxPixels: UInt32 = 120_000_000

    /// libavif's version ("0.11.1").
    public static let shortVersion = "\(AVIF_VERSION_MAJOR).\(AVIF_VERSION_MINOR).\(AVIF_VERSION_PATCH)"

    /// libavif's version and the AV1 codecs it was built with ("0.11.1 (dav1d [dec]:1.0.0, aom ...)").
    public static var version: String {
        var buf = [CChar](repeating: 0, count: 256)
        avifCodecVersions(&buf)
        let codecs = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "\(AVIF_VERSION_MAJOR).\(AVIF_VERSION_MINOR).\(AVIF_VERSION_PATCH) (\(codecs))"
    }

    /// Decodes the primary image of an AVIF to 8-bit RGB.
    /// - Throws: `AVIFError` with libavif's result and diagnostic for bytes it cannot decode.
    public static func decode(_ bytes: [UInt8]) throws(AVIFError) -> AVIFImage {
        guard let d = avifDecoderCreate() else {
            throw AVIFError(operation: "avifDecoderCreate", message: "out of memory")
        }
        defer { avifDecoderDestroy(d) }
        d.pointee.maxThreads = 1
        d.pointee.imageSizeLimit = maxPixels
        guard let img = avifImageCreateEmpty() else {
            throw AVIFError(operation: "avifImageCreateEmpty", message: "out of memory")
        }
        defer { avifImageDestroy(img) }
        let r = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(d, img, $0.baseAddress, $0.count) }
        guard r == AVIF_RESULT_OK else {
            throw AVIFError(operation: "avifDecoderReadMemory", message: describe(r, d))
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, img)
        rgb.format = AVIF_RGB_FORMAT_RGB
        rgb.depth = 8
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        let c = avifImageYUVToRGB(img, &rgb)
        guard c == AVIF_RESULT_OK, let pixels = rgb.pixels else {
            throw AVIFError(operation: "avifImageYUVToRGB", message: String(cString: avifResultToString(c)))
        }
        let w = Int(rgb.width)
        let h = Int(rgb.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let row = pixels + y * Int(rgb.rowBytes)
            for x in 0..<(w * 3) { out[y * w * 3 + x] = row[x] }
        }
        return AVIFImage(width: w, height: h, depth: Int(img.pointee.depth), samples: out)
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
