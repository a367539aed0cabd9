internal import CJxl
import Foundation

/// Safe Swift face over libjxl (Debian 12: 0.7). Every libjxl call of the project goes through this module: the
/// decoder reads the JPEG XL tiles of DNG 1.7 files (Compression 52546) in the decoder workers; the encoder writes
/// them for the generated corpus.
///
/// Decoding is bounded for hostile input: the codestream's declared size is checked against `JXL.maxPixels` before
/// any pixel buffer is allocated, and a stream that ends early is an error, never a half-filled image.

/// A libjxl failure: the operation and what went wrong.
public struct JXLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }
}

/// A decoded JPEG XL image, interleaved, row-major, in the codestream's own sample range.
public struct JXLImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Colour channels: 1 (grey, a CFA mosaic) or 3.
    public var channels: Int
    /// The codestream's bits per sample (its nominal range: 0 … 2^bits − 1 for integers).
    public var bitsPerSample: Int
    /// Integer samples, `width × height × channels`, 0 … 2^bitsPerSample − 1; empty for a float image.
    public var integers: [UInt16]
    /// Float samples, `width × height × channels`; empty for an integer image.
    public var floats: [Float]

    public var isFloat: Bool { !floats.isEmpty }
}

/// JPEG XL decoding and encoding.
public enum JXL {
    /// Largest image decoded (pixels the header declares). A DNG tile is far smaller; anything beyond is refused
    /// before a buffer is allocated.
    public static let maxPixels = 200_000_000

    /// The two framings JPEG XL comes in: a bare codestream (FF 0A) or the ISOBMFF container ("JXL " box).
    /// - Returns: true when `bytes` starts like either.
    public static func isJPEGXL(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        if head.count >= 2, head[0] == 0xFF, head[1] == 0x0A { return true }
        return head == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    }

    /// Decodes one JPEG XL image (either framing) to its colour channels, keeping the stored orientation.
    /// - Parameter bytes: the codestream or container.
    /// - Returns: the samples in the codestream's range: integers scaled back from libjxl's 16-bit output to
    ///   0 … 2^bits − 1, floats as they are.
    /// - Throws: `JXLError` for a stream libjxl refuses, one that ends early, or a size over `maxPixels`.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(JXLError) -> JXLImage {
        guard let dec = JxlDecoderCreate(nil) else { throw JXLError(operation: "decode", message: "no decoder") }
        defer { JxlDecoderDestroy(dec) }
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(dec, events) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(dec, 1) == JXL_DEC_SUCCESS,
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
            JxlDecoderSetInput(dec, base, bytes.count) == JXL_DEC_SUCCESS
        else { throw JXLError(operation: "decode", message: "libjxl refused the input") }
        JxlDecoderCloseInput(dec)
        var info = JxlBasicInfo()
        var image: JXLImage? = nil
        var ints: [UInt16] = []
        var floats: [Float] = []
        while true {
            let status = JxlDecoderProcessInput(dec)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS else {
                    throw JXLError(operation: "decode", message: "unreadable header")
                }
                image = try header(info)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let im = image else { throw JXLError(operation: "decode", message: "pixels before header") }
                var format = JxlPixelFormat(
                    num_channels: UInt32(im.channels),
                    data_type: im.bitsPerSample == 0 ? JXL_TYPE_FLOAT : JXL_TYPE_UINT16,
                    endianness: JXL_NATIVE_ENDIAN, align: 0)
                var size = 0
                guard JxlDecoderImageOutBufferSize(dec, &format, &size) == JXL_DEC_SUCCESS else {
                    throw JXLError(operation: "decode", message: "no output size")
                }
                let n = im.width * im.height * im.channels
                let ok: Bool
                if format.data_type == JXL_TYPE_FLOAT {
                    guard size == n * 4 else { throw JXLError(operation: "decode", message: "output size \(size)") }
                    floats = [Float](repeating: 0, count: n)
                    ok = floats.withUnsafeMutableBytes {
                        JxlDecoderSetImageOutBuffer(dec, &format, $0.baseAddress, size) == JXL_DEC_SUCCESS
                    }
                } else {
                    guard size == n * 2 else { throw JXLError(operation: "decode", message: "output size \(size)") }
                    ints = [UInt16](repeating: 0, count: n)
                    ok = ints.withUnsafeMutableBytes {
                        JxlDecoderSetImageOutBuffer(dec, &format, $0.baseAddress, size) == JXL_DEC_SUCCESS
                    }
                }
                if !ok { throw JXLError(operation: "decode", message: "output buffer refused") }
            case JXL_DEC_FULL_IMAGE:
                continue
            case JXL_DEC_SUCCESS:
                guard var im = image, !(ints.isEmpty && floats.isEmpty) else {
                    throw JXLError(operation: "decode", message: "the stream holds no image")
                }
                if im.bitsPerSample == 0 {
                    im.bitsPerSample = Int(info.bits_per_sample)
                    im.floats = floats
                } else {
                    im.integers = scaledDown(ints, bits: im.bitsPerSample)
                }
                return im
            case JXL_DEC_NEED_MORE_INPUT:
                throw JXLError(operation: "decode", message: "the stream ends early (truncated)")
            default:
                throw JXLError(operation: "decode", message: "libjxl could not decode the stream")
            }
        }
    }

    /// Convenience: decodes bytes held in an array.
    public static func decode(_ bytes: [UInt8]) throws(JXLError) -> JXLImage {
        try typed { try bytes.withUnsafeBytes { try decode($0) } }
    }

    /// The image a header declares, its buffers still empty; `bitsPerSample` 0 marks a float image until the end.
    private static func header(_ info: JxlBasicInfo) throws(JXLError) -> JXLImage {
        let (w, h) = (Int(info.xsize), Int(info.ysize))
        guard w > 0, h > 0, w * h <= maxPixels else {
            throw JXLError(operation: "decode", message: "impossible size \(w)×\(h)")
        }
        let channels = Int(info.num_color_channels)
        guard channels == 1 || channels == 3 else {
            throw JXLError(operation: "decode", message: "\(channels) colour channels")
        }
        let bits = Int(info.bits_per_sample)
        guard info.exponent_bits_per_sample > 0 || (1...16).contains(bits) else {
            throw JXLError(operation: "decode", message: "\(bits) bits per integer sample")
        }
        return JXLImage(
            width: w, height: h, channels: channels, bitsPerSample: info.exponent_bits_per_sample > 0 ? 0 : bits,
            integers: [], floats: [])
    }

    /// libjxl hands integers back on a 16-bit scale whatever the codestream's depth: `round(v · 65535 / max)`. This
    /// undoes it exactly (the scale factor is ≥ 1, so no two codes meet).
    static func scaledDown(_ v: [UInt16], bits: Int) -> [UInt16] {
        guard bits < 16 else { return v }
        let maxCode = Double((1 << bits) - 1)
        return v.map { UInt16((Double($0) * maxCode / 65535).rounded()) }
    }

    /// The inverse of `scaledDown`: codes of a `bits`-deep image on libjxl's 16-bit input scale.
    static func scaledUp(_ v: [UInt16], bits: Int) -> [UInt16] {
        guard bits < 16 else { return v }
        let maxCode = Double((1 << bits) - 1)
        return v.map { UInt16((Double(min(Double($0), maxCode)) * 65535 / maxCode).rounded()) }
    }
}
