internal import CHeif
import ColorScience
import Foundation
import Synchronization

/// Safe Swift face over libheif. Every libheif call of the project goes through this module.
public enum Heif {
    /// libheif's version, read from the library at run time (`heif_get_version()`).
    public static var version: String { String(cString: heif_get_version()) }
}

/// A libheif failure: the operation, libheif's error code/subcode and its message.
public struct HeifError: Error, CustomStringConvertible, Equatable, Sendable, Codable {
    public var operation: String
    public var code: Int
    public var subcode: Int
    public var message: String

    public init(operation: String, code: Int = -1, subcode: Int = 0, message: String) {
        self.operation = operation
        self.code = code
        self.subcode = subcode
        self.message = message
    }

    public var description: String { "\(operation) failed: \(message) (libheif error \(code).\(subcode))" }
}

/// Chroma layout of the coded HEVC stream.
public enum HeifChroma: String, Sendable, Equatable, CaseIterable {
    case yuv420 = "420"
    case yuv444 = "444"
    /// 4:0:0, one plane: used for gain maps.
    case monochrome = "400"
}

/// Encoder settings (x265 through libheif 1.15).
public struct HeifEncodeSettings: Sendable, Equatable {
    /// libheif quality 0–100 (x265 CRF = (100 − q) / 2).
    public var quality: Int
    /// 8 or 10 bits per sample.
    public var bitDepth: Int
    public var chroma: HeifChroma
    /// x265 preset: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.
    public var preset: String
    /// x265 tune: psnr, ssim, grain, fastdecode.
    public var tune: String
    public var lossless: Bool
    /// Written on the image as `nclx` (libheif 1.15 writes none unless this is set *and* the
    /// `macOS_compatibility_workaround_no_nclx_profile` option is cleared; docs/platform.md).
    public var nclx: NCLX
    /// Optional ICC profile written as a second `colr` (`prof`) box.
    public var icc: [UInt8]?
    /// x265 options passed through libheif as `x265:NAME` (applied after the preset and tune, in name order), e.g.
    /// `["nr-intra": "200"]`. x265 ignores names it does not know without an error (docs/platform.md), so a caller
    /// must check that an option changes the stream.
    public var x265: [String: String]

    /// `x265` for a `width`×`height` picture: a coding tree unit under 32 is raised to 32 on a picture larger than
    /// HEVC level 4.1 holds (2,228,224 luma samples, or a side over 4222; sides counted up to a multiple of 8, as
    /// x265 may pad them). Levels 5 and up allow only 32 and 64 in the Main profiles (H.265 Annex A), and x265 refuses a
    /// 16 there ("Invalid image size" through libheif): 1500×1500 at `ctu` 16 fails, 2048×1024 codes.
    public func x265Options(width: Int, height: Int) -> [String: String] {
        guard let ctu = x265["ctu"].flatMap({ Int($0) }), ctu < 32 else { return x265 }
        guard !Self.withinLevel41(width: width, height: height) else { return x265 }
        return x265.merging(["ctu": "32"]) { _, raised in raised }
    }

    /// True when a `width`×`height` picture is within HEVC level 4.1: at most 2,228,224 luma samples and no side over
    /// 4222, sides counted up to a multiple of 8 (as x265 may pad them).
    public static func withinLevel41(width: Int, height: Int) -> Bool {
        let (w, h) = ((width + 7) / 8 * 8, (height + 7) / 8 * 8)
        return w * h <= 2_228_224 && max(w, h) <= 4222
    }

    public init(
        quality: Int = 78, bitDepth: Int = 8, chroma: HeifChroma = .yuv420, preset: String = "medium",
        tune: String = "ssim", lossless: Bool = false, nclx: NCLX = .displayP3, icc: [UInt8]? = nil,
        x265: [String: String] = [:]
    ) {
        self.x265 = x265
        self.quality = quality
        self.bitDepth = bitDepth
        self.chroma = chroma
        self.preset = preset
        self.tune = tune
        self.lossless = lossless
        self.nclx = nclx
        self.icc = icc
    }

