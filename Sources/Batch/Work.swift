import Foundation

/// What the converter is asked for; mirrors `readback convert`'s options.
public struct ConversionOptions: Sendable, Equatable {
    /// HDR handling: `auto` carries a gain map when the source has one; `off` writes SDR only.
    public enum HDR: String, Sendable { case auto, off }
    /// Encoder quality 0–100 (`nil`: the converter's default).
    public var quality: Int?
    /// Bit depth of the primary image, 8 or 10 (`nil`: the converter's default).
    public var depth: Int?
    public var hdr: HDR
    /// x265 preset, e.g. "medium" (`nil`: the converter's default).
    public var speed: String?
    /// Chroma subsampling of the primary, "420" or "444" (`nil`: the converter's default).
    public var chroma: String?
    /// Tile side of the primary in pixels, 0 = untiled (`nil`: the converter's default).
    public var tileSize: Int?

    public init(
        quality: Int? = nil, depth: Int? = nil, hdr: HDR = .auto, speed: String? = nil, chroma: String? = nil,
        tileSize: Int? = nil
    ) {
        self.quality = quality
        self.depth = depth
        self.hdr = hdr
        self.speed = speed
        self.chroma = chroma
        self.tileSize = tileSize
    }
}

/// What a conversion reports besides the file it wrote.
public struct ConversionResult: Sendable, Equatable {
    /// Losses the converter knows it made and the policy accepts (e.g. a maker note it cannot carry).
    public var knownLosses: [String]
    /// Other notes worth showing.
    public var notes: [String]
    /// Seconds per converter stage (e.g. decode, render, encode, gainmap, metadata, assemble, write), for `--json`.
    public var stages: [String: Double]

    public init(knownLosses: [String] = [], notes: [String] = [], stages: [String: Double] = [:]) {
        self.knownLosses = knownLosses
        self.notes = notes
        self.stages = stages
    }
}

/// Converts one source to one output file. Implementations write exactly the file at `output` (a temp path in the
/// destination folder chosen by Batch), nothing else, and throw on any failure; Batch does fsync, rename and cleanup.
public protocol ItemConverter: Sendable {
    /// Converts `source` into a new file at `output`.
    /// - Throws: any error; a partly written `output` is removed by Batch.
    func convert(source: URL, to output: URL, options: ConversionOptions) throws -> ConversionResult
}

/// The verdict of reading an output back and auditing it against its source.
public enum VerificationResult: Sendable, Equatable {
    /// Everything carried (known losses aside). `summary` is stored with the outcome.
    case clean(summary: String)
    /// Readable, but something was not carried: a field, the gain map. The original is kept, with these reasons.
    case partial(reasons: [String], summary: String)
    /// The output is unusable (unreadable, wrong image).
    case failed(reason: String)
}

/// Reads an output back and audits it against its source.
public protocol OutputVerifier: Sendable {
    /// Audits the written `output` against `source`.
    /// - Throws: when the audit itself cannot run (treated as a failed verification).
    func verify(source: URL, output: URL) throws -> VerificationResult
}
