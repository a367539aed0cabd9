import Converter
import Foundation
import Isolation
import RenderIO

/// Converts one source to one output file. Implementations write exactly the file at `output` (a temp path in the
/// destination folder chosen by Batch), nothing else, and throw on any failure; Batch does fsync, rename and cleanup.
///
/// Batch speaks the converter's own vocabulary: `ConvertOptions` in, `ConversionResult` out. Of the result it uses the
/// known losses and the seconds per stage (`timings`, minus "total"), for the outcome and `--json`.
public protocol ItemConverter: Sendable {
    /// Converts `source` into a new file at `output`.
    /// - Throws: any error; a partly written `output` is removed by Batch.
    func convert(source: URL, to output: URL, options: ConvertOptions) throws -> ConversionResult

    /// Converts a source Batch already read (`bytes`, the whole file: each source is read once per conversion), and
    /// returns the source's reference render if the conversion decoded it (the read-back's render check reuses it).
    /// `decoders` are the file's (its read-back audit gets the same ones: one `--file-timeout` for the file).
    /// The default reads nothing itself: it calls `convert(source:to:options:)` and returns no reference.
    func convert(source: URL, bytes: [UInt8], to output: URL, options: ConvertOptions, decoders: any Decoders) throws
        -> (ConversionResult, ReferenceLookup?)
}

extension ItemConverter {
    public func convert(source: URL, bytes: [UInt8], to output: URL, options: ConvertOptions, decoders: any Decoders)
        throws -> (ConversionResult, ReferenceLookup?)
    {
        (try convert(source: source, to: output, options: options), nil)
    }
}

/// What reading an output back and auditing it against its source found: the item's verdict (`verdict`, one of
/// `ItemOutcome.Verdict`'s clean, kept or failed) with what the store and the outcome carry for it.
public enum VerificationResult: Sendable, Equatable {
    /// Everything carried (known losses aside). `summary` is stored with the outcome.
    case clean(summary: String)
    /// Readable, but something was not carried: a field, the gain map. The original is kept, with these reasons.
    case kept(reasons: [String], summary: String)
    /// The output is unusable (unreadable, wrong image).
    case failed(reason: String)

    /// The item's verdict.
    public var verdict: ItemOutcome.Verdict {
        switch self {
        case .clean: return .clean
        case .kept: return .kept
        case .failed: return .failed
        }
    }
}

/// Reads an output back and audits it against its source.
public protocol OutputVerifier: Sendable {
    /// Audits the written `output` against `source`.
    /// - Throws: when the audit itself cannot run (treated as a failed verification).
    func verify(source: URL, output: URL) throws -> VerificationResult

    /// Audits the written `output` against a source Batch already read (`sourceBytes`), with the reference render
    /// the conversion decoded (nil: none was), through the file's `decoders`. The default calls
    /// `verify(source:output:)`.
    func verify(
        source: URL, sourceBytes: [UInt8], reference: ReferenceLookup?, output: URL, decoders: any Decoders
    ) throws -> VerificationResult
}

extension OutputVerifier {
    public func verify(
        source: URL, sourceBytes: [UInt8], reference: ReferenceLookup?, output: URL, decoders: any Decoders
    ) throws -> VerificationResult {
        try verify(source: source, output: output)
    }
}
