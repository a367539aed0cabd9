import Exiv2Bridge
import Foundation
import HeifCodec
import RawDecoder

/// The messages between the parent and a worker, one JSON object per SOCK_SEQPACKET datagram: the parent sends
/// `WorkerRequest`s, the worker `WorkerReply`s, each case with exactly its fields. Bytes and pixels never travel in
/// them: the file's bytes come with a request as a sealed memfd, the pixels go back in a memfd the parent creates at
/// the size the worker asks for (a worker may not grow files: RLIMIT_FSIZE 0).
///
///     parent → worker   decode(op) + memfd(file bytes)
///     worker → parent   stage … (0 or more: the library call about to run, the pixel count once known)
///     worker → parent   need(bytes, kept)      (when there are pixels; kept: the size of the grant it keeps)
///     parent → worker   grant(keep) + memfd(bytes)  (keep: the worker keeps this one mapped for later requests)
///                     | reuse                  (no memfd: write into the kept grant, which the parent no longer reads)
///     worker → parent   done(answer) | failed(library's error) | gaveUp(reason)
///
/// A worker that dies sends, from its fatal-signal handler, a 16-byte `rb_death_note` instead (not JSON). A
/// datagram is at most 64 KiB towards a worker and 1 MiB towards the parent (a longer one is cut, and refused as
/// unreadable); a message that does not decode as its direction's enum, or comes out of turn, retires the worker.
enum WorkerRequest: Codable, Sendable {
    /// Decode: `op` on the bytes of the memfd that comes with it; `cpuSeconds`: its CPU-time budget (RLIMIT_CPU).
    case decode(Operation, cpuSeconds: Int)
    /// The shared memory the worker's `need` asked for: a new memfd comes with it; `keep`: the worker keeps it
    /// mapped after the request, in place of its kept grant.
    case grant(keep: Bool)
    /// No memfd: write into the kept grant, which the parent no longer reads.
    case reuse
}

/// A worker's messages to the parent.
enum WorkerReply: Codable, Sendable {
    /// The library call about to run, and the image's pixel count once the decoder knows it (for the deadline).
    case stage(String, pixels: Int?)
    /// Shared memory of `bytes` wanted; `kept`: the size of the grant the worker keeps mapped (nil: none).
    case need(bytes: Int, kept: Int?)
    /// The request's answer (its pixels, if any, in the memory granted).
    case done(WorkerAnswer)
    /// The library refused the file: its error, whole.
    case failed(DecodeFailure.Library)
    /// No answer, and no library's reason (no shared memory granted, an answer that could not be encoded).
    case gaveUp(reason: String)
}

/// What a request's answer holds besides its pixels, one case per kind of request.
enum WorkerAnswer: Codable, Sendable {
    /// LibRaw's metadata and the frame's shape (`raw`).
    case raw(RawMetadata, FrameInfo)
    /// A libheif decode (`heifPrimary`, `heifReduced`, `heifGridReduced`, `heifSize`).
    case heif(HeifInfo)
    /// exiv2's document (`exiv2`, `exiv2Blob`).
    case exiv2(Exiv2Info)
    /// `exiv2Build`'s answer: the size of its compact form (`BuiltMetadata`) at the start of the granted memory.
    case built(bytes: Int)
    /// A decoded JPEG's size; its RGB samples are in the granted memory (`jpeg`).
    case jpeg(width: Int, height: Int)
    /// libavif's image (`avif`).
    case avif(AVIFInfo)
    /// `jxlTIFF`'s answer: the size of the rewritten TIFF at the start of the granted memory (0: nothing was JPEG XL).
    case tiff(bytes: Int)
    /// `forbidden`'s answer when the sandbox did not stop the worker.
    case notStopped
}

