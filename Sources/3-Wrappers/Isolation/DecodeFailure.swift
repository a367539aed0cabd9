import AVIFCodec
import Exiv2Bridge
import HeifCodec
import JPEGCodec
import RawDecoder

/// Why a `Decoders` call gave no result, whichever decoder it was and wherever it ran: what every method of the seam
/// throws, so a caller catches one error and switches on what happened.
///
/// - `worker`: the decoder's worker died, ran past its deadline or out of its memory (`WorkerFailure`: crashed,
///   exited, timeout, out of memory, with the library call that was running). The file's `decode.*` verdict
///   (`FindingCode(_:)` of it); never a library's refusal.
/// - `library`: the library read the bytes and refused them: nothing crashed. Its own error, whole.
/// - `refused`: no decoder judged the bytes; the parent refused or could not make the request (below).
public enum DecodeFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// The worker died, hung or ran out of memory on the bytes.
    case worker(WorkerFailure)
    /// The library refused the bytes (LibRaw, libheif, exiv2, libjpeg-turbo, libavif, libjxl).
    case library(Library)
    /// Not decoded, and no library said why: the parent refused what the worker asked for or answered (a grant over
    /// its address-space cap, pixels outside the memory granted, an unreadable message), the worker gave up (no
    /// shared memory granted), the parent would not or could not hand the bytes over (an XMP sidecar over
    /// `Sidecars.maxBytes`, or unreadable), or the request could not be made (no worker started). `reason` is the
    /// message.
    case refused(reason: String)

    /// A library's own error, by library: the typed value its wrapper throws, which is also what a worker sends.
    public enum Library: CustomStringConvertible, Sendable, Equatable, Codable {
        /// LibRaw's refusal (and Readback's checks of its output: a stub, a frame without raw data).
        case libRaw(RawDecodeError)
        /// libheif's (or libde265's, for a grid's tiles).
        case libheif(HeifError)
        case exiv2(Exiv2Error)
        case libjpegTurbo(JPEGError)
        case libavif(AVIFError)
        /// libjxl's, or the JPEG XL DNG rewrite's.
        case libjxl(JXLDNG.Failure)

        /// The library's error as one of the wrappers' types, nil for any other error.
        init?(_ error: any Error) {
            switch error {
            case let e as RawDecodeError: self = .libRaw(e)
            case let e as HeifError: self = .libheif(e)
            case let e as Exiv2Error: self = .exiv2(e)
            case let e as JPEGError: self = .libjpegTurbo(e)
            case let e as AVIFError: self = .libavif(e)
            case let e as JXLDNG.Failure: self = .libjxl(e)
            default: return nil
            }
        }

        /// Which library: "LibRaw", "libheif", "exiv2", "libjpeg-turbo", "libavif", "libjxl".
        public var name: String {
            switch self {
            case .libRaw: "LibRaw"
            case .libheif: "libheif"
            case .exiv2: "exiv2"
            case .libjpegTurbo: "libjpeg-turbo"
            case .libavif: "libavif"
            case .libjxl: "libjxl"
            }
        }

        /// The library's own words, without the operation or the file.
        public var message: String {
            switch self {
            case .libRaw(let e): String(e.description.dropFirst(e.file.count + 2))
            case .libheif(let e): e.message
            case .exiv2(let e): e.message
            case .libjpegTurbo(let e): e.message
            case .libavif(let e): e.message
            case .libjxl(let e): e.description
            }
        }

        /// The wrapper's error's own description (what a caller showed when it caught that type).
        public var description: String {
            switch self {
            case .libRaw(let e): e.description
            case .libheif(let e): e.description
            case .exiv2(let e): e.description
            case .libjpegTurbo(let e): e.description
            case .libavif(let e): e.description
            case .libjxl(let e): e.description
            }
        }
    }

    /// Any error of a decode: a `DecodeFailure` as is, a wrapper's error as its library's, anything else (the
    /// isolation machinery's own, `IsolationError`) refused with its description.
    init(_ error: any Error) {
        if let d = error as? DecodeFailure {
            self = d
        } else if let l = Library(error) {
            self = .library(l)
        } else {
            self = .refused(reason: "\(error)")
        }
    }

    /// `body`'s result; what it throws as a `DecodeFailure` (`init(_:)`).
    static func catching<T>(_ body: () throws -> T) throws(DecodeFailure) -> T {
        do { return try body() } catch { throw DecodeFailure(error) }
    }

    /// The parent refused a worker's answer or request (`IsolationError.protocolError`'s words).
    static func protocolError(_ what: String) -> DecodeFailure {
        .refused(reason: IsolationError.protocolError(what).description)
    }

    /// The worker's death, hang or exhaustion; nil for a library's refusal or the parent's.
    public var workerFailure: WorkerFailure? {
        if case .worker(let f) = self { return f }
        return nil
    }

    /// The failure in one line: the worker's failure's, the library's error's or the reason, unchanged.
    public var description: String {
        switch self {
        case .worker(let f): f.description
        case .library(let l): l.description
        case .refused(let reason): reason
        }
    }

    /// The library's own words (`Library.message`); for a worker's failure or a refusal, `description`.
    public var message: String {
        if case .library(let l) = self { return l.message }
        return description
    }
}
