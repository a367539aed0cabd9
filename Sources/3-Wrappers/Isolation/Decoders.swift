import AVIFCodec
import ColorScience
import Exiv2Bridge
import Foundation
import HeifCodec
import JPEGCodec
import RawDecoder

/// Every C library call on a file's bytes, behind one seam: LibRaw, libheif (and libde265), exiv2, libjpeg-turbo,
/// libavif and libjxl. A run is handed its decoders (the CLI makes them, tests choose them); nothing switches them
/// behind a caller's back.
///
/// - `WorkerDecoders`: each call is a request to a locked-down worker process (docs/security.md); a crash, hang or
///   exhaustion is a `DecodeFailure.worker` instead of the end of the run. What the CLI's commands use.
/// - `InProcessDecoders`: the libraries called in this process. For tests of the cores and `make bench`'s
///   comparison; a crash in a library ends the process.
///
/// Every method throws one error, `DecodeFailure`: the worker's death (`worker`), the library's own error, whole
/// (`library`: `RawDecodeError`, `HeifError`, `Exiv2Error`, …), or the parent's refusal (`refused`). Results and
/// library errors are the same either way.
public protocol Decoders: Sendable {
    /// LibRaw's decode of a RAW in memory (`LibRawDecoder.decodeInPlace(bytes:name:options:)`).
    func raw(bytes: [UInt8], name: String, options: RawDecodeOptions) throws(DecodeFailure) -> (RawMetadata, RawFrame)

    /// libheif's decode of the primary image. `item`: the primary's id (names the stage a worker died in);
    /// `pixels`: its pixel count from the container (for the default deadline).
    func heifPrimary(_ bytes: [UInt8], format: HeifDecodeFormat, item: UInt32?, pixels: Int?) throws(DecodeFailure)
        -> HeifDecodedImage

    /// libheif's reduced decode of the primary (`HeifDecoder.decodePrimaryReduced(_:minSide:)`).
    func heifPrimaryReduced(_ bytes: [UInt8], minSide: Int, item: UInt32?, pixels: Int?) throws(DecodeFailure)
        -> (image: HeifDecodedImage, size: HeifDecodedSize)

    /// The reduced decode of a grid primary tile by tile (`HeifDecoder.reducedGridOrWhole`): `bytes` are the file's
    /// `fileBytes`, then each tile's NAL units, `tileBytes` long each.
    func heifGridReduced(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry: GridGeometry, minSide: Int, item: UInt32?,
        pixels: Int?
    ) throws(DecodeFailure) -> (image: HeifDecodedImage, size: HeifDecodedSize)

    /// libheif's size-only decode of the primary (`HeifDecoder.decodePrimarySize(_:)`).
    func heifPrimarySize(_ bytes: [UInt8], item: UInt32?, pixels: Int?) throws(DecodeFailure) -> HeifDecodedSize

    /// exiv2's reading of a file in memory (`Exiv2.read(bytes:label:previews:maxPreviewBytes:)`).
    func exiv2(bytes: [UInt8], label: String?, previews: Bool, maxPreviewBytes: Int) throws(DecodeFailure)
        -> Exiv2Document

    /// exiv2's decoding of a bare Exif TIFF blob (`Exiv2.decodeExif`).
    func exiv2Exif(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document

    /// exiv2's decoding of an XMP packet (`Exiv2.decodeXMP`).
    func exiv2XMP(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document

    /// libjpeg-turbo's decode (`JPEGDecoder.decode(_:minSide:)`).
    func jpeg(_ bytes: [UInt8], minSide: Int?) throws(DecodeFailure) -> JPEGImage

    /// libavif's decode of an AVIF's primary (`AVIFDecoder.decode(_:strict:rgb:)`).
    func avif(_ bytes: [UInt8], strict: Bool, rgb: Bool) throws(DecodeFailure) -> AVIFImage

    /// A TIFF whose JPEG XL IFDs (a DNG 1.7 preview) are decoded with libjxl and stored uncompressed
    /// (`JXLDNG.uncompressed(_:every:)`); nil when none is JPEG XL.
    func jxlTIFF(_ bytes: [UInt8]) throws(DecodeFailure) -> [UInt8]?

    /// exiv2's building of an output's Exif and XMP from the source's bytes and its sidecar's
    /// (`Exiv2.buildHEICMetadata`): each builder's result or exiv2's error. Throws when there is no answer at all.
    func buildHEICMetadata(
        bytes: [UInt8], label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (bytes: [UInt8], label: String)?, byteOrder: Exiv2.ByteOrder
    ) throws(DecodeFailure) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>)

    /// The decoders for the work on one file: through workers, all of the file's requests draw on one
    /// `--file-timeout` (`FileBudget`). In process, the same decoders.
    func forFile() -> any Decoders
}

extension Decoders {
    public func heifPrimary(_ bytes: [UInt8], format: HeifDecodeFormat) throws(DecodeFailure) -> HeifDecodedImage {
        try heifPrimary(bytes, format: format, item: nil, pixels: nil)
    }

    public func exiv2(bytes: [UInt8], label: String?, previews: Bool = false) throws(DecodeFailure) -> Exiv2Document {
        try exiv2(bytes: bytes, label: label, previews: previews, maxPreviewBytes: 64 << 20)
    }

