import Findings
import Foundation
import HEIF
import HeifCodec
import Isolation
import MetadataIO
import RenderCheck
import RenderIO
import ReportModel
import ReportWriting

extension Checks {
    /// The primary's RGB pixels, as decoded, and the Exif-style orientation still to apply to them to show them as a
    /// HEIF reader does: 1 when libheif decoded the whole file (it applied irot/imir), the primary's own transforms
    /// when it was decoded re-wrapped alone (a standalone file carries none).
    struct OutputPixels {
        var image: HeifDecodedImage
        var orientation = 1
    }

    /// What the primary's decode makes: its decode rows and findings, its thumbnail, and its pixels when it made
    /// them (thumbnails, or a reference to compare with).
    struct PrimaryOutcome {
        var rows: [DecodeResult] = []
        var findings: [Finding] = []
        var thumbnail: Data? = nil
        var pixels: OutputPixels? = nil
    }

    /// Starts the primary's decode beside the other checks (``PrimaryDecode``). With a source, the same thread first
    /// finds the source's own rendering for the render check: `reference` when the caller already found it, else from
    /// the source already read and parsed (a RAW's previews came with exiv2's one reading of it).
    /// - Parameters:
    ///   - file: the output's container; `output` its bytes.
    ///   - source: the source as read, nil in a standalone audit (no reference is looked for).
    static func startPrimaryDecode(
        _ file: HEIFFile, output: [UInt8], thumbnails: Bool, source: InputFile?, reference: ReferenceLookup?,
        decoders: any Decoders
    ) -> PrimaryDecode {
        var lookUp: (@Sendable () -> ReferenceLookup)? = nil
        if source != nil, let found = reference {
            lookUp = { found }
        } else if let src = source {
            lookUp = {
                guard let bytes = src.bytes else { return .none(reason: "the source cannot be read") }
                return ReferenceExtractor.reference(
                    bytes: bytes, path: src.path, heif: src.heif, exiv2: src.exiv2, decoders: src.decoders)
            }
        }
        return PrimaryDecode(
            output, thumbnails: thumbnails, item: file.primaryItemID,
            pixels: file.primaryItemID.flatMap(file.imageSize(of:)).map { Int($0.width) * Int($0.height) },
            avifOrientation: isAVIF(file) ? file.primaryItemID.map { file.orientation(of: $0).exif } ?? 1 : nil,
            file: file, lookUp: lookUp, decoders: decoders)
    }

