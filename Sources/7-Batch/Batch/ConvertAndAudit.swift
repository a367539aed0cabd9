import Converter
import Foundation
import Isolation
import RenderIO

/// The production converter and verifier behind `readback convert`: convert with `HEICConverter`, then read the
/// output back and audit it with the `Audit` module. Named for what the pair does; the engine's tests pair it with
/// other `ItemConverter`/`OutputVerifier` implementations.
public enum ConvertAndAudit {
    /// The converter and verifier used by `readback convert`, over the run's `decoders`.
    public static func make(decoders: any Decoders) -> (any ItemConverter, any OutputVerifier) {
        (RAWConverter(decoders: decoders), AuditVerifier(decoders: decoders))
    }
}

/// Converts with the `Converter` module (LibRaw decode, render, HEVC encode, metadata and gain map at encode time)
/// and writes the bytes to the temp path Batch gives, through `FileOps.writeNewFile` (ENOSPC and friends come back
/// as `BatchError.io`, so a full disk stops the batch).
public struct RAWConverter: ItemConverter {
    /// The run's decoders (a file converted from its path gets its own, `forFile()`).
    let decoders: any Decoders

    public init(decoders: any Decoders) { self.decoders = decoders }

    /// Converts and writes; the result's `timings` gain the write, as stage "write".
    public func convert(source: URL, to output: URL, options: ConvertOptions) throws -> ConversionResult {
        try write(HEICConverter.convert(source: source, options: options, decoders: decoders.forFile()), to: output)
    }

    /// Converts the source from its bytes, already read, and writes; also returns the reference render the camera
    /// look decoded.
    public func convert(source: URL, bytes: [UInt8], to output: URL, options: ConvertOptions, decoders: any Decoders)
        throws -> (ConversionResult, ReferenceLookup?)
    {
        let image = try HEICConverter.convert(source: source, bytes: bytes, options: options, decoders: decoders)
        return (try write(image, to: output), image.reference)
    }

    private func write(_ image: ConvertedImage, to output: URL) throws -> ConversionResult {
        let t0 = DispatchTime.now().uptimeNanoseconds
        try FileOps.writeNewFile(image.bytes, to: output.path)
        var result = image.result
        result.timings["write"] = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        return result
    }
}