    public static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]
}

/// Pixels handed to the encoder.
public enum HeifPixels: Sendable {
    /// Interleaved RGB, 8 bits.
    case rgb8(width: Int, height: Int, samples: [UInt8])
    /// Interleaved RGB at `bitDepth` (10 or 12) bits, each sample in a UInt16 (0 … 2^bitDepth − 1).
    case rgb16(width: Int, height: Int, bitDepth: Int, samples: [UInt16])
    /// One plane, 8 bits (gain maps).
    case mono8(width: Int, height: Int, samples: [UInt8])

    public var width: Int {
        switch self {
        case .rgb8(let w, _, _), .rgb16(let w, _, _, _), .mono8(let w, _, _): return w
        }
    }

    public var height: Int {
        switch self {
        case .rgb8(_, let h, _), .rgb16(_, let h, _, _), .mono8(_, let h, _): return h
        }
    }
}

/// A decoded image.
public struct HeifDecodedImage: Sendable {
    public var width: Int
    public var height: Int
    /// Bits per sample of the returned samples (8, or the stream's depth for 16-bit containers).
    public var bitDepth: Int
    /// 3 (interleaved RGB) or 1 (monochrome).
    public var channels: Int
    /// Row-major samples; `UInt16` holds values up to 2^bitDepth − 1.
    public var samples: [UInt16]
    /// The `nclx` of the decoded item, when the file has one.
    public var nclx: NCLX?
    /// The ICC profile (`colr` prof/rICC) of the decoded item, when the file has one.
    public var icc: [UInt8]?
    /// The stream's luma bit depth as signalled.
    public var codedBitDepth: Int
}

/// The size of a decoded image whose samples were not kept (`HeifDecoder.decodePrimarySize`).
public struct HeifDecodedSize: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The stream's luma bit depth as signalled.
    public var codedBitDepth: Int
    /// (p99 − p1) / range of the first plane (luma, or R) on ≤ 128 × 128 samples; near 0 when flat, nil if unmeasured.
    public var firstPlaneSpread: Double?

    public init(width: Int, height: Int, codedBitDepth: Int, firstPlaneSpread: Double? = nil) {
        self.width = width
        self.height = height
        self.codedBitDepth = codedBitDepth
        self.firstPlaneSpread = firstPlaneSpread
    }
}

/// How a decoded image is returned.
public enum HeifDecodeFormat: Sendable {
    /// Interleaved RGB, 8 bits per sample.
    case rgb8
    /// Interleaved RGB at the stream's bit depth (8-bit streams are returned as 8).
    case rgbNative
    /// Luma only (monochrome streams; colour streams give their Y plane).
    case mono
    /// The first plane of the decoder's own output, no colour conversion: Y for YCbCr and monochrome streams, R for
    /// images libheif assembles as planar RGB (grids); at the stream's bit depth.
    case firstPlane
}

// MARK: - owned libheif handles

final class Context {
    let ptr: OpaquePointer
    init() throws {
        guard let p = heif_context_alloc() else { throw HeifError(operation: "heif_context_alloc", message: "NULL") }
        ptr = p
    }
    deinit { heif_context_free(ptr) }
}

final class Image {
    let ptr: OpaquePointer
    init(_ p: OpaquePointer) { ptr = p }
    deinit { heif_image_release(ptr) }
}

final class ImageHandle {
    let ptr: OpaquePointer
    init(_ p: OpaquePointer) { ptr = p }
    deinit { heif_image_handle_release(ptr) }
}

private final class Encoder {
    let ptr: OpaquePointer
    init(_ p: OpaquePointer) { ptr = p }
    deinit { heif_encoder_release(ptr) }
}

private final class ByteSink {
    var bytes: [UInt8] = []
}

@inline(__always)
func check(_ e: heif_error, _ op: String) throws {
    if e.code != heif_error_Ok {
        let msg = e.message.map { String(cString: $0) } ?? "unknown"
        throw HeifError(operation: op, code: Int(e.code.rawValue), subcode: Int(e.subcode.rawValue), message: msg)
    }
}

