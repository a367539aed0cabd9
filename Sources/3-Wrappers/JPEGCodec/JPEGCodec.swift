internal import CTurboJPEG

/// Safe Swift face over libjpeg-turbo's TurboJPEG API. Every TurboJPEG call of the project goes through this module.
///
/// Decoding is bounded for hostile input: the header's dimensions are checked against `JPEGDecoder.maxPixels` before
/// any pixel buffer is allocated, progressive files are limited in their scan count (`TJFLAG_LIMITSCANS`), and a
/// warning (a truncated or corrupt stream that libjpeg would fill with grey) is an error, never a half-grey image.

/// A TurboJPEG failure: the operation and the library's message.
public struct JPEGError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public let operation: String
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }
}

/// An 8-bit RGB image, interleaved, row-major.
public struct JPEGImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width × height × 3` samples, R G B.
    public var samples: [UInt8]

    public init(width: Int, height: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.samples = samples
    }
}

/// Owns one TurboJPEG handle; `tjDestroy` in deinit.
private final class Handle {
    let ptr: tjhandle
    init(_ p: tjhandle) { ptr = p }
    deinit { tjDestroy(ptr) }

    /// The handle's last error as one line.
    var message: String {
        guard let s = tjGetErrorStr2(ptr) else { return "unknown error" }
        return String(cString: s).split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

/// JPEG → RGB decoding.
public enum JPEGDecoder {
    /// Largest image decoded (pixels of the full-size header). Previews and sources beyond it are refused unread.
    public static let maxPixels = 120_000_000

    /// The size a JPEG declares, read from its header only.
    /// - Throws: `JPEGError` when the bytes are not a JPEG TurboJPEG can read.
    public static func size(_ bytes: [UInt8]) throws(JPEGError) -> (width: Int, height: Int) {
        let h = try handle()
        return try header(h, bytes)
    }

    /// Decodes a JPEG to 8-bit RGB.
    /// - Parameters:
    ///   - bytes: the whole JPEG stream (SOI to EOI).
    ///   - minSide: when set, the decoder scales down by TurboJPEG's largest factor (1/2, 1/4, 1/8, …) that keeps the
    ///     long side at least this large: a large source decodes in a fraction of the time and memory.
    /// - Returns: the pixels (in the stream's own orientation; Exif orientation is the caller's).
    /// - Throws: `JPEGError` for a corrupt, truncated or oversized stream.
    public static func decode(_ bytes: [UInt8], minSide: Int? = nil) throws(JPEGError) -> JPEGImage {
        let h = try handle()
        let (w0, h0) = try header(h, bytes)
        var (w, ht) = (w0, h0)
        if let minSide, minSide > 0 {
            var n: Int32 = 0
            if let factors = tjGetScalingFactors(&n) {
                // The smallest scaled size whose long side is still ≥ minSide.
                for i in 0..<Int(n) {
                    let f = factors[i]
                    let sw = (w0 * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                    let sh = (h0 * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                    if max(sw, sh) >= minSide && sw * sh < w * ht { (w, ht) = (sw, sh) }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * ht * 3)
        let flags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
        let rc = bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    h.ptr, src.baseAddress, UInt(src.count), dst.baseAddress, Int32(w), 0, Int32(ht),
                    Int32(TJPF_RGB.rawValue), flags)
            }
        }
        if rc != 0 { throw JPEGError(operation: "decode", message: h.message) }
        return JPEGImage(width: w, height: ht, samples: out)
    }

    private static func handle() throws(JPEGError) -> Handle {
        guard let p = tjInitDecompress() else {
            throw JPEGError(operation: "tjInitDecompress", message: "cannot create a decoder")
        }
        return Handle(p)
    }

    private static func header(_ h: Handle, _ bytes: [UInt8]) throws(JPEGError) -> (Int, Int) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw JPEGError(operation: "decode", message: "not a JPEG stream (no SOI marker)")
        }
        var w: Int32 = 0
        var ht: Int32 = 0
        var sub: Int32 = 0
        var cs: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(h.ptr, $0.baseAddress, UInt($0.count), &w, &ht, &sub, &cs)
        }
        if rc != 0 { throw JPEGError(operation: "read header", message: h.message) }
        guard w > 0, ht > 0, Int(w) * Int(ht) <= maxPixels else {
            throw JPEGError(operation: "read header", message: "impossible dimensions \(w)×\(ht)")
        }
        return (Int(w), Int(ht))
    }
}

/// The APP segments of a JPEG that describe its pixels, found by walking its markers up to the first scan.
public struct JPEGSegments: Sendable, Equatable {
    /// The ICC profile (APP2 `ICC_PROFILE` chunks joined in sequence order), nil when absent or incomplete.
    public var icc: [UInt8]?
    /// The Exif TIFF bytes (APP1 `Exif\0\0` payload), nil when absent.
    public var exif: [UInt8]?

    /// Walks the markers of `bytes` (bounded by its length; a malformed segment ends the walk).
    public init(_ bytes: [UInt8]) {
        var chunks: [Int: [UInt8]] = [:]
        var total = 0
        var i = 2
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // start of scan / end of image
            if marker == 0xFF || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                i += marker == 0xFF ? 1 : 2
                continue
            }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { break }
            let payload = bytes[(i + 4)..<(i + 2 + length)]
            if marker == 0xE1, exif == nil, payload.starts(with: Array("Exif\0\0".utf8)) {
                exif = Array(payload.dropFirst(6))
            }
            let tag = Array("ICC_PROFILE\0".utf8)
            if marker == 0xE2, payload.starts(with: tag), payload.count >= tag.count + 2 {
                let seq = Int(payload[payload.startIndex + tag.count])
                total = Int(payload[payload.startIndex + tag.count + 1])
                chunks[seq] = Array(payload.dropFirst(tag.count + 2))
            }
            i += 2 + length
        }
        if total > 0, chunks.count == total, (1...total).allSatisfy({ chunks[$0] != nil }) {
            icc = (1...total).flatMap { chunks[$0]! }
        }
    }
}
