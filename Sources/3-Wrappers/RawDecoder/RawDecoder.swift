internal import CRaw
import Foundation

/// Safe Swift face over LibRaw (`libraw_r`). Every LibRaw call of the project goes through this module.
public enum LibRaw {
    /// LibRaw's version, read from the library at run time (`libraw_version()`).
    public static var version: String { String(cString: libraw_version()) }

    /// LibRaw's version without its "-Release" suffix ("0.22.2"): what messages name.
    public static var shortVersion: String {
        version.split(separator: "-").first.map(String.init) ?? version
    }

    /// The makes and models LibRaw decodes (`libraw_cameraList()`), as LibRaw names them ("Canon EOS R6"), in its
    /// order. A build without Adobe's DNG SDK and GoPro's SDK: the DNG-compatible cameras of those SDKs are absent.
    /// Read once: the list is fixed at build time, and a refusal consults it up to three times.
    public static let cameras: [String] = {
        let count = Int(readback_libraw_camera_count())
        guard count > 0, let list = libraw_cameraList() else { return [] }
        var names: [String] = []
        names.reserveCapacity(count)
        for i in 0..<count {
            guard let p = list[i] else { break }
            names.append(String(cString: p))
        }
        return names
    }()
}

/// The linear RGB working space LibRaw renders into (`params.output_color`).
///
/// Only 0–6 are valid in LibRaw 0.20 (7, 8 and −1 silently give raw colour; 9 crashes), so the
/// raw value never comes from outside this enum.
public enum RawWorkingSpace: Int32, Sendable, CaseIterable {
    case cameraRaw = 0
    case sRGB = 1
    case adobeRGB = 2
    case wideGamut = 3
    /// ROMM / ProPhoto primaries, D50 white (LibRaw adapts from its D65 sRGB base with Bradford).
    case proPhoto = 4
    case xyz = 5
    case aces = 6
}

/// How to render the RAW (the `libraw_output_params_t` fields we set).
public struct RawDecodeOptions: Sendable, Equatable {
    /// Demosaic at half size (`half_size = 1`): each 2×2 Bayer cell becomes one pixel. Fast previews.
    public var halfSize: Bool
    /// Output primaries. Default ProPhoto: wide enough that real colours do not clip at 0 in 16-bit output.
    public var workingSpace: RawWorkingSpace
    /// `true`: apply the file's orientation so pixels come out upright (`user_flip = -1`);
    /// `false`: keep the sensor orientation (`user_flip = 0`).
    public var applyOrientation: Bool

    public init(halfSize: Bool = false, workingSpace: RawWorkingSpace = .proPhoto, applyOrientation: Bool = true) {
        self.halfSize = halfSize
        self.workingSpace = workingSpace
        self.applyOrientation = applyOrientation
    }
}

/// What LibRaw identified about a RAW file (after `libraw_open_file` + `libraw_unpack`).
public struct RawMetadata: Sendable, Equatable, Codable {
    public var make: String
    public var model: String
    public var software: String
    /// Full sensor buffer size (`sizes.raw_width`, `raw_height`).
    public var rawWidth: Int
    public var rawHeight: Int
    /// Visible area before orientation (`sizes.width`, `height`).
    public var width: Int
    public var height: Int
    /// LibRaw's flip code (`sizes.flip`): 0 none, 3 = 180°, 5 = 90° CCW, 6 = 90° CW.
    public var flip: Int
    /// `flip` as an Exif Orientation value (1–8).
    public var exifOrientation: Int
    /// Black level (`color.black`) and white (saturation) level (`color.maximum`) in raw units.
    public var blackLevel: Int
    public var whiteLevel: Int
    /// DNG version (`idata.dng_version`), 0 when not a DNG.
    public var dngVersion: UInt32
    /// `true` for a DNG whose data is already demosaiced (LinearRaw: no CFA, `filters == 0`).
    public var isLinearDNG: Bool
    /// The DNG BaselineExposure tag in stops (0 when absent or not a DNG).
    public var baselineExposure: Double
    /// Camera white-balance multipliers (`color.cam_mul`), as shot.
    public var cameraMultipliers: [Double]
    /// Size of the file in bytes.
    public var fileSize: Int
    /// DNG opcodes Readback applied because LibRaw's loader does not ("OpcodeList2 MapPolynomial, plane 0").
    public var dngOpcodesApplied: [String] = []
    /// Optional DNG opcodes nobody applied: known losses ("OpcodeList3 WarpRectilinear (optional)").
    public var dngOpcodesSkipped: [String] = []
    /// Share of the raw samples at or above the white level (sampled on a grid): the frame's clipped highlights.
    public var clippedFraction: Double = 0
    /// The same share per CFA channel ("R", "G", "B", "G2"; "R", "G", "B" for a LinearRaw frame): a camera may pin
    /// some channels at the white level and let the others run on to the ADC's maximum.
    public var clippedByChannel: [String: Double] = [:]