/// HEVC encoder over libheif + x265. Every call uses its own context, so calls may run in parallel.
public enum HeifEncoder {
    /// Encodes `pixels` into a small standalone HEIF file in memory (`heif_context_encode_image`,
    /// `heif_context_write` with a memory `heif_writer`).
    ///
    /// The returned file carries one coded item (the primary) with `hvcC`, `ispe` and the `nclx`
    /// of `settings`; callers extract the `hvcC` and the bitstream with the HEIF parser.
    /// The `macOS_compatibility_workaround` is turned off, so sizes under 64 px or odd sizes do not
    /// become a 1×1 grid wrapper (ISO/IEC 23008-12 §6.6.2.3); odd sizes are still coded padded.
    /// - Parameters:
    ///   - pixels: the image.
    ///   - settings: quality, depth, chroma, preset, tune, colour signalling.
    /// - Returns: the HEIF file bytes.
    /// - Throws: `HeifError` with libheif's message.
    public static func encode(_ pixels: HeifPixels, settings: HeifEncodeSettings) throws -> [UInt8] {
        try encode(pixels, settings: settings, threads: nil)
    }

    /// Encodes like `encode(_:settings:)` with a bounded x265 thread pool.
    /// - Parameters:
    ///   - pixels: the image.
    ///   - settings: quality, depth, chroma, preset, tune, colour signalling.
    ///   - threads: x265 threads of this encoder, with one frame thread; nil = x265's default (a pool with one
    ///     thread per core, wavefront rows). Use 1 when several encoders run side by side, one per core: the encoder
    ///     then has no worker pool (`x265:pools=none`), so the frame thread codes the rows itself, without wavefront
    ///     parallel processing. A one-thread pool would do the same work, but x265 3.5's frame thread waits for its
    ///     pool with a 250 ms timed wait that now and then misses the wake-up, stalling a tile; coded without
    ///     wavefront rows the tiles are also slightly smaller (docs/tiling.md, "No x265 pool per tile").
    /// - Returns: the HEIF file bytes.
    /// - Throws: `HeifError` with libheif's message.
    public static func encode(_ pixels: HeifPixels, settings: HeifEncodeSettings, threads: Int?) throws -> [UInt8] {
        try FirstEncoder.gate.run(depth: settings.bitDepth) {
            // x265's λ tables are process-wide: a 10-bit encode names its own (`X265Lambdas`), others take none.
            let tables = settings.x265["lambda-file"]
            guard case .rgb16(_, _, 10, _) = pixels else {
                if let tables {
                    throw HeifError(operation: "set x265 lambda-file", message: "'\(tables)' needs a 10-bit encode")
                }
                return try encodeNow(pixels, settings: settings, threads: threads, lambdaFile: nil)
            }
            return try X265Lambdas.Gate.shared.run(tables: tables ?? X265Lambdas.builtIn) { file in
                try encodeNow(pixels, settings: settings, threads: threads, lambdaFile: file)
            }
        }
    }

