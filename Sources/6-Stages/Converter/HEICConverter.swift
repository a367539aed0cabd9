import FileContent
import FileKinds
import Foundation
import Isolation

// HEICConverter: RAW (or an already-rendered HEIC) → HEIC with metadata written at encode time, upright pixels and an
// ISO 21496-1 + Apple gain map only where the capture holds highlights above SDR white.
//
// This file dispatches on the input; each stage has its own file:
//   RawPipeline.swift      decode: LibRaw → linear 16-bit ProPhoto RGB (RawDecoder; stubs/garbage rejected there),
//                          pixels upright; then the RAW conversion from render to assembly.
//   Renderer.swift         render: exposure → Display P3 (or sRGB) linear, 1.0 = SDR diffuse white → SDR base with a
//                          highlight roll-off (hue-preserving: one scale factor per pixel) → sRGB transfer → 8/10-bit.
//                          HDR rendition = the same linear pixels without the roll-off (up to the sensor clip).
//                          (RenderPass.swift and RowKernel.swift run it band by band.)
//   HDRPolicy.swift        decide: measured headroom (luminance above SDR white) → policy (see `HDRDecision`).
//   TiledEncoder.swift     encode: HeifEncoder (x265), one item or a grid of tiles coded in parallel; hvcC +
//                          bitstream extracted with the HEIF parser.
//   GainMapEncoding.swift  the gain map (4:0:0, half size) from the render's cell statistics, and its description.
//   OutputMetadata.swift   Exif (Exiv2Bridge, Orientation 1, no irot) and XMP (file + sidecar).
//   Assembly.swift         HEIFBuilder: primary, `tmap` + `altr`, Apple aux gain map + its XMP, Exif, XMP, thumbnail.
//   HEIFReencode.swift     an already-rendered HEIC/HEIF re-encoded as flat SDR.
// Writing the bytes to disk is the caller's: `readback convert` publishes them through Batch.

/// RAW → HEIC conversion. Stateless; every call may run in parallel with others.
public enum HEICConverter {
    /// File extensions read as RAW (LibRaw), which `readback convert` also discovers sources by (`FileKinds.raw`).
    public static let rawExtensions = FileKinds.raw
    /// Already-rendered inputs converted as flat SDR through libheif.
    public static let heifExtensions = FileKinds.heif
    /// Recognised rendered formats we cannot decode here (no JPEG/PNG/TIFF decoder in this build).
    public static let unsupportedRendered = FileKinds.jpeg.union(FileKinds.avif).union(FileKinds.otherRendered)

    /// Converts one file.
    /// - Parameters:
    ///   - source: a RAW (see `rawExtensions`) or a HEIC/HEIF.
    ///   - options: quality, depth, chroma, HDR mode, speed.
    /// - Returns: the HEIC bytes and the result.
    /// - Throws: `ConvertError` naming the file and the reason (one line).
    ///   - decoders: the decoders the file's bytes go through.
    public static func convert(source: URL, options: ConvertOptions = ConvertOptions(), decoders: any Decoders) throws
        -> ConvertedImage
    {
        try convert(source: source, bytes: nil, options: options, decoders: decoders)
    }

    /// Converts one file whose bytes were already read (`bytes`; nil reads them here): the file is read once, and
    /// LibRaw, exiv2 and libheif all work on these bytes in memory.
    /// - Parameters:
    ///   - source: a RAW (see `rawExtensions`) or a HEIC/HEIF; its path names it and finds its sidecar.
    ///   - bytes: the whole file, or nil.
    ///   - options: quality, depth, chroma, HDR mode, speed.
    /// - Returns: the HEIC bytes, the result, and the reference render the camera look used (`reference`).
    /// - Throws: `ConvertError` naming the file and the reason (one line).
    ///   - decoders: the decoders the file's bytes go through.
    public static func convert(source: URL, bytes: [UInt8]?, options: ConvertOptions, decoders: any Decoders) throws
        -> ConvertedImage
    {
        let name = source.lastPathComponent
        if let p = options.validationProblem() { throw ConvertError(file: name, reason: p) }
        let ext = source.pathExtension.lowercased()
        guard bytes != nil || FileManager.default.isReadableFile(atPath: source.path) else {
            throw ConvertError(file: name, reason: "cannot read the file")
        }
        func read() throws -> [UInt8] {
            if let bytes { return bytes }
            do { return try FileContent.read(path: source.path) } catch {
                throw ConvertError(file: name, reason: "cannot read the file: \(error.kind)")
            }
        }
        if rawExtensions.contains(ext) { return try convertRAW(source, try read(), options, decoders) }
        if heifExtensions.contains(ext) { return try convertHEIF(source, try read(), options, decoders) }
        if unsupportedRendered.contains(ext) {
            throw ConvertError(
                file: name, reason: "unsupported input: .\(ext) decoding is not built in (RAW and HEIC only)")
        }
        throw ConvertError(file: name, reason: "unsupported input: unknown extension '.\(ext)'")
    }
}

// MARK: - Timing

/// The one clock of a conversion's stages: seconds per named lap on the monotonic clock. The converter times its own
/// stages with it, and Batch goes on timing an item's (hash, publish, audit) with one that took the converter's laps.
public struct Stopwatch: Sendable {
    private let start = DispatchTime.now().uptimeNanoseconds
    private var last = DispatchTime.now().uptimeNanoseconds
    /// Seconds per lap name.
    public private(set) var laps: [String: Double] = [:]

    public init() {}

    /// Ends the current lap as `name` (added to an earlier lap of that name) and starts the next.
    public mutating func lap(_ name: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        laps[name, default: 0] += Double(now - last) / 1e9
        last = now
    }

    /// Moves `seconds` from one lap to another (a stage that ran inside another one's wall time).
    public mutating func move(_ seconds: Double, from: String, to: String) {
        laps[from, default: 0] -= seconds
        laps[to, default: 0] += seconds
    }

    /// Takes laps timed elsewhere (a lap already here keeps its time) and starts the next lap now.
    public mutating func merge(_ other: [String: Double]) {
        laps.merge(other) { mine, _ in mine }
        last = DispatchTime.now().uptimeNanoseconds
    }

    /// Seconds since the stopwatch was made.
    public var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// Records `elapsed` as the lap "total".
    public mutating func total() { laps["total"] = elapsed }
}