    public var isDNG: Bool { dngVersion != 0 }
}

/// A decoded image: interleaved RGB, 16 bits per sample, linear (gamma 1), upright if requested.
public struct LinearImage16: Sendable {
    public var width: Int
    public var height: Int
    /// `width * height * 3` samples, row-major, R G B.
    public var pixels: [UInt16]
    public var workingSpace: RawWorkingSpace

    public init(width: Int, height: Int, pixels: [UInt16], workingSpace: RawWorkingSpace) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.workingSpace = workingSpace
    }
}

/// Why a RAW could not be decoded. `description` is one line naming the file and the reason.
public struct RawDecodeError: Error, CustomStringConvertible, Equatable, Sendable, Codable {
    public enum Reason: Equatable, Sendable, Codable {
        /// A LibRaw call failed: the function, its code and `libraw_strerror`.
        case libraw(function: String, code: Int32, message: String)
        /// LibRaw found no raw pixel buffer after unpacking.
        case noRawData
        /// Sizes that cannot be a real image (0, or more than `LibRawDecoder.maxPixels`).
        case impossibleDimensions(width: Int, height: Int)
        /// File bytes per sensor pixel below `LibRawDecoder.minBytesPerPixel`: a metadata-only stub or truncated file.
        case stub(bytesPerPixel: Double)
        /// LibRaw reported corrupt data through its data-error callback (it still returns success).
        case dataError(offset: Int)
        /// The raw samples are all equal (typically all zero: LibRaw "decoded" absent data).
        case constantFrame(value: Int)
        /// Too many raw samples above the white level, spread over many values or without spatial structure:
        /// garbage, not sensor data (clipped highlights are accepted: `WhiteLevelSamples`).
        case samplesOverWhite(fraction: Double, whiteLevel: Int)
        /// Almost every raw sample is zero.
        case mostlyZero(fraction: Double)
        /// `make_mem_image` returned something other than 3 × 16-bit RGB.
        case unexpectedOutput(String)
        /// A DNG opcode the spec says a reader must apply, which neither LibRaw nor Readback applies (or a malformed
        /// opcode list): the picture would be wrong.
        case unsupportedOpcode(String)
        /// A DNG 1.7 JPEG XL raw image (Compression 52546) whose tiles cannot be decoded or placed.
        case jpegXL(String)
    }

    public var file: String
    public var reason: Reason
    /// The make and model LibRaw identified before it refused the file (nil when it identified none): names the
    /// camera of a file exiv2 cannot read either (a truncated CR3).
    public var identified: [String]?

    public init(file: String, reason: Reason, identified: [String]? = nil) {
        self.file = file
        self.reason = reason
        self.identified = identified
    }