    private static func encodeNow(
        _ pixels: HeifPixels, settings: HeifEncodeSettings, threads: Int?, lambdaFile: String?
    ) throws -> [UInt8] {
        let w = pixels.width
        let h = pixels.height
        guard w > 0, h > 0, w <= 65535, h <= 65535 else {
            throw HeifError(operation: "encode", message: "invalid size \(w)×\(h)")
        }
        let ctx = try Context()
        let image = try makeImage(pixels)
        try setColour(image, settings: settings)

        var encPtr: OpaquePointer?
        try check(heif_context_get_encoder_for_format(ctx.ptr, heif_compression_HEVC, &encPtr), "get HEVC encoder")
        guard let encPtr else { throw HeifError(operation: "get HEVC encoder", message: "NULL") }
        let enc = Encoder(encPtr)
        if settings.lossless {
            try check(heif_encoder_set_lossless(enc.ptr, 1), "set lossless")
        } else {
            try check(heif_encoder_set_lossy_quality(enc.ptr, Int32(max(0, min(100, settings.quality)))), "set quality")
        }
        guard HeifEncodeSettings.presets.contains(settings.preset) else {
            throw HeifError(operation: "set preset", message: "unknown x265 preset '\(settings.preset)'")
        }
        try check(heif_encoder_set_parameter_string(enc.ptr, "preset", settings.preset), "set preset")
        try check(heif_encoder_set_parameter_string(enc.ptr, "tune", settings.tune), "set tune")
        var x265 = settings.x265Options(width: w, height: h)
        // The tables' name never reaches x265: their file when this encode loads them, nothing when they are loaded.
        x265["lambda-file"] = lambdaFile
        for (name, value) in x265.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw HeifError(operation: "set x265 option", message: "invalid x265 option name '\(name)'")
            }
            // A named scaling-list set reaches x265 as the path of its file.
            let v =
                name == "scaling-list" && X265ScalingLists.named[value] != nil
                ? try X265ScalingLists.path(for: value) : value
            try check(heif_encoder_set_parameter_string(enc.ptr, "x265:" + name, v), "set x265 \(name)")
        }
        if let t = threads {
            guard t >= 1 && t <= 256 else {
                throw HeifError(operation: "set threads", message: "threads must be 1…256, got \(t)")
            }
            // Passed through to x265_param_parse (libheif forwards "x265:<name>"; unknown names are ignored there).
            try check(
                heif_encoder_set_parameter_string(enc.ptr, "x265:pools", t == 1 ? "none" : "\(t)"), "set x265 pools")
            try check(heif_encoder_set_parameter_string(enc.ptr, "x265:frame-threads", "1"), "set x265 frame-threads")
        }
        if case .mono8 = pixels {
        } else {
            let chroma = settings.chroma == .monochrome ? "420" : settings.chroma.rawValue
            try check(heif_encoder_set_parameter_string(enc.ptr, "chroma", chroma), "set chroma")
        }

        guard let opts = heif_encoding_options_alloc() else {
            throw HeifError(operation: "heif_encoding_options_alloc", message: "NULL")
        }
        defer { heif_encoding_options_free(opts) }
        opts.pointee.macOS_compatibility_workaround = 0
        opts.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        opts.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = settings.icc == nil ? 0 : 1

        var handlePtr: OpaquePointer?
        try check(heif_context_encode_image(ctx.ptr, image.ptr, enc.ptr, opts, &handlePtr), "heif_context_encode_image")
        if let handlePtr { heif_image_handle_release(handlePtr) }
        return try write(ctx)
    }

    private static func makeImage(_ pixels: HeifPixels) throws -> Image {
        var imgPtr: OpaquePointer?
        switch pixels {
        case .rgb8(let w, let h, let s):
            guard s.count == w * h * 3 else { throw HeifError(operation: "encode", message: "sample count mismatch") }
            try check(
                heif_image_create(Int32(w), Int32(h), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &imgPtr),
                "heif_image_create")
            let img = Image(imgPtr!)
            try check(heif_image_add_plane(img.ptr, heif_channel_interleaved, Int32(w), Int32(h), 8), "add plane")
            try fill(img, channel: heif_channel_interleaved, rowBytes: w * 3, height: h) { y, dst in
                s.withUnsafeBytes { src in
                    dst.copyMemory(from: src.baseAddress! + y * w * 3, byteCount: w * 3)
                }
            }
            return img
        case .rgb16(let w, let h, let depth, let s):
            guard s.count == w * h * 3 else { throw HeifError(operation: "encode", message: "sample count mismatch") }
            guard depth == 10 || depth == 12 else {
                throw HeifError(operation: "encode", message: "unsupported bit depth \(depth)")
            }
            try check(
                heif_image_create(
                    Int32(w), Int32(h), heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, &imgPtr),
                "heif_image_create")
            let img = Image(imgPtr!)
            try check(
                heif_image_add_plane(img.ptr, heif_channel_interleaved, Int32(w), Int32(h), Int32(depth)), "add plane")
            try fill(img, channel: heif_channel_interleaved, rowBytes: w * 6, height: h) { y, dst in
                let d = dst.assumingMemoryBound(to: UInt16.self)
                for i in 0..<(w * 3) { d[i] = s[y * w * 3 + i].littleEndian }
            }
            return img
        case .mono8(let w, let h, let s):
            guard s.count == w * h else { throw HeifError(operation: "encode", message: "sample count mismatch") }
            try check(
                heif_image_create(Int32(w), Int32(h), heif_colorspace_monochrome, heif_chroma_monochrome, &imgPtr),
                "heif_image_create")
            let img = Image(imgPtr!)
            try check(heif_image_add_plane(img.ptr, heif_channel_Y, Int32(w), Int32(h), 8), "add plane")
            try fill(img, channel: heif_channel_Y, rowBytes: w, height: h) { y, dst in
                s.withUnsafeBytes { src in dst.copyMemory(from: src.baseAddress! + y * w, byteCount: w) }
            }
            return img
        }
    }

    private static func fill(
        _ img: Image, channel: heif_channel, rowBytes: Int, height: Int,
        _ row: (Int, UnsafeMutableRawPointer) -> Void
    ) throws {
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(img.ptr, channel, &stride) else {
            throw HeifError(operation: "heif_image_get_plane", message: "no plane")
        }
        for y in 0..<height { row(y, UnsafeMutableRawPointer(plane + y * Int(stride))) }
    }

    private static func setColour(_ image: Image, settings: HeifEncodeSettings) throws {
        guard let nclx = heif_nclx_color_profile_alloc() else {
            throw HeifError(operation: "heif_nclx_color_profile_alloc", message: "NULL")
        }
        defer { heif_nclx_color_profile_free(nclx) }
        let n = settings.nclx
        try check(heif_nclx_color_profile_set_color_primaries(nclx, n.colourPrimaries), "set primaries")
        try check(heif_nclx_color_profile_set_transfer_characteristics(nclx, n.transferCharacteristics), "set transfer")
        try check(heif_nclx_color_profile_set_matrix_coefficients(nclx, n.matrixCoefficients), "set matrix")
        nclx.pointee.full_range_flag = n.fullRange ? 1 : 0
        try check(heif_image_set_nclx_color_profile(image.ptr, nclx), "heif_image_set_nclx_color_profile")
        if let icc = settings.icc, !icc.isEmpty {
            try icc.withUnsafeBytes { b in
                try check(
                    heif_image_set_raw_color_profile(image.ptr, "prof", b.baseAddress, b.count),
                    "heif_image_set_raw_color_profile")
            }
        }
    }

    private static func write(_ ctx: Context) throws -> [UInt8] {
        let sink = ByteSink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, userdata in
            if let userdata, let data, size > 0 {
                let s = Unmanaged<ByteSink>.fromOpaque(userdata).takeUnretainedValue()
                s.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try check(
            heif_context_write(ctx.ptr, &writer, Unmanaged.passUnretained(sink).toOpaque()), "heif_context_write")
        return sink.bytes
    }
}

