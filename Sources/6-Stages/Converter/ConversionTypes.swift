import ColorScience
import Fidelity
import Findings
import Foundation
import GainMap
import HeifCodec
import Isolation
import RenderIO

// The converter's public vocabulary: what it is asked (`ConvertOptions`), what it answers (`ConvertedImage`,
// `ConversionResult`, `HDRDecision`, `GainMapSummary`) and how it fails (`ConvertError`).

/// Readback's version: written into Exif Software and printed by `readback --version`.
public let readbackVersion = "0.1.0"

/// Whether to produce HDR gain maps.
public enum HDRMode: String, Sendable, Codable, CaseIterable {
    /// Gain map where the policy says the capture holds highlights (see `HDRDecision`).
    case auto
    /// Never: flat SDR output.
    case off
}

/// Conversion options. Defaults: the visually-lossless target (quality 55, x265 `aq-strength` 1.5, 8-bit 4:2:0
/// render) at the balanced effort (`EncodingEffort.balanced`: preset ultrafast, coded at 10 bits, x265 options that
/// buy size or time at that fidelity, such as `rdoq-level` 2 and 16×16 coding trees), Display P3, HDR auto.
///
/// Why the target: the quality ladder's "visually lossless" pick (docs/quality-ladder.md, data in
/// docs/quality-ladder.tsv; `EncodingTarget.visuallyLossless`, checked against the data by FidelityTests), judged at
/// viewing size: the smallest and fastest (preset, x265 options, quality) whose decoded luma, 2×2-downscaled, loses at
/// most 0.01 of mean SSIM and 0.03 in every 64×64 block against the clean scene (a real file: its own render) on every
/// ladder image. Why the effort: at equal fidelity it codes the same frames in 0.85–0.96× the bits of the `fast` level
/// (the earlier default) for about 1.6× its encode time (docs/quality-ladder.md "Effort").
public struct ConvertOptions: Sendable, Equatable, Codable {
    /// libheif quality 0–100: for a RAW, the quality of a clean frame when `noiseAdaptive` is on.
    public var quality: Int = 55
    /// Lower the quality on visibly noisy frames by `NoiseLevel.steps` (the visually-lossless target's rule: at
    /// viewing size, grain costs bits a viewer does not see). Off with an explicit `--quality` or another target.
    public var noiseAdaptive: Bool = true
    /// How hard the encoder works for size at the target's fidelity; `EncodingEffort.apply` sets `speed`,
    /// `bitDepth` and adds its x265 options.
    public var effort: EncodingEffort = .balanced
    /// 8 or 10: the coded bit depth of the primary (the balanced effort's).
    public var bitDepth: Int = EncodingEffort.balanced.bitDepth
    /// "420" or "444".
    public var chroma: HeifChroma = .yuv420
    public var hdr: HDRMode = .auto
    /// Tones of a RAW: the camera's own rendering (its embedded preview) or the neutral render (`LookMode`).
    public var look: LookMode = .camera
    /// x265 preset (ultrafast … placebo): the balanced effort's.
    public var speed: String = EncodingEffort.balanced.preset
    /// x265 options of the primary, passed through libheif as `x265:NAME` (HeifEncodeSettings.x265): the default
    /// target's (`EncodingTarget.x265Options`) with the balanced effort's over them.
    public var x265Options: [String: String] = EncodingEffort.balanced.x265Options(
        over: EncodingTarget.visuallyLossless.x265Options)
    /// x265 options over `x265Options` for a primary coded as one picture: the balanced effort's
    /// (`EncodingEffort.onePictureX265Options`).
    public var onePictureX265Options: [String: String] = EncodingEffort.balanced.onePictureX265Options
    /// Added to every frame's quality (`frameQuality`): the level's `EncodingEffort.qualityStep` (balanced's 0).
    public var qualityStep = EncodingEffort.balanced.qualityStep
    public var colorSpace: ColorSpace.Output = .displayP3
    /// Write an ICC profile (`colr` prof) for the output space next to the `nclx`.
    public var icc: Bool = true
    /// Add a small thumbnail item (`thmb`).
    public var thumbnail: Bool = true
    /// Quality of the gain-map stream.
    public var gainMapQuality: Int = 90
    /// x265 preset of the gain-map stream: the map is smooth, so the fastest preset costs no measurable fidelity and
    /// is about 3× faster (docs/tiling.md).
    public var gainMapSpeed: String = "ultrafast"
    /// Exif Software value.
    public var software: String = "Readback \(readbackVersion)"
    /// XMP sidecar; nil = `<source>.xmp` or `<source minus extension>.xmp` when one exists.
    public var sidecar: URL?
    /// Tile side in pixels for the primary and a gain map larger than one tile: each tile is an independent hidden
    /// `hvc1` item of a `grid` (ISO/IEC 23008-12 §6.6.2.3), coded in parallel. 0 = one untiled image. Must be 0 or a
    /// multiple of 64 (x265's CTU) in 64…4096. An image that fits in one tile is always coded untiled.
    ///
    /// Why 512 (Apple's tile size): see `HEICConverter.defaultTileSize`.
    /// Setting it (`--tile-size`) also turns `untiledWithinLevel41` off: a tile size chosen is the tile size used.
    public var tileSize: Int = HEICConverter.defaultTileSize {
        didSet { untiledWithinLevel41 = false }
    }
    /// Codes a RAW's primary that is within HEVC level 4.1 (at most 2,228,224 pixels, no side over 4222) as one
    /// untiled picture while `tileSize` is left at its default. Such a picture takes the level's 16×16 coding trees
    /// untiled too, x265 spreads it over both cores, and its memory is small, so tiles only add padding and per-tile
    /// work: on the real DNGs, 1–2 % fewer bytes and about a quarter less encode CPU at ~2 MP; on the 1 MP Canon 6D
    /// 1.3 % fewer bytes and 7 % less wall time (docs/tiling.md "Small frames").
    public var untiledWithinLevel41 = true
    /// Encoder threads coding tiles at once; 0 = one per core.
    public var encodeWorkers: Int = 0

