internal import CJxl
import Foundation

/// How to encode: lossless, or lossy at a butteraugli distance; bare codestream or container; effort.
public struct JXLEncodeOptions: Sendable, Equatable {
    /// nil: mathematically lossless (modular). Otherwise the distance (1.0 ≈ visually lossless).
    public var distance: Float?
    /// Wrap the codestream in the ISOBMFF container (as Apple's DNGs do) instead of a bare codestream (Adobe's).
    public var container: Bool
    /// libjxl's effort, 1 (fastest) … 9.
    public var effort: Int

    public init(distance: Float? = nil, container: Bool = false, effort: Int = 3) {
        self.distance = distance
        self.container = container
        self.effort = effort
    }

    public static let lossless = JXLEncodeOptions()
}

extension JXL {
    /// Encodes integer samples (interleaved, 1 or 3 channels, 0 … 2^bits − 1) as a JPEG XL image of that depth.
    /// - Throws: `JXLError` when libjxl refuses the settings or the image.
    public static func encode(
        _ samples: [UInt16], width: Int, height: Int, channels: Int, bits: Int, options: JXLEncodeOptions = .lossless
    ) throws(JXLError) -> [UInt8] {
        guard samples.count == width * height * channels, (1...16).contains(bits) else {
            throw JXLError(operation: "encode", message: "\(samples.count) samples for \(width)×\(height)×\(channels)")
        }
        let scaled = scaledUp(samples, bits: bits)
        return try typed {
            try scaled.withUnsafeBytes { raw in
                try encode(
                    raw, type: JXL_TYPE_UINT16, width: width, height: height, channels: channels, bits: bits,
                    exponentBits: 0, options: options)
            }
        }
    }

    /// Encodes 32-bit float samples (interleaved, 1 or 3 channels) as a float JPEG XL image.
    /// - Throws: `JXLError` when libjxl refuses the settings or the image.
    public static func encode(
        floats: [Float], width: Int, height: Int, channels: Int, options: JXLEncodeOptions = .lossless
    ) throws(JXLError) -> [UInt8] {
        guard floats.count == width * height * channels else {
            throw JXLError(operation: "encode", message: "\(floats.count) samples for \(width)×\(height)×\(channels)")
        }
        return try typed {
            try floats.withUnsafeBytes { raw in
                try encode(
                    raw, type: JXL_TYPE_FLOAT, width: width, height: height, channels: channels, bits: 32,
                    exponentBits: 8, options: options)
            }
        }
    }

    /// Runs `body`, whose buffer closures throw untyped, as a `JXLError` thrower.
    public static func typed<T>(_ body: () throws -> T) throws(JXLError) -> T {
        do {
            return try body()
        } catch let e as JXLError {
            throw e
        } catch {
            throw JXLError(operation: "encode", message: "\(error)")
        }
    }

    private static func encode(
        _ pixels: UnsafeRawBufferPointer, type: JxlDataType, width: Int, height: Int, channels: Int, bits: Int,
        exponentBits: Int, options: JXLEncodeOptions
    ) throws(JXLError) -> [UInt8] {
        guard let enc = JxlEncoderCreate(nil) else { throw JXLError(operation: "encode", message: "no encoder") }
        defer { JxlEncoderDestroy(enc) }
        func check(_ s: JxlEncoderStatus, _ what: String) throws(JXLError) {
            if s != JXL_ENC_SUCCESS { throw JXLError(operation: "encode", message: "\(what) refused") }
        }
        let lossless = options.distance == nil
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.num_color_channels = UInt32(channels)
        info.bits_per_sample = UInt32(bits)
        info.exponent_bits_per_sample = UInt32(exponentBits)
        info.uses_original_profile = lossless ? 1 : 0
        try check(JxlEncoderUseContainer(enc, options.container ? 1 : 0), "container")
        try check(JxlEncoderSetBasicInfo(enc, &info), "basic info")
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToLinearSRGB(&colour, channels == 1 ? 1 : 0)
        try check(JxlEncoderSetColorEncoding(enc, &colour), "colour encoding")
        guard let settings = JxlEncoderFrameSettingsCreate(enc, nil) else {
            throw JXLError(operation: "encode", message: "no frame settings")
        }
        try check(
            JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(options.effort)), "effort")
        if let d = options.distance {
            try check(JxlEncoderSetFrameDistance(settings, d), "distance \(d)")
        } else {
            try check(JxlEncoderSetFrameLossless(settings, 1), "lossless")
        }
        var format = JxlPixelFormat(
            num_channels: UInt32(channels), data_type: type, endianness: JXL_NATIVE_ENDIAN, align: 0)
        try check(JxlEncoderAddImageFrame(settings, &format, pixels.baseAddress, pixels.count), "image frame")
        JxlEncoderCloseInput(enc)
        var out = [UInt8](repeating: 0, count: max(4096, pixels.count / 4))
        var written = 0
        while true {
            var avail = out.count - written
            let status = out.withUnsafeMutableBufferPointer { buf -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + written
                let s = JxlEncoderProcessOutput(enc, &next, &avail)
                written = next! - buf.baseAddress!
                return s
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw JXLError(operation: "encode", message: "failed") }
            out += [UInt8](repeating: 0, count: out.count)
        }
        return Array(out[0..<written])
    }
}