/// HEVC/HEIF decoder over libheif + libde265. Every call uses its own context.
public enum HeifDecoder {
    /// Decodes the primary image of a HEIF file held in memory (`heif_context_read_from_memory`,
    /// `heif_decode_image`); transformations (irot/imir/clap) are applied by libheif.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - format: RGB 8-bit, RGB at native depth, or monochrome.
    /// - Returns: the pixels with size, depth and nclx.
    /// - Throws: `HeifError` with libheif's message.
    public static func decodePrimary(_ bytes: [UInt8], format: HeifDecodeFormat = .rgb8) throws -> HeifDecodedImage {
        let (ctx, handle) = try primaryHandle(bytes)
        return try withExtendedLifetime(ctx) { try decode(handle, format: format) }
    }

    /// Reads a HEIF file held in memory and opens its primary image (the context must outlive the handle).
    static func primaryHandle(_ bytes: [UInt8]) throws -> (Context, ImageHandle) {
        let ctx = try Context()
        try bytes.withUnsafeBytes { b in
            try check(
                heif_context_read_from_memory(ctx.ptr, b.baseAddress, b.count, nil), "heif_context_read_from_memory")
        }
        var hPtr: OpaquePointer?
        try check(heif_context_get_primary_image_handle(ctx.ptr, &hPtr), "get primary image")
        return (ctx, ImageHandle(hPtr!))
    }