/// What a worker is asked to do.
enum Operation: Codable, Sendable, Equatable {
    /// LibRaw open + unpack + process (`LibRawDecoder.decodeInPlace`) of the file `name`, working space by raw value.
    case raw(name: String, workingSpace: Int32, halfSize: Bool, applyOrientation: Bool)
    /// libheif's primary image: `format` one of rgb8, rgbNative, mono, firstPlane; `item` names it in stages.
    case heifPrimary(format: String, item: UInt32?)
    /// libheif's primary reduced on the way out (`decodePrimaryReduced`).
    case heifReduced(minSide: Int, item: UInt32?)
    /// A grid primary reduced tile by tile (`decodeGridReduced`; `decodePrimaryReduced` of the file when it does not
    /// apply): the request's bytes are the file's `fileBytes`, then each tile's NAL units, `tileBytes` each.
    case heifGridReduced(minSide: Int, item: UInt32?, geometry: GridGeometry, fileBytes: Int, tileBytes: [Int])
    /// libheif's primary decoded for its size and first-plane spread only (`decodePrimarySize`).
    case heifSize(item: UInt32?)
    /// exiv2's reading of a file in memory (`Exiv2.read(bytes:label:previews:maxPreviewBytes:)`).
    case exiv2(label: String?, previews: Bool, maxPreviewBytes: Int)
    /// exiv2's decoding of a bare Exif TIFF blob (`Exiv2.decodeExif`) or XMP packet (`Exiv2.decodeXMP`).
    case exiv2Blob(xmp: Bool)
    /// exiv2's building of the output's Exif and XMP (`Exiv2.buildHEICMetadata`): the request's bytes are the
    /// source's, then the sidecar's last `sidecarBytes` (nil: no sidecar).
    case exiv2Build(
        label: String, width: Int, height: Int, software: String?, byteOrder: Int32, sidecarLabel: String?,
        sidecarBytes: Int?)
    /// libjpeg-turbo's decode to 8-bit RGB (`JPEGDecoder.decode(_:minSide:)`).
    case jpeg(minSide: Int?)
    /// libavif's decode of an AVIF's primary (`AVIFDecoder.decode(_:strict:rgb:)`): 8-bit RGB in the granted memory
    /// when `rgb`, else the size alone.
    case avif(strict: Bool, rgb: Bool)
    /// A TIFF (a DNG preview) whose JPEG XL IFDs libjxl decodes and stores uncompressed (`JXLDNG.uncompressed`).
    case jxlTIFF
    /// Test only: the worker does what the sandbox forbids (`socket`, `write`) to prove it is stopped.
    case forbidden(what: String)
}

/// A RAW frame's upright shape, and where its pixels are in the granted memory: packed upright RGB rows from offset
/// 0, or LibRaw's own 4-sample image (`libRawImage`).
struct FrameInfo: Codable, Sendable {
    var width: Int
    var height: Int
    var workingSpace: Int32
    /// Set when the granted memory holds LibRaw's image from offset 0 (the frame arena), read as this says.
    var libRawImage: RawFrame.Layout?
}

/// A decoded HEIF image without its samples (they are in the granted memfd), or a size-only decode.
struct HeifInfo: Codable, Sendable {
    var width: Int
    var height: Int
    var bitDepth: Int
    var channels: Int
    var codedBitDepth: Int
    var nclx: NCLXInfo?
    /// The ICC profile's size; its bytes follow the samples in the granted memory.
    var iccBytes: Int?
    /// For reduced and size-only decodes: the decoded full size.
    var fullWidth: Int?
    var fullHeight: Int?
    var firstPlaneSpread: Double?
    var samples: Int
}

struct NCLXInfo: Codable, Sendable {
    var primaries: UInt16
    var transfer: UInt16
    var matrix: UInt16
    var fullRange: Bool
}

/// exiv2's document in its compact form (`Exiv2Wire`; previews without their bytes) at the start of the granted
/// memory, then each preview's bytes in order.
struct Exiv2Info: Codable, Sendable {
    var documentBytes: Int
    var previewBytes: [Int]
}

/// A decoded AVIF without its samples (8-bit RGB in the granted memory when asked for).
struct AVIFInfo: Codable, Sendable {
    var width: Int
    var height: Int
    var depth: Int
    var colourPrimaries: UInt16
    var transferCharacteristics: UInt16
    var matrixCoefficients: UInt16
    var fullRange: Bool
    var icc: [UInt8]?
    var samples: Int
}

/// `exiv2Build`'s answer, in its compact form (`Exiv2Wire`) in granted memory: each builder's result or error.
struct BuiltMetadata: Sendable {
    var exif: ExifBlob?
    var exifError: Exiv2Error?
    var xmp: [UInt8]?
    var xmpError: Exiv2Error?
}

/// The channel's framing: one JSON message per datagram, bounded in each direction.
enum WorkerWire {
    /// The largest request a worker reads (a longer one would arrive cut; the parent refuses to send it).
    static let requestBytes = 1 << 16
    /// The largest reply the parent reads (a longer one arrives cut, and is refused as unreadable).
    static let replyBytes = 1 << 20

    static func encode(_ m: some Encodable) throws -> Data { try JSONEncoder().encode(m) }

    /// The message in `bytes`, or the reason it is not one.
    static func decode<M: Decodable>(_: M.Type, _ bytes: ArraySlice<UInt8>) -> Result<M, any Error> {
        Result { try JSONDecoder().decode(M.self, from: Data(bytes)) }
    }
}
