import Exiv2Bridge
import Foundation
import GainMap
import HEIF
import HeifCodec
import RawDecoder

// Converter: RAW (or an already-rendered HEIC) → HEIC with metadata written at encode time, upright pixels and an
// ISO 21496-1 + Apple gain map only where the capture holds highlights above SDR white.
//
// Pipeline (one file, in this order):
//   1. decode   LibRaw → linear 16-bit ProPhoto RGB (RawDecoder; stubs/garbage rejected there), pixels upright.
//   2. render   exposure → Display P3 (or sRGB) linear, 1.0 = SDR diffuse white → SDR base with a highlight
//               roll-off (hue-preserving: one scale factor per pixel) → sRGB transfer → 8/10-bit.
//               HDR rendition = the same linear pixels without the roll-off (up to the sensor clip).
//   3. decide   measured headroom (luminance above SDR white) → policy (see `HDRDecision`).
//   4. encode   HeifEncoder (x265): base, gain map (4:0:0, half size), thumbnail; hvcC + bitstream extracted with
//               the HEIF parser.
//   5. assemble HEIFBuilder: primary, `tmap` + `altr`, Apple aux gain map + its XMP, Exif (Exiv2Bridge, Orientation
//               1, no irot), XMP (file + sidecar), thumbnail.

/// Readback's version as written into Exif Software (the CLI's `Readback.version` must match).
public let readbackVersion = "0.1.0"

/// Whether to produce HDR gain maps.
public enum HDRMode: String, Sendable, Codable, CaseIterable {
    /// Gain map where the policy says the capture holds highlights (see `HDRDecision`).
    case auto
    /// Never: flat SDR output.
    case off
}

/// Output primaries of the SDR base.
public enum OutputColorSpace: String, Sendable, Codable, CaseIterable {
    case displayP3 = "p3"
    case sRGB = "srgb"
}

/// Conversion options. Defaults: quality 65 at x265 preset `ultrafast`, 8-bit 4:2:0, Display P3, HDR auto.
///
/// Why q65/ultrafast: the quality ladder's "visually lossless" pick (docs/quality-ladder.md, data in
/// docs/quality-ladder.tsv; `EncodingTarget.visuallyLossless`, checked against the data by FidelityTests): the
/// smallest and fastest (preset, quality) whose decoded luma keeps mean SSIM ≥ 0.99 and every 64×64 block ≥ 0.97
/// against the float render on every ladder image (24 MP chart, two remosaiced iPhone photos, a real Canon DNG).
/// Measured there: 1.11 bits/pixel (≈ 3.3 MB per 24 MP), lowest mean SSIM-Y 0.9907, lowest block 0.9806; against
/// medium q75, 0.40× the size and 0.22× the encode time.
public struct ConvertOptions: Sendable, Equatable, Codable {
    /// libheif quality 0–100.
    public var quality: Int = 65
    /// 8 or 10.
    public var bitDepth: Int = 8
    /// "420" or "444".
    public var chroma: HeifChroma = .yuv420
    public var hdr: HDRMode = .auto
    /// x265 preset (ultrafast … placebo).
    public var speed: String = "ultrafast"
    public var colorSpace: OutputColorSpace = .displayP3
    /// Write an ICC profile (`colr` prof) for the output space next to the `nclx`.
    public var icc: Bool = true
    /// Add a small thumbnail item (`thmb`).
    public var thumbnail: Bool = true
    /// Quality of the gain-map stream.
    public var gainMapQuality: Int = 90
    /// x265 preset of the gain-map stream: the map is smooth, so the fastest preset costs no measurable fidelity
    /// (gain map at full weight against the HDR rendition, ConverterTests: mean 0.0171 stops with ultrafast and with
    /// veryfast, p99 0.248 both) and encodes the 24 MP chart's 3000×2000 map in ≈ 0.11 s instead of ≈ 0.34 s.
    public var gainMapSpeed: String = "ultrafast"
    /// Exif Software value.
    public var software: String = "Readback \(readbackVersion)"
    /// XMP sidecar; nil = `<source>.xmp` or `<source minus extension>.xmp` when one exists.
    public var sidecar: URL?
    /// Tile side in pixels for the primary and a gain map larger than one tile: each tile is an independent hidden
    /// `hvc1` item of a `grid` (ISO/IEC 23008-12 §6.6.2.3), coded in parallel. 0 = one untiled image. Must be 0 or a
    /// multiple of 64 (x265's CTU) in 64…4096. An image that fits in one tile is always coded untiled.
    ///
    /// Why 512 (Apple's tile size): see `Converter.defaultTileSize`.
    public var tileSize: Int = Converter.defaultTileSize
    /// Encoder threads coding tiles at once; 0 = one per core.
    public var encodeWorkers: Int = 0

    public init() {}

    /// Checks ranges; returns a one-line problem or nil.
    public func validationProblem() -> String? {
        if !(0...100).contains(quality) { return "quality must be 0…100, got \(quality)" }
        if bitDepth != 8 && bitDepth != 10 { return "depth must be 8 or 10, got \(bitDepth)" }
        if chroma == .monochrome { return "chroma must be 420 or 444" }
        if !HeifEncodeSettings.presets.contains(gainMapSpeed) {
            return "gain-map speed '\(gainMapSpeed)' is not an x265 preset"
        }
        if !HeifEncodeSettings.presets.contains(speed) {
            return "speed must be one of \(HeifEncodeSettings.presets.joined(separator: ", ")), got '\(speed)'"
        }
        if tileSize != 0 && (tileSize < 64 || tileSize > 4096 || tileSize % 64 != 0) {
            return "tile size must be 0 (untiled) or a multiple of 64 in 64…4096, got \(tileSize)"
        }
        if encodeWorkers < 0 || encodeWorkers > 256 {
            return "encode workers must be 0 (one per core) … 256, got \(encodeWorkers)"
        }
        return nil
    }
}

extension HeifChroma: Codable {}

/// What kind of input a file was.
public enum InputKind: String, Sendable, Codable {
    /// A mosaic RAW (Bayer / X-Trans), any make.
    case mosaicRAW = "raw"
    /// A DNG with demosaiced (LinearRaw) data, e.g. iPhone ProRAW.
    case linearDNG = "linear-dng"
    /// An already-rendered HEIC/HEIF.
    case renderedHEIF = "heif"
}