    public var description: String {
        let why: String
        switch reason {
        case .libraw(let f, let code, let message): why = "\(f) failed (\(code)): \(message)"
        case .noRawData: why = "no raw image data in the file"
        case .impossibleDimensions(let w, let h): why = "impossible image dimensions \(w)×\(h)"
        case .stub(let r):
            why = String(format: "metadata-only or truncated RAW (%.4f bytes per sensor pixel)", r)
        case .dataError(let off): why = "LibRaw reported corrupt raw data at offset \(off)"
        case .constantFrame(let v): why = "raw frame is constant (every sample \(v)): no real pixel data"
        case .samplesOverWhite(let f, let w):
            why = String(format: "%.1f%% of raw samples exceed the white level %d: garbage data", f * 100, w)
        case .mostlyZero(let f): why = String(format: "%.1f%% of raw samples are zero: no real pixel data", f * 100)
        case .unexpectedOutput(let s): why = "unexpected LibRaw output: \(s)"
        case .unsupportedOpcode(let s): why = s
        case .jpegXL(let s): why = "DNG 1.7 JPEG XL raw data: \(s)"
        }
        return "\(file): \(why)"
    }
}

/// Per-instance data-error sink handed to LibRaw as the callback context.
// unchecked: LibRaw calls back on the thread that decodes, which owns the decoder.
private final class DataErrorSink: @unchecked Sendable {
    var offsets: [Int] = []
}

/// One LibRaw decoder (`libraw_data_t`), opened on one file. Not shared between threads; make one per file.
///
/// Wraps `readback_libraw_init` (`libraw_init` with Readback's loops), `libraw_open_file`, `libraw_unpack`,
/// `libraw_dcraw_process`, `libraw_dcraw_make_mem_image`; `libraw_close` in `deinit`.
public final class LibRawDecoder {
    /// Largest frame accepted (pixels). 400 MP covers every current sensor.
    public static let maxPixels = 400_000_000
    /// File bytes per sensor pixel below which a file is a stub (stubs ≤ 0.006, real files ≥ 0.4: docs/platform.md,
    /// LibRaw).
    public static let minBytesPerPixel = 0.05

    let handle: UnsafeMutablePointer<libraw_data_t>
    private let sink = DataErrorSink()
    private(set) var fileName = ""
    private var unpacked = false
    /// The file's bytes when opened from memory (`open(bytes:name:)`): LibRaw's datastream points into them.
    private var input: [UInt8] = []
    /// What keeps the bytes of `open(memory:owner:name:)` mapped.
    private var inputOwner: AnyObject?
    /// Told the LibRaw call about to run ("LibRaw open", "LibRaw unpack", "LibRaw process") and, once known, the
    /// sensor's pixel count: a supervisor names the stage a decoder died in and scales its deadline.
    public var stage: ((String, Int?) -> Void)?
    /// The sensor's size (`sizes.raw_width`, `raw_height`) once the file is open and checked, before the unpack.
    public private(set) var sensorSize: (width: Int, height: Int)?

    /// Creates a decoder (`readback_libraw_init(0)`: LibRaw with some of its loops on every core, the same results;
    /// scripts/libraw/readback_loops.cpp) with a data-error handler bound to this instance.
    public convenience init() { self.init(upstreamLoops: false) }

    /// - Parameter upstreamLoops: stock LibRaw (`libraw_init`), which the tests compare Readback's with.
    init(upstreamLoops: Bool) {
        guard let h = upstreamLoops ? libraw_init(0) : readback_libraw_init(0) else {
            fatalError("libraw_init returned NULL (out of memory)")
        }
        handle = h
        let ctx = Unmanaged.passUnretained(sink).toOpaque()
        libraw_set_dataerror_handler(
            handle,
            { data, _, offset in
                guard let data else { return }
                Unmanaged<DataErrorSink>.fromOpaque(data).takeUnretainedValue().offsets.append(Int(offset))
            }, ctx)
    }

    /// The bytes LibRaw 0.22 allocates for the processed image of a `width` × `height` sensor (`raw2image_ex`): one
    /// pixel of margin round the image, 8 bytes a pixel, and the 1024 bytes its memory manager adds to every
    /// allocation. A 6000 × 4000 frame takes 161,056 bytes more than 8 bytes a pixel.
    public static func imageAllocationBytes(width: Int, height: Int) -> Int { (width + 2) * (height + 2) * 8 + 1024 }