    /// The tile size a RAW's primary of `width` × `height` is coded with: 0 (untiled) for a picture within HEVC level
    /// 4.1 while `untiledWithinLevel41`, else `tileSize`.
    public func primaryTileSize(width: Int, height: Int) -> Int {
        untiledWithinLevel41 && HeifEncodeSettings.withinLevel41(width: width, height: height) ? 0 : tileSize
    }

    public init() {}

    /// The x265 options of the primary: `x265Options`, and `onePictureX265Options` over them when it is coded as one
    /// picture rather than as a grid's tiles.
    public func primaryX265Options(onePicture: Bool) -> [String: String] {
        onePicture ? x265Options.merging(onePictureX265Options) { _, one in one } : x265Options
    }

    /// The quality of a frame of noise `sigma` (nil: not measured): `quality`, or with `noiseAdaptive` the noise
    /// step's (`NoiseLevel.quality`), its scaling-list quality when the x265 options code lists (any value but x265's
    /// "off": HEVC's default lists, or `default-4x4`).
    /// The level's `qualityStep` is added to either (at most 100).
    public func frameQuality(sigma: Double?) -> Int {
        guard noiseAdaptive else { return min(100, quality + qualityStep) }
        let lists = x265Options["scaling-list"].map { $0 != "off" } ?? false
        return min(100, NoiseLevel.quality(base: quality, sigma: sigma, scalingLists: lists) + qualityStep)
    }

    /// Checks ranges; returns a one-line problem or nil.
    public func validationProblem() -> String? {
        if !(0...100).contains(quality) { return "quality must be 0…100, got \(quality)" }
        if bitDepth != 8 && bitDepth != 10 { return "depth must be 8 or 10, got \(bitDepth)" }
        if chroma == .monochrome { return "chroma must be 420 or 444" }
        if !HeifEncodeSettings.presets.contains(gainMapSpeed) {
            return "gain-map speed '\(gainMapSpeed)' is not an x265 preset"
        }
        if let bad = x265Options.keys.first(where: { k in
            k.isEmpty || !k.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }) {
            return "x265 option name '\(bad)' is not letters, digits and '-'"
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

/// What one conversion did: the per-file result the batch engine reports.
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
    /// Seconds per stage: decode, render, encode, gainmap, metadata, assemble, total (Batch adds write).
    public var timings: [String: Double]
    public var inputBytes: Int
    public var outputBytes: Int
    public var options: ConvertOptions
    /// Tiles of the primary `grid` (0 = one untiled image).
    public var primaryTiles: Int = 0
    /// Where the XMP sidecar's properties went, one line per destination (empty without a sidecar).
    public var sidecar: [String] = []
    /// The frame's visible noise (`NoiseLevel`, 8-bit code values) when the quality was chosen by it.
    public var noiseSigma: Double?
    /// The quality the primary was encoded at (`options.quality`, or lower on a noisy frame).
    public var qualityUsed: Int?
    /// The camera look step (RAW inputs): applied or not, and why.
    public var look: LookSummary?
    /// Share of the RAW's samples at or above its white level (clipped highlights), to 4 decimals; nil for non-RAW.
    public var clippedFraction: Double?
    /// The same share per CFA channel ("R", "G", "B", "G2"), to 4 decimals; nil for non-RAW.
    public var clippedByChannel: [String: Double]?

    /// output ÷ input bytes.
    public var sizeRatio: Double { inputBytes > 0 ? Double(outputBytes) / Double(inputBytes) : 0 }
}

/// The output bytes and the result.
public struct ConvertedImage: Sendable {
    public var bytes: [UInt8]
    public var result: ConversionResult
    /// The source's reference render the camera look decoded (its embedded preview), or why there is none; nil when
    /// the look did not look for one. The read-back's render check takes it as is instead of decoding it again.
    public var reference: ReferenceLookup? = nil
}

/// Why a file could not be converted. `description` is one line naming the file and the reason.
public struct ConvertError: Error, CustomStringConvertible, Sendable, Equatable {
    public var file: String
    public var reason: String
    /// The finding code when a decoder's worker died on the file (`decode.crashed`, `decode.timeout`,
    /// `decode.out-of-memory`): such a file is not tried again unless asked.
    public var code: FindingCode?

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }

    /// A decode of the file that failed: a decoder's worker that died, ran out of time or of memory on it is its
    /// `decode.*` code; a library's refusal, or the parent's, is `reason` (by default the failure's own words).
    public init(file: String, failure: DecodeFailure, reason: String? = nil) {
        guard case .worker(let f) = failure else {
            self.init(file: file, reason: reason ?? failure.description)
            return
        }
        let code = FindingCode(f)
        self.init(file: file, reason: "\(code.code): \(f.description)")
        self.code = code
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