/// The HDR decision for one file, with the measurements behind it.
public struct HDRDecision: Sendable, Codable, Equatable {
    /// True when a gain map was written.
    public var gainMap: Bool
    /// One line: the policy rule applied and why.
    public var reason: String
    /// log2 of the 99.9th-percentile luminance over SDR white (1.0): the captured headroom in stops (≥ 0).
    public var measuredHeadroomStops: Double
    /// Fraction of pixels whose luminance is more than one stop above SDR white.
    public var fractionAboveOneStop: Double
    /// log2 of the sensor clip over SDR white (the most the capture can hold), stops.
    public var clipHeadroomStops: Double
}

/// A summary of the gain map written.
public struct GainMapSummary: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int
    /// ISO 21496-1 `gain_map_min`/`gain_map_max` (log2) and `alternate_hdr_headroom` (log2).
    public var gainMin: Double
    public var gainMax: Double
    public var alternateHeadroom: Double
    /// Apple `HDRGainMapHeadroom` (linear) written in the gain map's XMP.
    public var appleHeadroom: Double
    public var bytes: Int
}

/// The per-file result the batch engine reports.
public struct ConversionResult: Sendable, Codable, Equatable {
    public var source: String
    public var inputKind: InputKind
    public var width: Int
    public var height: Int
    public var make: String
    public var model: String
    public var hdr: HDRDecision
    public var gainMap: GainMapSummary?
    /// What the output does not carry from the source, one line each (e.g. MakerNote tags exiv2 could not re-encode).
    public var knownLosses: [String]
    /// Seconds per stage: decode, render, encode, gainmap, metadata, assemble, total.
    public var timings: [String: Double]
    public var inputBytes: Int
    public var outputBytes: Int
    public var options: ConvertOptions
    /// Tiles of the primary `grid` (0 = one untiled image).
    public var primaryTiles: Int = 0

    /// output ÷ input bytes.
    public var sizeRatio: Double { inputBytes > 0 ? Double(outputBytes) / Double(inputBytes) : 0 }
}

/// The output bytes and the result.
public struct ConvertedImage: Sendable {
    public var bytes: [UInt8]
    public var result: ConversionResult
}

/// Why a file could not be converted. `description` is one line naming the file and the reason.
public struct ConvertError: Error, CustomStringConvertible, Sendable, Equatable {
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }

    public var description: String { "\(file): \(reason)" }
}

/// The two renditions of a RAW, linear, planar (1.0 = SDR white): what the SDR base and the HDR alternate encode.
/// Exposed so tests and the auditor can measure how well base + gain map reproduce the HDR rendition.
public struct Renditions: Sendable {
    public var sdr: LinearImage
    public var hdr: LinearImage
    public var decision: HDRDecision
}

/// RAW → HEIC conversion. Stateless; every call may run in parallel with others.
public enum Converter {
    /// File extensions read as RAW (LibRaw).
    public static let rawExtensions: Set<String> = [
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "pef", "srw", "x3f",
        "mrw", "iiq", "3fr", "erf", "kdc", "dcr", "mos", "rwl", "raw",
    ]
    /// Already-rendered inputs converted as flat SDR through libheif.
    public static let heifExtensions: Set<String> = ["heic", "heif", "hif"]
    /// Recognised rendered formats we cannot decode here (no JPEG/PNG/TIFF decoder in this build).
    public static let unsupportedRendered: Set<String> = ["jpg", "jpeg", "png", "tif", "tiff", "avif", "webp"]

    // MARK: - Rendering constants

    /// Stops between SDR diffuse white and the sensor clip before BaselineExposure: 1.5, i.e. a metered 18 %
    /// grey sits ≈ 4 stops under the clip, like a modern camera's default exposure.
    public static let clipStopsAboveWhite = 1.5
    /// Luminance where the SDR roll-off starts (linear).
    public static let shoulderStart: Float = 0.6
    /// Policy thresholds: a mosaic RAW gets a gain map when more than this fraction of pixels is more than one stop
    /// above SDR white.
    public static let mosaicHighlightFraction = 0.001
    /// A linear DNG gets its SDR/HDR pair when the 99.9th percentile is at least this many stops above SDR white.
    public static let linearDNGMinimumHeadroom = 0.1

    /// Converts one file.
    /// - Parameters:
    ///   - source: a RAW (see `rawExtensions`) or a HEIC/HEIF.
    ///   - options: quality, depth, chroma, HDR mode, speed.
    /// - Returns: the HEIC bytes and the result.
    /// - Throws: `ConvertError` naming the file and the reason (one line).
    public static func convert(source: URL, options: ConvertOptions = ConvertOptions()) throws -> ConvertedImage {
        let name = source.lastPathComponent
        if let p = options.validationProblem() { throw ConvertError(file: name, reason: p) }
        let ext = source.pathExtension.lowercased()
        guard FileManager.default.isReadableFile(atPath: source.path) else {
            throw ConvertError(file: name, reason: "cannot read the file")
        }
        if rawExtensions.contains(ext) { return try convertRAW(source, options) }
        if heifExtensions.contains(ext) { return try convertHEIF(source, options) }
        if unsupportedRendered.contains(ext) {
            throw ConvertError(
                file: name, reason: "unsupported input: .\(ext) decoding is not built in (RAW and HEIC only)")
        }
        throw ConvertError(file: name, reason: "unsupported input: unknown extension '.\(ext)'")
    }