    /// Released only after `libraw_close` has freed LibRaw's buffers: the memory LibRaw's image was placed in, when
    /// that is not LibRaw's own (a RAW worker's frame arena, docs/security.md).
    public var releasedAfterClose: AnyObject?

    deinit {
        libraw_close(handle)
        releasedAfterClose = nil
    }

    /// Opens and unpacks `url`, then checks that the raw data is real (stub ratio, data errors, sample sanity).
    /// - Parameter url: the RAW file.
    /// - Returns: what LibRaw identified.
    /// - Throws: `RawDecodeError` naming the file and the reason.
    public func open(_ url: URL) throws -> RawMetadata {
        let path = url.path
        // A DNG 1.7 with JPEG XL raw data goes through memory, where it is made readable first.
        if let mapped = try? Data(contentsOf: url, options: .alwaysMapped), JXLDNG.isJXLDNG(mapped) {
            return try open(bytes: [UInt8](mapped), name: url.lastPathComponent)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return try open(
            name: url.lastPathComponent, fileSize: size, function: "libraw_open_file",
            opener: { libraw_open_file(handle, path) },
            opcodes: { () throws(DNGOpcodeReader.Unreadable) in try DNGOpcodeReader.opcodes(path: path) })
    }

    /// Opens and unpacks a RAW already read into memory (`libraw_open_buffer`), then checks it as `open(_:)` does.
    /// The decoder keeps `bytes` for as long as it lives (LibRaw's datastream points into them), and every read of
    /// them (LibRaw's open and unpack, the DNG opcode lists) happens here, inside their buffer's scope.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - name: the file's name, for messages.
    /// - Returns: what LibRaw identified.
    /// - Throws: `RawDecodeError` naming the file and the reason.
    public func open(bytes: [UInt8], name: String) throws -> RawMetadata {
        input = bytes
        return try input.withUnsafeBytes { try open(memory: $0, name: name) }
    }

    /// Opens and unpacks a RAW in memory that `owner` keeps mapped and unchanged for as long as the decoder lives (a
    /// worker's sealed, read-only view of the parent's bytes: no copy of the file).
    public func open(memory: UnsafeRawBufferPointer, owner: AnyObject, name: String) throws -> RawMetadata {
        inputOwner = owner
        return try open(memory: memory, name: name)
    }

    private func open(memory buf: UnsafeRawBufferPointer, name: String) throws -> RawMetadata {
        let base = buf.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) }
        if let base,
            let readable = try readableJPEGXL(Data(bytesNoCopy: base, count: buf.count, deallocator: .none), name)
        {
            // The rewritten copy replaces the bytes for the decoder's lifetime (LibRaw's datastream points into it).
            input = readable
            return try input.withUnsafeBytes { try open(memory: $0, name: name) }
        }
        return try open(
            name: name, fileSize: buf.count, function: "libraw_open_buffer",
            opener: {
                LibRawTestHooks.willOpen(base, buf.count)
                return libraw_open_buffer(handle, base, buf.count)
            },
            opcodes: { () throws(DNGOpcodeReader.Unreadable) in
                guard let base else { return [] }
                // A view of the same bytes, not a copy.
                return try DNGOpcodeReader.opcodes(Data(bytesNoCopy: base, count: buf.count, deallocator: .none))
            })
    }

    /// A DNG 1.7 with JPEG XL raw data, rewritten uncompressed (`JXLDNG`); nil for any other file.
    private func readableJPEGXL(_ bytes: Data, _ name: String) throws -> [UInt8]? {
        guard JXLDNG.isJXLDNG(bytes) else { return nil }
        stage?("JPEG XL decode", nil)
        do {
            return try JXLDNG.uncompressed(bytes)
        } catch {
            throw RawDecodeError(file: name, reason: .jpegXL(error.description))
        }
    }

    /// The open, checks and unpack both entry points share.
    private func open(
        name: String, fileSize: Int, function: String, opener: () -> Int32,
        opcodes: () throws(DNGOpcodeReader.Unreadable) -> [DNGOpcode]
    ) throws -> RawMetadata {
        fileName = name
        stage?("LibRaw open", nil)
        let rc = opener()
        if rc != 0 { throw libraw(function, rc) }
        let meta = metadata(fileSize: fileSize)
        do {
            return try check(meta, fileSize: fileSize, opcodes: opcodes)
        } catch var e as RawDecodeError {
            if !meta.make.isEmpty || !meta.model.isEmpty { e.identified = [meta.make, meta.model] }
            throw e
        }
    }

    /// The checks and the unpack after LibRaw opened the file.
    private func check(
        _ meta: RawMetadata, fileSize: Int, opcodes: () throws(DNGOpcodeReader.Unreadable) -> [DNGOpcode]
    ) throws -> RawMetadata {
        let (rw, rh) = (meta.rawWidth, meta.rawHeight)
        if rw <= 0 || rh <= 0 || meta.width <= 0 || meta.height <= 0 || rw * rh > Self.maxPixels {
            throw RawDecodeError(file: fileName, reason: .impossibleDimensions(width: rw, height: rh))
        }
        let ratio = Double(meta.fileSize) / Double(rw * rh)
        if ratio < Self.minBytesPerPixel {
            throw RawDecodeError(file: fileName, reason: .stub(bytesPerPixel: ratio))
        }
        sensorSize = (rw, rh)
        stage?("LibRaw unpack", rw * rh)
        let rc = libraw_unpack(handle)
        if rc != 0 { throw libraw("libraw_unpack", rc) }
        unpacked = true
        if let off = sink.offsets.first { throw RawDecodeError(file: fileName, reason: .dataError(offset: off)) }
        let (clipped, byChannel) = try checkRawSamples(whiteLevel: meta.whiteLevel)
        let applied = meta.isDNG ? try applyDNGOpcodes(opcodes) : ([], [])
        var m = metadata(fileSize: fileSize)
        (m.dngOpcodesApplied, m.dngOpcodesSkipped) = applied
        m.clippedFraction = clipped
        m.clippedByChannel = byChannel
        return m
    }

    /// Sets the linear-output parameters both renders share and runs `libraw_dcraw_process`: gamma 1/1,
    /// `no_auto_bright`, `bright` 1, 16 bits, camera white balance, highlights clipped, `adjust_maximum_thr` 0.
    /// - Throws: `RawDecodeError` for a LibRaw error or a data error the datastream reported.
    private func demosaic(_ options: RawDecodeOptions) throws {
        precondition(unpacked, "call open(_:) first")
        handle.pointee.params.gamm.0 = 1
        handle.pointee.params.gamm.1 = 1
        handle.pointee.params.no_auto_bright = 1
        handle.pointee.params.bright = 1
        handle.pointee.params.output_bps = 16
        handle.pointee.params.use_camera_wb = 1
        handle.pointee.params.highlight = 0
        handle.pointee.params.adjust_maximum_thr = 0
        handle.pointee.params.output_color = options.workingSpace.rawValue
        handle.pointee.params.user_flip = options.applyOrientation ? -1 : 0
        handle.pointee.params.half_size = options.halfSize ? 1 : 0
        stage?("LibRaw process", nil)
        let rc = libraw_dcraw_process(handle)
        if rc != 0 { throw libraw("libraw_dcraw_process", rc) }
        LibRawTestHooks.didProcess(handle)
        if let off = sink.offsets.first { throw RawDecodeError(file: fileName, reason: .dataError(offset: off)) }
    }

    /// Demosaics and renders the opened file into linear 16-bit RGB (`gamma 1/1`, `no_auto_bright`,
    /// camera white balance, `output_bps 16`, `adjust_maximum_thr 0` so the scale never depends on content).
    /// 65535 corresponds to the sensor's white level.
    /// - Parameter options: working space, half size, orientation.
    /// - Returns: the image, upright when `options.applyOrientation`.
    /// - Throws: `RawDecodeError`.
    public func render(_ options: RawDecodeOptions = RawDecodeOptions()) throws -> LinearImage16 {
        try demosaic(options)
        var rc: Int32 = 0
        guard let img = libraw_dcraw_make_mem_image(handle, &rc) else {
            throw libraw("libraw_dcraw_make_mem_image", rc)
        }
        defer { libraw_dcraw_clear_mem(img) }
        let w = Int(img.pointee.width)
        let h = Int(img.pointee.height)
        guard img.pointee.type == LIBRAW_IMAGE_BITMAP, img.pointee.colors == 3, img.pointee.bits == 16,
            Int(img.pointee.data_size) == w * h * 6
        else {
            throw RawDecodeError(
                file: fileName,
                reason: .unexpectedOutput(
                    "type \(img.pointee.type.rawValue), \(img.pointee.colors) colours, \(img.pointee.bits) bits"))
        }
        let count = w * h * 3
        let pixels = [UInt16](unsafeUninitializedCapacity: count) { buf, n in
            withUnsafeMutablePointer(to: &img.pointee.data) { p in
                UnsafeMutableRawPointer(p).withMemoryRebound(to: UInt16.self, capacity: count) { src in
                    buf.baseAddress!.update(from: src, count: count)
                }
            }
            n = count
        }
        return LinearImage16(width: w, height: h, pixels: pixels, workingSpace: options.workingSpace)
    }

    /// Demosaics like `render(_:)` but returns a view of LibRaw's own processed buffer (`imgdata.image`, 4 × 16 bits
    /// per pixel) instead of a copy: no `dcraw_make_mem_image` (a second full frame) and no Swift copy (a third).
    /// The values are the ones `render(_:)` returns: with gamma 1/1, `no_auto_bright` and `bright` 1, LibRaw's
    /// output curve (`gamma_curve(1, 1, 2, 0x10000)`) is the identity, and the orientation is applied here with
    /// LibRaw's `flip_index` arithmetic. The frame keeps this decoder (and its raw buffer) alive until released.
    /// - Parameter options: working space, half size, orientation.
    /// - Returns: the upright frame, readable from any thread.
    /// - Throws: `RawDecodeError`.
    public func renderInPlace(_ options: RawDecodeOptions = RawDecodeOptions()) throws -> RawFrame {
        try demosaic(options)
        let d = handle.pointee
        // After dcraw_process the image is sizes.width × sizes.height (pre_interpolate sets height = iheight for
        // half size; fuji_rotate and stretch set width/height to the new buffer); copy_mem_image reads it with
        // iwidth = width and iheight = height, as here.
        let iw = Int(d.sizes.width)
        let ih = Int(d.sizes.height)
        guard let image = d.image, iw > 0, ih > 0, iw * ih <= Self.maxPixels, d.idata.colors == 3 else {
            throw RawDecodeError(
                file: fileName,
                reason: .unexpectedOutput("no processed image (\(d.idata.colors) colours, \(iw)×\(ih))"))
        }
        let flip = Int(d.sizes.flip)
        // LibRaw's flip_index(row, col) for the output position (row, col).
        func index(_ row: Int, _ col: Int) -> Int {
            var (r, c) = (row, col)
            if flip & 4 != 0 { swap(&r, &c) }
            if flip & 2 != 0 { r = ih - 1 - r }
            if flip & 1 != 0 { c = iw - 1 - c }
            return r * iw + c
        }
        let (ow, oh) = flip & 4 != 0 ? (ih, iw) : (iw, ih)
        let origin = index(0, 0)
        let colStep = ow > 1 ? index(0, 1) - origin : 1
        let rowStep = oh > 1 ? index(1, 0) - origin : iw
        let base = UnsafeRawPointer(image).assumingMemoryBound(to: UInt16.self)
        return RawFrame(
            owner: self, base: base, width: ow, height: oh,
            layout: RawFrame.Layout(origin: origin, colStep: colStep, rowStep: rowStep),
            workingSpace: options.workingSpace)
    }

    /// Convenience: open, check and render `url` in place (see `renderInPlace(_:)`).
    /// - Returns: metadata and the frame (which owns the decoder).
    /// - Throws: `RawDecodeError`.
    public static func decodeInPlace(_ url: URL, options: RawDecodeOptions = RawDecodeOptions()) throws -> (
        RawMetadata, RawFrame
    ) {
        let d = LibRawDecoder()
        let m = try d.open(url)
        return (m, try d.renderInPlace(options))
    }

    /// Convenience: open a RAW already in memory, check and render it in place (see `open(bytes:name:)`).
    /// - Returns: metadata and the frame (which owns the decoder, and so the bytes).
    /// - Throws: `RawDecodeError`.
    public static func decodeInPlace(bytes: [UInt8], name: String, options: RawDecodeOptions = RawDecodeOptions())
        throws -> (RawMetadata, RawFrame)
    {
        let d = LibRawDecoder()
        let m = try d.open(bytes: bytes, name: name)
        return (m, try d.renderInPlace(options))
    }

    /// Convenience: open, check and render `url` with a fresh decoder.
    /// - Returns: metadata and the linear image.
    /// - Throws: `RawDecodeError`.
    public static func decode(_ url: URL, options: RawDecodeOptions = RawDecodeOptions()) throws -> (
        RawMetadata, LinearImage16
    ) {
        let d = LibRawDecoder()
        let m = try d.open(url)
        let img = try d.render(options)
        return (m, img)
    }

    /// Maps a LibRaw flip code to an Exif Orientation (dcraw's table `"50132467"` inverted).
    public static func exifOrientation(fromFlip flip: Int) -> Int {
        switch flip {
        case 0: return 1
        case 1: return 2
        case 3: return 3
        case 2: return 4
        case 4: return 5
        case 6: return 6
        case 7: return 7
        case 5: return 8
        default: return 1
        }
    }

    // MARK: - internals

    /// LibRaw leaves −999 in `baseline_exposure` when the tag is absent; anything outside ±10 stops is not real.
    private static func baselineExposure(_ dngVersion: UInt32, _ v: Float) -> Double {
        guard dngVersion != 0, v.isFinite, abs(v) <= 10 else { return 0 }
        return Double(v)
    }

    private func libraw(_ function: String, _ code: Int32) -> RawDecodeError {
        RawDecodeError(
            file: fileName,
            reason: .libraw(function: function, code: code, message: String(cString: libraw_strerror(code))))
    }

    private func metadata(fileSize size: Int) -> RawMetadata {
        let d = handle.pointee
        let mul = d.color.cam_mul
        return RawMetadata(
            make: cString(d.idata.make), model: cString(d.idata.model), software: cString(d.idata.software),
            rawWidth: Int(d.sizes.raw_width), rawHeight: Int(d.sizes.raw_height),
            width: Int(d.sizes.width), height: Int(d.sizes.height),
            flip: Int(d.sizes.flip), exifOrientation: Self.exifOrientation(fromFlip: Int(d.sizes.flip)),
            blackLevel: Int(d.color.black), whiteLevel: Int(d.color.maximum),
            dngVersion: d.idata.dng_version,
            isLinearDNG: d.idata.dng_version != 0 && d.idata.filters == 0 && d.idata.colors == 3,
            baselineExposure: Self.baselineExposure(d.idata.dng_version, d.color.dng_levels.baseline_exposure),
            cameraMultipliers: [Double(mul.0), Double(mul.1), Double(mul.2), Double(mul.3)],
            fileSize: size)
    }

    private func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
    }
}