    /// The first plane of an image decoded without conversion: R of planar RGB, Y otherwise; nil for interleaved RGB.
    private static func nativeFirstChannel(_ img: Image) -> heif_channel? {
        guard heif_image_get_colorspace(img.ptr) == heif_colorspace_RGB else { return heif_channel_Y }
        return heif_image_get_chroma_format(img.ptr) == heif_chroma_444 ? heif_channel_R : nil
    }

    /// Decodes the primary image and keeps only its size and first plane's spread (sampled in place): no RGB
    /// conversion, no sample copied out, a fraction of `decodePrimary`'s cost (docs/tiling.md).
    /// - Parameter bytes: the whole file.
    /// - Returns: the decoded size, the stream's luma depth (`codedBitDepth`) and `firstPlaneSpread`.
    /// - Throws: `HeifError` with libheif's message.
    public static func decodePrimarySize(_ bytes: [UInt8]) throws -> HeifDecodedSize {
        let (ctx, handle) = try primaryHandle(bytes)
        defer { withExtendedLifetime(ctx) {} }
        var iPtr: OpaquePointer?
        try check(
            heif_decode_image(handle.ptr, &iPtr, heif_colorspace_undefined, heif_chroma_undefined, nil),
            "heif_decode_image")
        let img = Image(iPtr!)
        let channel = nativeFirstChannel(img) ?? heif_channel_interleaved
        let w = Int(heif_image_get_width(img.ptr, channel))
        let h = Int(heif_image_get_height(img.ptr, channel))
        guard w > 0, h > 0 else {
            throw HeifError(operation: "heif_decode_image", message: "no plane in decoded image")
        }
        let coded = Int(heif_image_handle_get_luma_bits_per_pixel(handle.ptr))
        var stride: Int32 = 0
        let spread = heif_image_get_plane_readonly(img.ptr, channel, &stride).flatMap {
            PlaneStats.spread(
                $0, stride: Int(stride), depth: Int(heif_image_get_bits_per_pixel_range(img.ptr, channel)), width: w,
                height: h)
        }
        return HeifDecodedSize(width: w, height: h, codedBitDepth: coded, firstPlaneSpread: spread)
    }

    private static func firstPlane(_ img: Image, coded: Int, nclx: NCLX?, icc: [UInt8]?) throws -> HeifDecodedImage {
        guard let channel = nativeFirstChannel(img) else {
            throw HeifError(operation: "heif_decode_image", message: "interleaved RGB has no first plane")
        }
        let w = Int(heif_image_get_width(img.ptr, channel))
        let h = Int(heif_image_get_height(img.ptr, channel))
        let depth = Int(heif_image_get_bits_per_pixel_range(img.ptr, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(img.ptr, channel, &stride) else {
            throw HeifError(operation: "heif_image_get_plane", message: "no plane in decoded image")
        }
        var out = [UInt16](repeating: 0, count: w * h)
        out.withUnsafeMutableBufferPointer { o in
            for y in 0..<h {
                let row = plane + y * Int(stride)
                if depth > 8 {
                    let r = UnsafeRawPointer(row)
                    for x in 0..<w {
                        o[y * w + x] = UInt16(littleEndian: r.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self))
                    }
                } else {
                    for x in 0..<w { o[y * w + x] = UInt16(row[x]) }
                }
            }
        }
        return HeifDecodedImage(
            width: w, height: h, bitDepth: depth, channels: 1, samples: out, nclx: nclx, icc: icc, codedBitDepth: coded)
    }

    /// Reads a HEIF file from disk and decodes its primary image (see `decodePrimary(_:format:)`).
    public static func decodePrimary(file url: URL, format: HeifDecodeFormat = .rgb8) throws -> HeifDecodedImage {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw HeifError(operation: "read \(url.lastPathComponent)", message: "\(error.localizedDescription)")
        }
        return try decodePrimary([UInt8](data), format: format)
    }