    /// The output file name for a source: same base name, `.heic`.
    public static func outputURL(for source: URL, in directory: URL) -> URL {
        directory.appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".heic")
    }

    /// Writes `bytes` to `destination` atomically: a temporary file in the same folder, `fsync`, `rename`, then an
    /// `fsync` of the folder. On any failure the temporary file is removed and nothing is left behind.
    /// - Parameters:
    ///   - bytes: the file content.
    ///   - destination: the final path (replaced if it exists).
    /// - Throws: `ConvertError` naming the destination and the errno text.
    public static func writeAtomically(_ bytes: [UInt8], to destination: URL) throws {
        let dir = destination.deletingLastPathComponent()
        let tmp = dir.appendingPathComponent(".\(destination.lastPathComponent).readback-\(UUID().uuidString).tmp")
        let name = destination.lastPathComponent
        func fail(_ what: String) -> ConvertError {
            let e = String(cString: strerror(errno))
            unlink(tmp.path)
            return ConvertError(file: name, reason: "\(what) failed: \(e)")
        }
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if fd < 0 { throw fail("creating a temporary file in \(dir.path)") }
        var off = 0
        let ok: Bool = bytes.withUnsafeBytes { b in
            while off < b.count {
                let n = write(fd, b.baseAddress! + off, b.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                off += n
            }
            return true
        }
        if !ok {
            let err = fail("writing")
            close(fd)
            throw err
        }
        if fsync(fd) != 0 {
            let err = fail("fsync")
            close(fd)
            throw err
        }
        if close(fd) != 0 { throw fail("close") }
        if rename(tmp.path, destination.path) != 0 { throw fail("rename into place") }
        let dfd = open(dir.path, O_RDONLY)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// Converts `source` and writes the result as `<name>.heic` in `directory` (see `writeAtomically`).
    /// - Returns: the result and the output URL.
    /// - Throws: `ConvertError`; nothing is left in `directory` on failure.
    public static func convert(source: URL, toDirectory directory: URL, options: ConvertOptions = ConvertOptions())
        throws -> (result: ConversionResult, output: URL)
    {
        let out = try convert(source: source, options: options)
        let url = outputURL(for: source, in: directory)
        try writeAtomically(out.bytes, to: url)
        return (out.result, url)
    }

    // MARK: - RAW

    /// The SDR and HDR renditions of a RAW as linear planar images (what `convert` encodes), and the HDR decision.
    /// - Parameters:
    ///   - source: the RAW.
    ///   - options: colour space and HDR mode are used.
    /// - Returns: both renditions at full size.
    /// - Throws: `ConvertError`.
    public static func renditions(of source: URL, options: ConvertOptions = ConvertOptions()) throws -> Renditions {
        let (decision, pass, _) = try openPass(source, options: options, gainMap: { _ in false })
        guard let img = pass.frame else { throw ConvertError(file: source.lastPathComponent, reason: "no frame") }
        let r = pass.renderer
        let n = img.width * img.height
        var sdr = [Float](repeating: 0, count: n * 3)
        var hdr = [Float](repeating: 0, count: n * 3)
        var row = [UInt16](repeating: 0, count: 3 * img.width)
        for i in 0..<n {
            if i % img.width == 0 { row.withUnsafeMutableBufferPointer { img.copyRow(i / img.width, into: $0) } }
            let p = row.withUnsafeBufferPointer { r.pixel($0, i % img.width) }
            hdr[i] = p.rgb.0
            hdr[n + i] = p.rgb.1
            hdr[2 * n + i] = p.rgb.2
            sdr[i] = p.rgb.0 * p.scale
            sdr[n + i] = p.rgb.1 * p.scale
            sdr[2 * n + i] = p.rgb.2 * p.scale
        }
        return Renditions(
            sdr: try LinearImage(width: img.width, height: img.height, channels: 3, pixels: sdr),
            hdr: try LinearImage(width: img.width, height: img.height, channels: 3, pixels: hdr), decision: decision)
    }

    /// The exact frame `convert` encodes as the primary of a RAW: decode (LibRaw, upright) + SDR render at
    /// `options.bitDepth` in `options.colorSpace`, before HEVC (the same render pass, untiled). For fidelity
    /// measurements against the encoded output.
    /// - Parameters:
    ///   - source: a RAW (see `rawExtensions`).
    ///   - options: colour space and bit depth are used (the HDR mode and tiling do not change the SDR base).
    /// - Returns: interleaved RGB, `.rgb8` for 8-bit or `.rgb16` (10-bit codes) for 10-bit, at the upright size.
    /// - Throws: `ConvertError` naming the file and the reason.
    public static func renderedFrame(of source: URL, options: ConvertOptions = ConvertOptions()) throws -> HeifPixels {
        let name = source.lastPathComponent
        if let p = options.validationProblem() { throw ConvertError(file: name, reason: p) }
        guard rawExtensions.contains(source.pathExtension.lowercased()) else {
            throw ConvertError(file: name, reason: "renderedFrame needs a RAW input, got '.\(source.pathExtension)'")
        }
        let (_, pass, _) = try openPass(source, options: options, gainMap: { _ in false })
        return renderWhole(pass)
    }

    /// The default tile size, 512 px (Apple's), chosen by measurement on this 2-core machine (release build,
    /// conversion alone; full table and commands in docs/tiling.md):
    /// - memory: untiled, the full 8/10-bit frame, libheif's copy and x265's full-size picture buffers coexist; tiled,
    ///   LibRaw's buffer plus one band of tiles. Peak RSS, 24 MP chart: 502–544 MB untiled vs 333–357 MB tiled (8-bit;
    ///   10-bit 786 vs 363 MB); 50 MP: 995 vs 621 MB — tiled stays under the issue's bound of 3× the decoded 16-bit
    ///   frame (432 / 900 MB), untiled does not. 1024-px tiles: 381 MB at 24 MP;
    /// - size: +0.8–1.0 % bytes on photographic content (12 MP remosaiced iPhone photos at ultrafast q65; 24 MP chart at
    ///   veryfast/medium q75), +10 % on the synthetic chart at ultrafast q65, where the whole picture is only 0.11
    ///   bit/pixel and every tile restarts its entropy coder and prediction (1024 px: +0.6 % / +6 % but 381 MB);
    /// - speed: equal or up to 3 % faster (x265 already keeps both cores busy on one picture): 24 MP chart ultrafast
    ///   q65 3.32–3.52 s untiled, 3.25–3.37 s tiled; medium q75 11.57 vs 11.56 s.
    public static let defaultTileSize = 512

    /// Decodes `source` in place (LibRaw's buffer, no copies), takes the HDR decision on it and prepares the render
    /// pass; the pass holds the only reference to the frame.
    private static func openPass(
        _ source: URL, options: ConvertOptions, gainMap: (HDRDecision) -> Bool
    ) throws -> (HDRDecision, RenderPass, RawMetadata) {
        let (meta, frame): (RawMetadata, RawFrame)
        do {
            (meta, frame) = try LibRawDecoder.decodeInPlace(source, options: RawDecodeOptions(workingSpace: .proPhoto))
        } catch let e as RawDecodeError {
            throw ConvertError(file: e.file, reason: "\(e.description.dropFirst(e.file.count + 2))")
        }
        let r = Renderer(meta: meta, space: options.colorSpace)
        let decision = r.decide(frame, kind: meta.isLinearDNG ? .linearDNG : .mosaicRAW, hdr: options.hdr)
        let pass = RenderPass(frame: frame, renderer: r, bitDepth: options.bitDepth, gainMap: gainMap(decision))
        return (decision, pass, meta)
    }

    /// Renders every row of `pass` into one full-size buffer and releases the frame.
    private static func renderWhole(_ pass: RenderPass) -> HeifPixels {
        let w = pass.width
        let h = pass.height
        let n = w * h * 3
        defer { pass.releaseFrame() }
        if pass.bitDepth == 8 {
            var buf = [UInt8](repeating: 0, count: n)
            buf.withUnsafeMutableBytes { pass.render(rows: 0, h, into: $0.baseAddress!) }
            return .rgb8(width: w, height: h, samples: buf)
        }
        var buf = [UInt16](repeating: 0, count: n)
        buf.withUnsafeMutableBytes { pass.render(rows: 0, h, into: $0.baseAddress!) }
        return .rgb16(width: w, height: h, bitDepth: 10, samples: buf)
    }

    private static func convertRAW(_ source: URL, _ options: ConvertOptions) throws -> ConvertedImage {
        let name = source.lastPathComponent
        var clock = Stopwatch()
        let (decision, pass, meta) = try openPass(source, options: options, gainMap: \.gainMap)
        clock.lap("decode")
        let kind: InputKind = meta.isLinearDNG ? .linearDNG : .mosaicRAW
        let width = pass.width
        let height = pass.height

        // Primary: rendered band by band straight into the tile encoders (or whole, untiled), then LibRaw is freed.
        let settings = HeifEncodeSettings(
            quality: options.quality, bitDepth: options.bitDepth, chroma: options.chroma, preset: options.speed,
            nclx: options.colorSpace == .displayP3 ? .displayP3 : .sRGB,
            icc: options.icc ? ICCProfile.profile(for: options.colorSpace) : nil)
        var parts = EncodedParts()
        let layout = try TileLayout.make(width: width, height: height, tileSize: options.tileSize, file: name)
        var renderSeconds = 0.0
        var gainMapValues: ComputedGainMap?
        var gainMapSeconds = 0.0
        if let layout {
            let tiles = try encodeGrid(
                layout: layout, channels: 3, bitDepth: options.bitDepth, settings: settings, options: options,
                file: name,
                afterLastBand: {
                    // LibRaw's buffers go now; the gain map's values need only the render's cell statistics, so
                    // they are computed here, on the otherwise idle producer thread, while the last tiles encode.
                    pass.releaseFrame()
                    if pass.gainMap {
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        gainMapValues = try computeGainMap(pass, file: name)
                        gainMapSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                    }
                },
                fill: { y0, y1, band in
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    pass.render(rows: y0, y1, into: band)
                    renderSeconds += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                })
            pass.releaseFrame()
            parts.primary = .grid(layout, tiles)
        } else {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let pixels = renderWhole(pass)
            renderSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            parts.primary = .single(try encodeItem(pixels, settings: settings, file: name))
        }
        clock.lap("encode")
        clock.move(renderSeconds, from: "encode", to: "render")
        clock.move(gainMapSeconds, from: "encode", to: "gainmap")

        var summary: GainMapSummary?
        if pass.gainMap {
            let computed = try gainMapValues ?? computeGainMap(pass, file: name)
            let (gm, s) = try makeGainMap(pass, computed, options: options, file: name)
            parts.gainMap = gm
            summary = s
            clock.lap("gainmap")
        }
        if options.thumbnail, let t = pass.thumbnail() {
            // A thumbnail is smaller than one tile: one thread, no x265 pool (see HeifEncoder.encode's `threads`).
            parts.thumbnail = try encodeItem(
                t, settings: HeifEncodeSettings(quality: 60, preset: options.speed, nclx: settings.nclx), threads: 1,
                file: name)
        }

        var losses: [String] = []
        let md = metadata(for: source, width: width, height: height, options: options, losses: &losses)
        clock.lap("metadata")
        let bytes = try assemble(parts, exif: md.exif, xmp: md.xmp, width: width, height: height, file: name)
        clock.lap("assemble")
        clock.total()

        var result = ConversionResult(
            source: name, inputKind: kind, width: width, height: height, make: meta.make, model: meta.model,
            hdr: decision, gainMap: summary, knownLosses: losses, timings: clock.laps, inputBytes: meta.fileSize,
            outputBytes: bytes.count, options: options)
        result.primaryTiles = layout?.count ?? 0
        return ConvertedImage(bytes: bytes, result: result)
    }

    /// Codes an image as tiles in parallel: `fill(y0, y1, band)` writes rows y0 ..< y1 (one tile row; interleaved
    /// samples, `UInt8` at 8 bits, `UInt16` otherwise) into the band buffer, then the band's tiles (edge-replicated
    /// at the right and bottom) go to a pool of encoder threads while the next band is filled; `afterLastBand` runs on
    /// the calling thread once every band is queued, while the workers finish.
    /// - Returns: the coded tiles in raster order.
    /// - Throws: `ConvertError` from any tile.
    static func encodeGrid(
        layout: TileLayout, channels: Int, bitDepth: Int, settings: HeifEncodeSettings, options: ConvertOptions,
        file: String, afterLastBand: () throws -> Void = {}, fill: (Int, Int, UnsafeMutableRawPointer) -> Void
    ) throws -> [CodedItem] {
        let workers = options.encodeWorkers > 0 ? options.encodeWorkers : ProcessInfo.processInfo.activeProcessorCount
        // One thread per encoder when several encoders share the cores (x265's default pool has a thread per core in
        // every encoder); a single worker keeps that pool.
        let threads: Int? = workers > 1 ? 1 : nil
        let pool = TileEncodePool(workers: workers, capacity: layout.columns) { px in
            try encodeItem(px, settings: settings, threads: threads, file: file)
        }
        let w = layout.width
        let tw = layout.tileWidth
        let th = layout.tileHeight
        let bytesPerSample = bitDepth == 8 ? 1 : 2
        let band = UnsafeMutableRawPointer.allocate(byteCount: w * th * channels * bytesPerSample, alignment: 16)
        defer { band.deallocate() }
        do {
            for row in 0..<layout.rows {
                let y0 = row * th
                let y1 = min(layout.height, y0 + th)
                fill(y0, y1, band)
                for c in 0..<layout.columns {
                    let px: HeifPixels
                    if bitDepth == 8 {
                        let s = cutTile(
                            UnsafePointer(band.assumingMemoryBound(to: UInt8.self)), width: w, bandRows: y1 - y0,
                            x0: c * tw, tileWidth: tw, tileHeight: th, channels: channels)
                        px =
                            channels == 1
                            ? .mono8(width: tw, height: th, samples: s) : .rgb8(width: tw, height: th, samples: s)
                    } else {
                        let s = cutTile(
                            UnsafePointer(band.assumingMemoryBound(to: UInt16.self)), width: w, bandRows: y1 - y0,
                            x0: c * tw, tileWidth: tw, tileHeight: th, channels: channels)
                        px = .rgb16(width: tw, height: th, bitDepth: bitDepth, samples: s)
                    }
                    try pool.submit(row * layout.columns + c, px)
                }
            }
            // Producer-side work that needs every band but not the coded tiles runs while the workers drain.
            try afterLastBand()
        } catch {
            pool.abandon()
            throw error
        }
        return try pool.finish(count: layout.count)
    }

    // MARK: - HEIC (already rendered → flat SDR)

    private static func convertHEIF(_ source: URL, _ options: ConvertOptions) throws -> ConvertedImage {
        let name = source.lastPathComponent
        var clock = Stopwatch()
        let decoded: HeifDecodedImage
        let inputBytes: [UInt8]
        do {
            inputBytes = [UInt8](try Data(contentsOf: source))
            decoded = try HeifDecoder.decodePrimary(inputBytes, format: options.bitDepth == 10 ? .rgbNative : .rgb8)
        } catch let e as HeifError {
            throw ConvertError(file: name, reason: "cannot decode: \(e.description)")
        } catch {
            throw ConvertError(file: name, reason: "cannot read: \(error.localizedDescription)")
        }
        clock.lap("decode")
        var losses: [String] = []
        let parsed = HEIFFile(bytes: inputBytes)
        if let p = parsed.primaryItemID {
            if parsed.appleGainMap(of: p) != nil || !parsed.toneMapItems.isEmpty {
                losses.append("source gain map not carried: rendered inputs are converted as flat SDR")
            }
            if !parsed.auxiliaryImages(of: p).filter({ $0.urn != HEIFFile.appleGainMapURN }).isEmpty {
                losses.append("source auxiliary images (depth, mattes) not carried")
            }
        }
        // Keep the source's colour signalling: its nclx, else (ICC only) an 'unspecified' nclx so the ICC governs.
        let nclx =
            decoded.nclx ?? (decoded.icc != nil ? Nclx(primaries: 2, transfer: 2, matrix: 6, fullRange: true) : .sRGB)
        if decoded.nclx == nil && decoded.icc == nil {
            losses.append("source had no colour signalling; written as sRGB")
        }
        let pixels: HeifPixels
        var depth = 8
        if decoded.bitDepth > 8 {
            depth = 10
            let shift = decoded.bitDepth - 10
            pixels = .rgb16(
                width: decoded.width, height: decoded.height, bitDepth: 10,
                samples: shift >= 0
                    ? decoded.samples.map { $0 >> UInt16(shift) } : decoded.samples.map { $0 << UInt16(-shift) })
        } else {
            pixels = .rgb8(width: decoded.width, height: decoded.height, samples: decoded.samples.map { UInt8($0) })
        }
        var parts = EncodedParts()
        let settings = HeifEncodeSettings(
            quality: options.quality, bitDepth: depth, chroma: options.chroma, preset: options.speed, nclx: nclx,
            icc: decoded.icc)
        let layout = try TileLayout.make(
            width: decoded.width, height: decoded.height, tileSize: options.tileSize, file: name)
        if let layout {
            let tiles = try encodeGrid(
                layout: layout, channels: 3, bitDepth: depth, settings: settings, options: options, file: name
            ) { y0, y1, band in
                let n = (y1 - y0) * decoded.width * 3
                switch pixels {
                case .rgb8(_, _, let s):
                    s.withUnsafeBytes { band.copyMemory(from: $0.baseAddress! + y0 * decoded.width * 3, byteCount: n) }
                case .rgb16(_, _, _, let s):
                    s.withUnsafeBytes {
                        band.copyMemory(from: $0.baseAddress! + y0 * decoded.width * 6, byteCount: 2 * n)
                    }
                case .mono8: break
                }
            }
            parts.primary = .grid(layout, tiles)
        } else {
            parts.primary = .single(try encodeItem(pixels, settings: settings, file: name))
        }
        clock.lap("encode")
        let md = metadata(
            for: source, width: decoded.width, height: decoded.height, options: options, losses: &losses)
        clock.lap("metadata")
        let bytes = try assemble(
            parts, exif: md.exif, xmp: md.xmp, width: decoded.width, height: decoded.height, file: name)
        clock.lap("assemble")
        clock.total()
        let hdrTransfer = nclx.transfer == 16 || nclx.transfer == 18
        let decision = HDRDecision(
            gainMap: false,
            reason: hdrTransfer
                ? "already-rendered HDR input (nclx transfer \(nclx.transfer)): re-encoded as is, no gain map"
                : "already-rendered input: flat SDR",
            measuredHeadroomStops: 0,
            fractionAboveOneStop: 0, clipHeadroomStops: 0)
        var result = ConversionResult(
            source: name, inputKind: .renderedHEIF, width: decoded.width, height: decoded.height, make: "", model: "",
            hdr: decision, gainMap: nil, knownLosses: losses, timings: clock.laps, inputBytes: inputBytes.count,
            outputBytes: bytes.count, options: options)
        result.primaryTiles = layout?.count ?? 0
        return ConvertedImage(bytes: bytes, result: result)
    }

    // MARK: - Encoding

    /// One coded image ready for the builder: its properties (hvcC essential first) and its bitstream.
    struct CodedItem {
        var properties: [(Property, essential: Bool)]
        var data: [UInt8]
        var width: Int
        var height: Int
    }

    /// A coded image: one item, or the tiles of a grid in raster order.
    enum CodedImage {
        case single(CodedItem)
        case grid(TileLayout, [CodedItem])
    }

    struct EncodedParts {
        var primary: CodedImage?
        var gainMap:
            (image: CodedImage, metadata: GainMapMetadata, alternate: AlternateRendition, appleHeadroom: Double)?
        var thumbnail: CodedItem?
    }

    /// Encodes with libheif into a small HEIF in memory and takes its primary's hvcC, ispe, colr, pixi and
    /// bitstream with the HEIF parser.
    static func encodeItem(
        _ pixels: HeifPixels, settings: HeifEncodeSettings, threads: Int? = nil, file: String
    ) throws -> CodedItem {
        let small: [UInt8]
        do { small = try HeifEncoder.encode(pixels, settings: settings, threads: threads) } catch let e as HeifError {
            throw ConvertError(file: file, reason: "HEVC encoding failed: \(e.description)")
        }
        let f = HEIFFile(bytes: small)
        guard let id = f.primaryItemID, f.item(id)?.type == "hvc1", let data = f.payload(of: id) else {
            throw ConvertError(file: file, reason: "libheif wrote an unexpected file layout (no hvc1 primary)")
        }
        var props: [(Property, essential: Bool)] = []
        var crop: [(Property, essential: Bool)] = []
        for a in f.properties(of: id) {
            switch a.property.type {
            case "hvcC": props.insert((a.property, true), at: 0)
            case "ispe", "colr", "pixi": props.append((a.property, false))
            // libheif pads odd sizes for 4:2:0 and crops back with `clap` (ISO/IEC 23008-12 §6.5.9): keep it,
            // after the descriptive properties and essential. Never irot/imir: the pixels are upright.
            case "clap": crop.append((a.property, true))
            default: break
            }
        }
        props += crop
        guard props.first?.0.type == "hvcC", props.contains(where: { $0.0.type == "ispe" }) else {
            throw ConvertError(file: file, reason: "libheif output lacks hvcC or ispe")
        }
        return CodedItem(properties: props, data: data, width: pixels.width, height: pixels.height)
    }

    /// The gain map's metadata and 8-bit values from the render pass's cell statistics (every band rendered).
    ///
    /// `GainMapMath.compute` at downscale 2 averages log2((Y_hdr + k_hdr)/(Y_sdr + k_sdr)) over 2×2 cells; the pass
    /// accumulated exactly those means while rendering, so no full-size luminance planes exist.
    /// `GainMapMath.fromLogRatios` turns them into the map, with the alternate headroom `compute` would have measured
    /// on the full-size plane (log2 of the HDR peak).
    private static func computeGainMap(_ pass: RenderPass, file: String) throws -> ComputedGainMap {
        var o = GainMapComputeOptions()
        o.channels = 1
        o.downscale = 1
        o.baseHdrHeadroom = 0
        o.alternateHdrHeadroom = max(0, log2(Double(max(pass.hdrPeak, 1e-6))))
        do {
            // The render pass already averaged log2((hdr + k_alt) / (sdr + k_base)) per cell (offsets as in `o`).
            return try GainMapMath.fromLogRatios(
                pass.cellMeans(), width: pass.cellWidth, height: pass.cellHeight, baseHdrHeadroom: 0,
                alternateHdrHeadroom: o.alternateHdrHeadroom ?? 0, options: o)
        } catch {
            throw ConvertError(file: file, reason: "gain map: \(error)")
        }
    }

    /// Codes the computed gain map (a grid when larger than one tile) and describes it: the ISO metadata, the
    /// alternate rendition, Apple's headroom and the result's summary.
    private static func makeGainMap(
        _ pass: RenderPass, _ computed: ComputedGainMap, options: ConvertOptions, file: String
    ) throws -> (
        (image: CodedImage, metadata: GainMapMetadata, alternate: AlternateRendition, appleHeadroom: Double),
        GainMapSummary
    ) {
        var (gw, gh, q) = (computed.width, computed.height, computed.quantized)
        let gmSettings = HeifEncodeSettings(
            quality: options.gainMapQuality, preset: options.gainMapSpeed, nclx: .gainMap)
        let image: CodedImage
        let bytes: Int
        if let layout = try TileLayout.make(width: gw, height: gh, tileSize: options.tileSize, file: file) {
            let tiles = try q.withUnsafeBytes { src in
                try encodeGrid(
                    layout: layout, channels: 1, bitDepth: 8, settings: gmSettings, options: options, file: file
                ) { y0, y1, band in
                    band.copyMemory(from: src.baseAddress! + y0 * layout.width, byteCount: (y1 - y0) * layout.width)
                }
            }
            image = .grid(layout, tiles)
            bytes = tiles.reduce(0) { $0 + $1.data.count }
        } else {
            // An even-sized map codes without padding or `clap` (the gain-map item carries no transforms): replicate
            // the last column/row when the half-size map is odd; the map is stretched by < 1 map pixel over the image.
            if gw % 2 == 1 || gh % 2 == 1 {
                let ew = gw + gw % 2
                let eh = gh + gh % 2
                var padded = [UInt8](repeating: 0, count: ew * eh)
                for y in 0..<eh {
                    let sy = min(y, gh - 1)
                    for x in 0..<ew { padded[y * ew + x] = q[sy * gw + min(x, gw - 1)] }
                }
                (gw, gh, q) = (ew, eh, padded)
            }
            // At most one tile's size: one thread, no x265 pool, as for the tiles.
            let item = try encodeItem(
                .mono8(width: gw, height: gh, samples: q), settings: gmSettings, threads: 1, file: file)
            image = .single(item)
            bytes = item.data.count
        }
        let chMeta = computed.metadata.channel(0)
        let ha = computed.metadata.alternateHdrHeadroom.doubleValue
        // Apple's view carries the same headroom as the ISO view (libavif's Apple ↔ ISO mapping,
        // apple-heic-gainmap.md §5: HDRGainMapHeadroom = 2^alternate_hdr_headroom), so the auditor's consistency check
        // (log2(Apple headroom) ≈ alternate_hdr_headroom) holds for our own files.
        let appleH = max(1, exp2(ha))
        let mean = pass.hdrSum / Double(max(1, pass.width * pass.height))
        let clli = (
            UInt16(clamping: Int((Double(pass.hdrPeak) * 203).rounded())), UInt16(clamping: Int((mean * 203).rounded()))
        )
        let summary = GainMapSummary(
            width: gw, height: gh, gainMin: chMeta.min.doubleValue, gainMax: chMeta.max.doubleValue,
            alternateHeadroom: ha, appleHeadroom: appleH, bytes: bytes)
        // The alternate rendition: the base's primaries, shown through PQ on an HDR display (never coded, only described).
        let alternate = AlternateRendition(
            nclx: NCLX(
                colourPrimaries: options.colorSpace == .displayP3 ? 12 : 1, transferCharacteristics: 16,
                matrixCoefficients: 0, fullRange: true),
            bitsPerChannel: [10, 10, 10], contentLightLevel: clli.0 > 0 ? (clli.0, clli.1) : nil)
        return ((image, computed.metadata, alternate, appleH), summary)
    }

    // MARK: - Metadata

    private static func sidecar(for source: URL, options: ConvertOptions) -> URL? {
        if let s = options.sidecar { return s }
        let fm = FileManager.default
        for c in [
            source.appendingPathExtension("xmp"), source.deletingPathExtension().appendingPathExtension("xmp"),
            source.deletingPathExtension().appendingPathExtension("XMP"), source.appendingPathExtension("XMP"),
        ] where fm.fileExists(atPath: c.path) {
            return c
        }
        return nil
    }

    /// Exif (CIPA DC-008) rebuilt by exiv2 for the output: Orientation 1, new pixel dimensions, Software; and the
    /// file's XMP merged with its sidecar. What exiv2 could not re-encode (e.g. an oversized MakerNote) is a known loss.
    private static func metadata(
        for source: URL, width: Int, height: Int, options: ConvertOptions, losses: inout [String]
    ) -> (exif: [UInt8]?, xmp: [UInt8]?) {
        var exif: [UInt8]?
        do {
            let blob = try Exiv2.buildHEICExif(
                from: source.path, pixelWidth: width, pixelHeight: height, software: options.software)
            if !blob.bytes.isEmpty { exif = blob.bytes }  // a source without Exif loses nothing
            losses += blob.encodingLosses.map { "Exif: \($0)" }
        } catch {
            losses.append("Exif not carried: \(error)")
        }
        var xmp: [UInt8]?
        do {
            let packet = try Exiv2.buildXMP(
                from: source.path, sidecar: sidecar(for: source, options: options)?.path, pixelWidth: width,
                pixelHeight: height)
            if !packet.isEmpty { xmp = packet }
        } catch {
            losses.append("XMP not carried: \(error)")
        }
        // The XMP that Exif carried in tag 700 (XMLPacket) is written as the XMP item instead: not a loss.
        if xmp != nil { losses.removeAll { $0.contains("Exif.Image.XMLPacket") } }
        return (exif, xmp)
    }

    // MARK: - Assembly

    /// Adds a coded image: one `hvc1` item, or a `grid` over hidden tiles whose `colr` and `pixi` it repeats (as
    /// Apple's grids do; libheif 1.15 takes a grid's colour from the grid item, platform-notes §2).
    private static func addImage(
        _ image: CodedImage, to b: inout HEIFBuilder, hidden: Bool, name: String,
        extra: [(Property, essential: Bool)] = []
    ) -> UInt32 {
        switch image {
        case .single(let item):
            return b.addCodedImage(
                type: "hvc1", properties: item.properties + extra, data: item.data, hidden: hidden, name: name)
        case .grid(let layout, let tiles):
            let gridProps = (tiles.first?.properties ?? []).filter { $0.0.type == "colr" || $0.0.type == "pixi" }
            return b.addGrid(
                columns: layout.columns, rows: layout.rows, outputWidth: UInt32(layout.width),
                outputHeight: UInt32(layout.height), tiles: tiles.map { ($0.properties, $0.data) },
                properties: gridProps.map { ($0.0, false) } + extra, hidden: hidden, name: name
            ).grid
        }
    }

    private static func assemble(
        _ parts: EncodedParts, exif: [UInt8]?, xmp: [UInt8]?, width: Int, height: Int, file: String
    ) throws -> [UInt8] {
        guard let primary = parts.primary else { throw ConvertError(file: file, reason: "no primary image encoded") }
        var b = HEIFBuilder(brands: Brands(major: "heic", compatible: ["mif1", "heic", "miaf"]))
        let p = addImage(primary, to: &b, hidden: false, name: "Image")
        b.setPrimary(p)
        if let gm = parts.gainMap {
            // GainMapWriter writes the map (one coded item or a grid of tiles) with the tmap, altr and Apple view.
            let (first, size, grid): (CodedItem, (Int, Int), GainMapGrid?)
            switch gm.image {
            case .single(let item):
                (first, size, grid) = (item, (item.width, item.height), nil)
            case .grid(let layout, let tiles):
                let g = GainMapGrid(
                    columns: layout.columns, rows: layout.rows, tileWidth: UInt32(layout.tileWidth),
                    tileHeight: UInt32(layout.tileHeight),
                    tiles: tiles.map { GainMapGrid.Tile(codecConfiguration: $0.properties[0].0, data: $0.data) })
                (first, size, grid) = (tiles[0], (layout.width, layout.height), g)
            }
            var nclx = NCLX(colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 6, fullRange: true)
            for (prop, _) in first.properties { if case .colrNCLX(let n) = prop { nclx = n } }
            var coded = CodedGainMapImage(
                codecConfiguration: first.properties[0].0, data: first.data, width: UInt32(size.0),
                height: UInt32(size.1), bitsPerChannel: [8], nclx: nclx)
            coded.grid = grid
            do {
                try GainMapWriter.add(
                    to: &b, baseItemID: p, gainMap: coded, metadata: gm.metadata, alternate: gm.alternate,
                    appleHeadroom: gm.appleHeadroom)
            } catch {
                throw ConvertError(file: file, reason: "gain map could not be written: \(error)")
            }
        }
        if let t = parts.thumbnail {
            let th = b.addCodedImage(
                type: "hvc1", properties: t.properties, data: t.data, hidden: false, name: "Thumbnail")
            b.addReference(type: "thmb", from: th, to: [p])
        }
        if let exif { _ = b.addExif(tiff: exif, describing: [p]) }
        if let xmp { _ = b.addXMP(xmp, describing: [p]) }
        return b.build()
    }
}

// MARK: - Timing

struct Stopwatch {
    private let start = DispatchTime.now().uptimeNanoseconds
    private var last = DispatchTime.now().uptimeNanoseconds
    private(set) var laps: [String: Double] = [:]

    mutating func lap(_ name: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        laps[name, default: 0] += Double(now - last) / 1e9
        last = now
    }

    /// Moves `seconds` from one lap to another (a stage that ran inside another one's wall time).
    mutating func move(_ seconds: Double, from: String, to: String) {
        laps[from, default: 0] -= seconds
        laps[to, default: 0] += seconds
    }

    mutating func total() { laps["total"] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
}

// MARK: - Rendering

/// LibRaw's linear ProPhoto 16-bit → display-referred linear P3/sRGB, SDR tone curve, statistics.
struct Renderer {
    /// Linear ProPhoto (D50) → linear Display P3 (D65), Bradford-adapted.
    static let proPhotoToP3: [Float] = [
        1.632564, -0.379769, -0.252796, -0.153702, 1.166713, -0.013011, 0.010393, -0.062808, 1.052415,
    ]
    /// Linear ProPhoto (D50) → linear sRGB / BT.709 (D65), Bradford-adapted.
    static let proPhotoToSRGB: [Float] = [
        2.034368, -0.727634, -0.306733, -0.228827, 1.231753, -0.002927, -0.008558, -0.153268, 1.161827,
    ]

    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    /// Luminance weights of the output primaries.
    let lum: (Float, Float, Float)
    /// Linear value per LibRaw code (65535 = sensor clip).
    let scale: Float
    let clipStops: Double

    init(meta: RawMetadata, space: OutputColorSpace) {
        self.init(space: space, baselineExposure: meta.baselineExposure)
    }

    init(space: OutputColorSpace, baselineExposure: Double) {
        let a = space == .displayP3 ? Self.proPhotoToP3 : Self.proPhotoToSRGB
        m = (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
        lum = space == .displayP3 ? (0.228975, 0.691739, 0.079287) : (0.212639, 0.715169, 0.072192)
        clipStops = Converter.clipStopsAboveWhite + baselineExposure
        scale = Float(exp2(clipStops) / 65535)
    }

    /// One pixel: linear output RGB (HDR rendition, ≥ 0), its luminance and the SDR scale (SDR = rgb · scale).
    @inline(__always)
    func pixel(_ px: UnsafeBufferPointer<UInt16>, _ i: Int) -> (rgb: (Float, Float, Float), y: Float, scale: Float) {
        pixel(px[3 * i], px[3 * i + 1], px[3 * i + 2])
    }

    /// One pixel from its three 16-bit working-space samples (see `pixel(_:_:)`).
    @inline(__always)
    func pixel(_ r16: UInt16, _ g16: UInt16, _ b16: UInt16) -> (rgb: (Float, Float, Float), y: Float, scale: Float) {
        let r0 = Float(r16) * scale
        let g0 = Float(g16) * scale
        let b0 = Float(b16) * scale
        let r = max(0, m.0 * r0 + m.1 * g0 + m.2 * b0)
        let g = max(0, m.3 * r0 + m.4 * g0 + m.5 * b0)
        let b = max(0, m.6 * r0 + m.7 * g0 + m.8 * b0)
        let y = lum.0 * r + lum.1 * g + lum.2 * b
        return ((r, g, b), y, Self.sdrScale(r, g, b, y))
    }

    /// The SDR roll-off as one factor per pixel (hue kept): luminance above `shoulderStart` is compressed
    /// exponentially towards 1, and no channel may exceed 1.
    @inline(__always)
    static func sdrScale(_ r: Float, _ g: Float, _ b: Float, _ y: Float) -> Float {
        let k = Converter.shoulderStart
        var s: Float = 1
        if y > k {
            let t = k + (1 - k) * (1 - exp(-(y - k) / (1 - k)))
            s = t / y
        }
        // Selects instead of max() and an if (the render's hot loop: they compile to maxss, not to branches that
        // mispredict on every colour edge); s / 1 is s exactly.
        let gb = g > b ? g : b
        let mx = (r > gb ? r : gb) * s
        return s / (mx > 1 ? mx : 1)
    }

    /// The index of linear value `v` (0…1) in a 65536-entry table, rounded to nearest: `v · 65535` plus 1.5 · 2²³
    /// leaves the rounded integer in the low mantissa bits (no checked float-to-integer conversion in the hot loop).
    @inline(__always)
    static func tableIndex(_ v: Float) -> Int {
        Int(((v < 1 ? v : 1) * 65535 + 12_582_912).bitPattern & 0xFFFF)
    }

    /// Measures the captured headroom on a subsample and applies the policy.
    func decide(_ img: any LinearFrame, kind: InputKind, hdr: HDRMode) -> HDRDecision {
        let step = max(1, Int((Double(img.width * img.height) / 250_000).squareRoot()))
        var ys: [Float] = []
        ys.reserveCapacity((img.width / step + 1) * (img.height / step + 1))
        var above = 0
        for y in stride(from: 0, to: img.height, by: step) {
            for x in stride(from: 0, to: img.width, by: step) {
                let v = img.pixel(x: x, y: y)
                let p = pixel(v.0, v.1, v.2)
                ys.append(p.y)
                if p.y > 2 { above += 1 }
            }
        }
        ys.sort()
        let p999 = ys.isEmpty ? 0 : ys[min(ys.count - 1, Int(Double(ys.count) * 0.999))]
        let headroom = max(0, log2(Double(max(p999, 1e-6))))
        let frac = ys.isEmpty ? 0 : Double(above) / Double(ys.count)
        var d = HDRDecision(
            gainMap: false, reason: "", measuredHeadroomStops: headroom, fractionAboveOneStop: frac,
            clipHeadroomStops: clipStops)
        let measured = String(
            format: "headroom %.2f stops, %.3f%% of pixels > 1 stop over SDR white", headroom, frac * 100)
        switch (hdr, kind) {
        case (.off, _):
            d.reason = "HDR off by option: flat SDR (\(measured))"
        case (.auto, .linearDNG):
            d.gainMap = headroom >= Converter.linearDNGMinimumHeadroom
            d.reason =
                d.gainMap
                ? "linear DNG: SDR/HDR pair → gain map (\(measured))"
                : "linear DNG without highlights above SDR white: flat SDR (\(measured))"
        case (.auto, .mosaicRAW):
            d.gainMap = frac >= Converter.mosaicHighlightFraction
            d.reason =
                d.gainMap
                ? "RAW with captured highlights: gain map (\(measured))"
                : "RAW below the highlight threshold (0.1% of pixels > 1 stop): flat SDR, no invented HDR (\(measured))"
        case (.auto, .renderedHEIF):
            d.reason = "already-rendered input: flat SDR"
        }
        return d
    }

    /// sRGB transfer (IEC 61966-2-1), the transfer of both Display P3 and sRGB.
    static func srgbEncode(_ v: Float) -> Float {
        v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}