    /// The primary image's decode with libheif (an AVIF's with libavif first); a failure is `decode.primary-failed`
    /// (the gain maps' decodes are the gain-map check's). Files libheif 1.15 refuses as a whole (iOS 18 layouts) are
    /// retried on the item re-wrapped alone (`HEIFFile.standaloneFile(for:)`; docs/platform.md, libheif reading).
    /// - Parameters:
    ///   - primary: the decode ``startPrimaryDecode(_:output:thumbnails:source:reference:decoders:)`` started.
    ///   - file: the output's container.
    static func decode(_ primary: PrimaryDecode, file: HEIFFile, thumbnails thumbs: Bool, decoders: any Decoders)
        -> PrimaryOutcome
    {
        var out = PrimaryOutcome()
        let decoded = primary.wait()
        // Whether the render check will compare the pixels with a reference (known once the decode's thread is done).
        var compared = false
        if case .found? = primary.reference { compared = true }
        let libheif = "libheif \(Heif.version)"
        do {
            switch try decoded.get() {
            case .libavif(let p):
                out.rows.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: p.size.width, height: p.size.height,
                        bitDepth: p.size.codedBitDepth, message: p.note, decoder: LibavifPrimary.decoder))
                if let img = p.image {
                    if thumbs { out.thumbnail = thumbnail(img) }
                    out.pixels = OutputPixels(image: img)
                    if let blank = flatDecode(file, spread: spread(img), compared: compared) {
                        out.findings.append(blank)
                    }
                }
            case .image(let img):
                out.rows.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: img.width, height: img.height,
                        bitDepth: img.codedBitDepth, decoder: libheif))
                out.thumbnail = thumbnail(img)
                out.pixels = OutputPixels(image: img)
                if let blank = flatDecode(file, spread: spread(img), compared: compared) { out.findings.append(blank) }
            case .reduced(let img, let d):
                out.rows.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: d.width, height: d.height, bitDepth: d.codedBitDepth,
                        decoder: libheif))
                out.pixels = OutputPixels(image: img)
            case .size(let d):
                out.rows.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: d.width, height: d.height, bitDepth: d.codedBitDepth,
                        decoder: libheif))
                if let blank = flatDecode(file, spread: d.firstPlaneSpread, compared: compared) {
                    out.findings.append(blank)
                }
            }
            libavifRefused(primary, file: file, &out)
        } catch DecodeFailure.worker(let failure) {
            // The decoder's worker died, hung or ran out of memory: not tried again on these bytes (re-wrapped, the
            // same stream would do the same); the run goes on.
            out.rows.append(
                DecodeResult(target: .primary, status: .failed, message: failure.description, decoder: libheif))
            out.findings.add(
                FindingCode(failure), "the primary image does not decode: \(failure.description)",
                Evidence(actual: failure.stage, item: file.primaryItemID))
        } catch {
            decodeFailed(error, file: file, primary: primary, thumbnails: thumbs, decoders: decoders, &out)
        }
        return out
    }

    /// The primary did not decode in libheif: decoded re-wrapped alone when libheif refuses the file as a whole, a
    /// feature libheif cannot decode named, or `decode.primary-failed`.
    private static func decodeFailed(
        _ error: Error, file: HEIFFile, primary: PrimaryDecode, thumbnails thumbs: Bool, decoders: any Decoders,
        _ out: inout PrimaryOutcome
    ) {
        let libheif = "libheif \(Heif.version)"
        let whole = "\(error)"
        if let p = file.primaryItemID, let single = Rewrap.standalone(file, p),
            let img = try? decoders.heifPrimary(single, format: .rgb8)
        {
            out.rows.append(
                DecodeResult(
                    target: .primary, status: .ok, width: img.width, height: img.height,
                    bitDepth: img.codedBitDepth,
                    message: "decoded re-wrapped; libheif refused the whole file: \(whole)", decoder: libheif))
            out.findings.add(
                .decodePrimaryRewrapped,
                "libheif \(Heif.version) refuses the file as a whole; the primary decodes on its own",
                Evidence(actual: whole, item: p))
            if thumbs { out.thumbnail = thumbnail(img) }
            out.pixels = OutputPixels(image: img, orientation: file.orientation(of: p).exif)
            libavifRefused(primary, file: file, &out)
        } else if let feature = unsupportedPrimaryFeature(file) {
            // libheif's text would blame the file ("Item has no compressed data"): name what it cannot do.
            out.rows.append(DecodeResult(target: .primary, status: .skipped, message: feature))
            out.findings.add(
                .decodeUnsupported,
                "the primary is \(feature), which libheif \(Heif.version) cannot decode: not judged by its pixels",
                Evidence(actual: feature, item: file.primaryItemID))
        } else {
            out.rows.append(DecodeResult(target: .primary, status: .failed, message: whole, decoder: libheif))
            let avif = primary.libavifFailure.map { "; \(LibavifPrimary.decoder) does not decode it either: \($0)" }
            if let why = primary.libavifFailure {
                out.rows.append(
                    DecodeResult(
                        target: .primary, status: .failed, message: why, decoder: LibavifPrimary.decoder))
            }
            out.findings.add(
                .decodePrimaryFailed, "the primary image does not decode: \(whole)" + (avif ?? ""),
                Evidence(item: file.primaryItemID))
        }
    }

    /// The primary's libheif decode, started on its own thread when the checks begin so it overlaps the container,
    /// metadata and gain-map checks (its result is only read by `decode(_:file:thumbnails:decoders:)`, last). The same
    /// thread first looks up the source's reference render (`lookUp`), since whether RGB pixels are needed depends on
    /// it. A failure is a `DecodeFailure`, as from any decoder.
    // unchecked: its thread writes the result before signalling `done`; it is read only after `wait()`.
    final class PrimaryDecode: @unchecked Sendable {
        enum Decoded {
            /// An AVIF's primary decoded by libavif (pixels when they were needed).
            case libavif(LibavifPrimary)
            /// RGB pixels, for the thumbnail (and the render check).
            case image(HeifDecodedImage)
            /// Reduced RGB pixels for the render check (no thumbnails), and the decoded full size.
            case reduced(HeifDecodedImage, HeifDecodedSize)
            /// Without thumbnails or a reference only the size is kept: libheif still decodes every tile, but no RGB
            /// conversion or sample copy is paid for.
            case size(HeifDecodedSize)
        }
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<Decoded, DecodeFailure> = .failure(.refused(reason: "decode: not run"))
        /// The source's reference render, nil when there is no source to look in (read after `wait()`).
        private(set) var reference: ReferenceLookup?
        /// Why libavif did not decode an AVIF's primary (read after `wait()`); nil when it did, or for another brand.
        private(set) var libavifFailure: String?

        /// - Parameter avifOrientation: for an AVIF, its primary's `irot`/`imir` as an Exif orientation: libavif
        ///   decodes it first, libheif only when libavif cannot. Nil for other brands.
        /// - Parameters: `item` and `pixels`: the primary's item id and pixel count from the container, which name the
        ///   stage a decoder's worker died in and scale its default deadline.
        /// - Parameter file: the container as parsed; a grid primary of it is reduced tile by tile, and a primary
        ///   coded as one picture decoded by libde265 on worker threads (`Rewrap.codedTiles`), when only the render
        ///   check needs its pixels.
        init(
            _ bytes: [UInt8], thumbnails: Bool, item: UInt32? = nil, pixels: Int? = nil, avifOrientation: Int? = nil,
            file: HEIFFile? = nil, lookUp: (@Sendable () -> ReferenceLookup)? = nil, decoders: any Decoders
        ) {
            let count = pixels
            let t = Thread { [self] in
                reference = lookUp?()
                let pixels: Bool
                if case .found? = reference { pixels = true } else { pixels = false }
                if let o = avifOrientation {
                    switch Checks.libavifDecode(
                        bytes, orientation: o, rgb: thumbnails || pixels, decoders: decoders)
                    {
                    case .success(let p):
                        result = .success(.libavif(p))
                        done.signal()
                        return
                    case .failure(.worker(let f)):
                        // libavif's worker died on the file: that is its verdict, not a reason to try libheif.
                        result = .failure(.worker(f))
                        done.signal()
                        return
                    case .failure(let e): libavifFailure = "\(e)"
                    }
                }
                result = Result { () throws(DecodeFailure) -> Decoded in
                    if thumbnails {
                        return .image(try decoders.heifPrimary(bytes, format: .rgb8, item: item, pixels: count))
                    }
                    if pixels {
                        let minSide = 2 * RenderComparison.maxSide
                        if let file, let g = Rewrap.codedTiles(file, bytes: bytes) {
                            let r = try decoders.heifGridReduced(
                                g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry,
                                minSide: minSide, item: item, pixels: count)
                            return .reduced(r.image, r.size)
                        }
                        let r = try decoders.heifPrimaryReduced(bytes, minSide: minSide, item: item, pixels: count)
                        return .reduced(r.image, r.size)
                    }
                    return .size(try decoders.heifPrimarySize(bytes, item: item, pixels: count))
                }
                done.signal()
            }
            t.stackSize = 1 << 20
            t.start()
        }

        /// Blocks until the decode finished; call once.
        func wait() -> Result<Decoded, DecodeFailure> {
            done.wait()
            return result
        }
    }

    /// The PNG thumbnail of a decoded image (≤ 160 px).
    static func thumbnail(_ img: HeifDecodedImage) -> Data? {
        let px = Pixels(
            width: img.width, height: img.height, channels: img.channels, bitDepth: img.bitDepth, samples: img.samples)
        return Thumbnailer.png(px, maxSide: 160)
    }
}