    /// The image's nclx signalling and raw ICC profile, each nil when absent.
    static func colour(_ handle: ImageHandle) -> (NCLX?, [UInt8]?) {
        var nclx: NCLX?
        var nPtr: UnsafeMutablePointer<heif_color_profile_nclx>?
        if heif_image_handle_get_nclx_color_profile(handle.ptr, &nPtr).code == heif_error_Ok, let n = nPtr {
            nclx = NCLX(
                colourPrimaries: UInt16(n.pointee.color_primaries.rawValue),
                transferCharacteristics: UInt16(n.pointee.transfer_characteristics.rawValue),
                matrixCoefficients: UInt16(n.pointee.matrix_coefficients.rawValue),
                fullRange: n.pointee.full_range_flag != 0)
            heif_nclx_color_profile_free(n)
        }
        var icc: [UInt8]?
        let iccSize = heif_image_handle_get_raw_color_profile_size(handle.ptr)
        if iccSize > 0 && iccSize < 16 << 20 {
            var buf = [UInt8](repeating: 0, count: iccSize)
            let e = buf.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle.ptr, $0.baseAddress) }
            if e.code == heif_error_Ok { icc = buf }
        }
        return (nclx, icc)
    }

    private static func decode(_ handle: ImageHandle, format: HeifDecodeFormat) throws -> HeifDecodedImage {
        let coded = Int(heif_image_handle_get_luma_bits_per_pixel(handle.ptr))
        let (nclx, icc) = colour(handle)
        let colorspace: heif_colorspace
        let chroma: heif_chroma
        let channel: heif_channel
        let wide = format == .rgbNative && coded > 8
        switch format {
        case .rgb8, .rgbNative:
            colorspace = heif_colorspace_RGB
            chroma = wide ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
            channel = heif_channel_interleaved
        case .mono:
            colorspace = heif_colorspace_monochrome
            chroma = heif_chroma_monochrome
            channel = heif_channel_Y
        case .firstPlane:
            colorspace = heif_colorspace_undefined
            chroma = heif_chroma_undefined
            channel = heif_channel_Y
        }
        var iPtr: OpaquePointer?
        try check(heif_decode_image(handle.ptr, &iPtr, colorspace, chroma, nil), "heif_decode_image")
        let img = Image(iPtr!)
        if format == .firstPlane { return try firstPlane(img, coded: coded, nclx: nclx, icc: icc) }
        let w = Int(heif_image_get_width(img.ptr, channel))
        let h = Int(heif_image_get_height(img.ptr, channel))
        let depth = Int(heif_image_get_bits_per_pixel_range(img.ptr, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(img.ptr, channel, &stride) else {
            throw HeifError(operation: "heif_image_get_plane", message: "no plane in decoded image")
        }
        let ch = format == .mono ? 1 : 3
        var out = [UInt16](repeating: 0, count: w * h * ch)
        out.withUnsafeMutableBufferPointer { o in
            for y in 0..<h {
                let row = plane + y * Int(stride)
                if wide {
                    let r = UnsafeRawPointer(row)
                    for i in 0..<(w * ch) {
                        o[y * w * ch + i] = UInt16(
                            littleEndian: r.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                    }
                } else {
                    for i in 0..<(w * ch) { o[y * w * ch + i] = UInt16(row[i]) }
                }
            }
        }
        return HeifDecodedImage(
            width: w, height: h, bitDepth: wide ? depth : 8, channels: ch, samples: out, nclx: nclx,
            icc: icc, codedBitDepth: coded)
    }
}
