import Exiv2Bridge
import FileContent
import Foundation
import HEIF
import Isolation

/// One input file read into memory once and parsed once, handed on to every reader of it: the metadata reader, the
/// container and gain-map checks, the decoders, the reference render and the file-facts checks, so that nothing
/// opens it again.
///
/// A HEIF-family file (`Brands.isHEIF`) is parsed by the container layer; any other file (RAW, JPEG, TIFF,
/// Canon CR3) by exiv2 from the bytes in memory, with its embedded previews when they are asked for.
public struct InputFile: Sendable {
    public let url: URL
    /// The whole file; nil when it could not be read (`readError` says why).
    public let bytes: [UInt8]?
    /// Why the file could not be read, in the metadata reader's words ("no such file", "cannot open for reading").
    public let readError: MetadataReadError?
    /// The container, when the file is of the HEIF family.
    public let heif: HEIFFile?
    /// exiv2's reading of a file of another family (nil for a HEIF file and an unreadable one).
    public let exiv2: Result<Exiv2Document, DecodeFailure>?
    /// The decoders this file's bytes go through (its own: through workers, one `--file-timeout` for all of them).
    public let decoders: any Decoders

    public var path: String { url.path }

    /// Reads the file (one read through `FileContent`) and parses it.
    /// - Parameters:
    ///   - url: the file.
    ///   - previews: have exiv2 list the embedded previews too (for the reference render).
    ///   - decoders: the decoders of the work on this file.
    public init(reading url: URL, previews: Bool = false, decoders: any Decoders) {
        do {
            let bytes = try FileContent.read(path: url.path)
            self.init(url: url, bytes: bytes, previews: previews, decoders: decoders)
        } catch {
            let reason: String
            switch error.kind {
            case .noSuchFile: reason = "no such file"
            case .isDirectory: reason = "is a directory"
            case .cannotOpen: reason = "cannot open for reading"
            case .readFailed: reason = "read failed: \(String(cString: strerror(error.errno)))"
            }
            self.init(url: url, unreadable: MetadataReadError(path: url.path, reason: reason), decoders: decoders)
        }
    }

    private init(url: URL, unreadable: MetadataReadError, decoders: any Decoders) {
        self.url = url
        self.decoders = decoders
        bytes = nil
        readError = unreadable
        heif = nil
        exiv2 = nil
    }

    /// Parses bytes already read.
    /// - Parameters:
    ///   - url: the file the bytes are (named in messages).
    ///   - bytes: the whole file.
    ///   - heif: its container when already parsed (used as is for a HEIF-family file).
    ///   - previews: have exiv2 list the embedded previews too.
    ///   - decoders: the decoders of the work on this file.
    public init(url: URL, bytes: [UInt8], heif: HEIFFile? = nil, previews: Bool = false, decoders: any Decoders) {
        self.url = url
        self.decoders = decoders
        self.bytes = bytes
        readError = nil
        if bytes.isEmpty {
            self.heif = nil
            exiv2 = nil
        } else if Brands.isHEIF(bytes) {
            self.heif = heif ?? HEIFFile(bytes: bytes)
            exiv2 = nil
        } else {
            self.heif = nil
            exiv2 = Result { () throws(DecodeFailure) in
                try decoders.exiv2(bytes: bytes, label: url.path, previews: previews)
            }
        }
    }
}