    public func jpeg(_ bytes: [UInt8]) throws(DecodeFailure) -> JPEGImage { try jpeg(bytes, minSide: nil) }

    /// exiv2's reading of an XMP sidecar: its bytes read here, in the parent (a worker never opens a user path).
    public func exiv2Sidecar(_ url: URL) throws(DecodeFailure) -> Exiv2Document {
        let bytes = try Sidecars.bytes(url).get()
        return try exiv2(bytes: bytes, label: url.path)
    }
}

/// The libraries called in this process: a crash in one ends the process. Tests of the cores, and `make bench`'s
/// in-process comparison (`READBACK_DECODERS=in-process`).
public struct InProcessDecoders: Decoders {
    public init() {}

    public func raw(bytes: [UInt8], name: String, options: RawDecodeOptions) throws(DecodeFailure)
        -> (RawMetadata, RawFrame)
    { try DecodeFailure.catching { try LibRawDecoder.decodeInPlace(bytes: bytes, name: name, options: options) } }

    public func heifPrimary(_ bytes: [UInt8], format: HeifDecodeFormat, item: UInt32?, pixels: Int?)
        throws(DecodeFailure) -> HeifDecodedImage
    { try DecodeFailure.catching { try HeifDecoder.decodePrimary(bytes, format: format) } }

    public func heifPrimaryReduced(_ bytes: [UInt8], minSide: Int, item: UInt32?, pixels: Int?)
        throws(DecodeFailure) -> (image: HeifDecodedImage, size: HeifDecodedSize)
    { try DecodeFailure.catching { try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide) } }

    public func heifGridReduced(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry: GridGeometry, minSide: Int, item: UInt32?,
        pixels: Int?
    ) throws(DecodeFailure) -> (image: HeifDecodedImage, size: HeifDecodedSize) {
        try DecodeFailure.catching {
            try HeifDecoder.reducedGridOrWhole(
                bytes, fileBytes: fileBytes, tileBytes: tileBytes, geometry: geometry, minSide: minSide)
        }
    }

    public func heifPrimarySize(_ bytes: [UInt8], item: UInt32?, pixels: Int?) throws(DecodeFailure)
        -> HeifDecodedSize
    { try DecodeFailure.catching { try HeifDecoder.decodePrimarySize(bytes) } }

    public func exiv2(bytes: [UInt8], label: String?, previews: Bool, maxPreviewBytes: Int) throws(DecodeFailure)
        -> Exiv2Document
    {
        do {
            return try Exiv2.read(bytes: bytes, label: label, previews: previews, maxPreviewBytes: maxPreviewBytes)
        } catch { throw .library(.exiv2(error)) }
    }

    public func exiv2Exif(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document {
        do { return try Exiv2.decodeExif(bytes) } catch { throw .library(.exiv2(error)) }
    }

    public func exiv2XMP(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document {
        do { return try Exiv2.decodeXMP(bytes) } catch { throw .library(.exiv2(error)) }
    }

    public func jpeg(_ bytes: [UInt8], minSide: Int?) throws(DecodeFailure) -> JPEGImage {
        do { return try JPEGDecoder.decode(bytes, minSide: minSide) } catch { throw .library(.libjpegTurbo(error)) }
    }

    public func avif(_ bytes: [UInt8], strict: Bool, rgb: Bool) throws(DecodeFailure) -> AVIFImage {
        do { return try AVIFDecoder.decode(bytes, strict: strict, rgb: rgb) } catch { throw .library(.libavif(error)) }
    }

    public func jxlTIFF(_ bytes: [UInt8]) throws(DecodeFailure) -> [UInt8]? {
        do { return try JXLDNG.uncompressed(Data(bytes), every: true) } catch { throw .library(.libjxl(error)) }
    }

    public func buildHEICMetadata(
        bytes: [UInt8], label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (bytes: [UInt8], label: String)?, byteOrder: Exiv2.ByteOrder
    ) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>) {
        Exiv2.buildHEICMetadata(
            bytes: bytes, label: label, pixelWidth: pixelWidth, pixelHeight: pixelHeight, software: software,
            sidecar: sidecar, byteOrder: byteOrder)
    }

    public func forFile() -> any Decoders { self }
}

extension Decoders where Self == InProcessDecoders {
    /// The libraries in this process (tests of the cores).
    public static var inProcess: InProcessDecoders { InProcessDecoders() }
}

/// XMP sidecars' bytes, read in the parent: a worker never opens a user path.
public enum Sidecars {
    /// The largest XMP sidecar read (a sidecar is a few kilobytes; anything larger is not one).
    public static let maxBytes = 16 << 20

    /// A sidecar's bytes; refused with the reason when it cannot be read or is larger than `maxBytes`.
    public static func bytes(_ url: URL) -> Result<[UInt8], DecodeFailure> {
        let fail = { (m: String) in Result<[UInt8], DecodeFailure>.failure(.refused(reason: m)) }
        guard let h = FileHandle(forReadingAtPath: url.path) else { return fail("cannot open for reading") }
        defer { try? h.close() }
        guard let data = try? h.read(upToCount: maxBytes + 1) else { return fail("read failed") }
        guard data.count <= maxBytes else {
            return fail("larger than \(maxBytes >> 20) MiB: not a sidecar")
        }
        return .success([UInt8](data))
    }
}
