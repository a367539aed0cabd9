import Findings
import Foundation
import HEIF
import HeifCodec
import Isolation
import RenderCheck
import RenderIO
import ReportModel
import ReportWriting

extension Checks {
    /// Decodes the primary image and each gain map with libheif (an AVIF's primary with libavif first); a failure is
    /// `decode.primary-failed` or `decode.gainmap-failed`. Files libheif 1.15 refuses as a whole (iOS 18 layouts) are
    /// retried on the item re-wrapped alone (`HEIFFile.standaloneFile(for:)`; docs/platform.md, libheif reading).
    static func decode(_ ctx: inout Context, _ primary: PrimaryDecode) {
        guard let file = ctx.file else { return }
        var compared = false
        if case .found? = primary.reference { compared = true }
        let thumbs = ctx.options.thumbnails
        let libheif = "libheif \(Heif.version)"
        do {
            switch try primary.wait().get() {
            case .libavif(let p):
                ctx.decode.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: p.size.width, height: p.size.height,
                        bitDepth: p.size.codedBitDepth, message: p.note, decoder: LibavifPrimary.decoder))
                if let img = p.image {
                    if thumbs { ctx.thumbnails.primary = thumbnail(img) }
                    ctx.outputPixels = img
                    flatDecode(&ctx, spread: spread(img), compared: compared)
                }
            case .image(let img):
                ctx.decode.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: img.width, height: img.height,
                        bitDepth: img.codedBitDepth, decoder: libheif))
                ctx.thumbnails.primary = thumbnail(img)
                ctx.outputPixels = img
                flatDecode(&ctx, spread: spread(img), compared: compared)
            case .reduced(let img, let d):
                ctx.decode.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: d.width, height: d.height, bitDepth: d.codedBitDepth,
                        decoder: libheif))
                ctx.outputPixels = img
            case .size(let d):
                ctx.decode.append(
                    DecodeResult(
                        target: .primary, status: .ok, width: d.width, height: d.height, bitDepth: d.codedBitDepth,
                        decoder: libheif))
                flatDecode(&ctx, spread: d.firstPlaneSpread, compared: compared)
            }
            libavifRefused(&ctx, primary)
        } catch let failure as WorkerFailure {
            // The decoder's worker died, hung or ran out of memory: not tried again on these bytes (re-wrapped, the
            // same stream would do the same); the run goes on.
            ctx.decode.append(
                DecodeResult(target: .primary, status: .failed, message: failure.description, decoder: libheif))
            ctx.add(
                FindingCode(failure), "the primary image does not decode: \(failure.description)",
                Evidence(actual: failure.stage, item: file.primaryItemID))
        } catch {
            decodeFailed(&ctx, error, file: file, primary: primary)
        }
        ctx.decode += ctx.gainMapDecodes
    }

    /// The primary did not decode in libheif: decoded re-wrapped alone when libheif refuses the file as a whole, a
    /// feature libheif cannot decode named, or `decode.primary-failed`.
    private static func decodeFailed(_ ctx: inout Context, _ error: Error, file: HEIFFile, primary: PrimaryDecode) {
        let thumbs = ctx.options.thumbnails
        let libheif = "libheif \(Heif.version)"
        let whole = "\(error)"
        if let p = file.primaryItemID, let single = Rewrap.standalone(file, p),
            let img = try? ctx.decoders.heifPrimary(single, format: .rgb8)
        {
            ctx.decode.append(
                DecodeResult(
                    target: .primary, status: .ok, width: img.width, height: img.height,
                    bitDepth: img.codedBitDepth,
                    message: "decoded re-wrapped; libheif refused the whole file: \(whole)", decoder: libheif))
            ctx.add(
                .decodePrimaryRewrapped,
                "libheif \(Heif.version) refuses the file as a whole; the primary decodes on its own",
                Evidence(actual: whole, item: p))
            if thumbs { ctx.thumbnails.primary = thumbnail(img) }
            ctx.outputPixels = img
            ctx.outputPixelsOrientation = file.orientation(of: p)
            libavifRefused(&ctx, primary)
        } else if let feature = unsupportedPrimaryFeature(file) {
            // libheif's text would blame the file ("Item has no compressed data"): name what it cannot do.
            ctx.decode.append(DecodeResult(target: .primary, status: .skipped, message: feature))
            ctx.add(
                .decodeUnsupported,
                "the primary is \(feature), which libheif \(Heif.version) cannot decode: not judged by its pixels",
                Evidence(actual: feature, item: file.primaryItemID))
        } else {
            ctx.decode.append(DecodeResult(target: .primary, status: .failed, message: whole, decoder: libheif))
            let avif = primary.libavifFailure.map { "; \(LibavifPrimary.decoder) does not decode it either: \($0)" }
            if let why = primary.libavifFailure {
                ctx.decode.append(
                    DecodeResult(
                        target: .primary, status: .failed, message: why, decoder: LibavifPrimary.decoder))
            }
            ctx.add(
                .decodePrimaryFailed, "the primary image does not decode: \(whole)" + (avif ?? ""),
                Evidence(item: file.primaryItemID))
        }
    }

    /// The primary's libheif decode, started on its own thread when the checks begin so it overlaps the container,
    /// metadata and gain-map checks (its result is only read by `decode(_:_:)`, last). The same thread first looks up
    /// the source's reference render (`lookUp`), since whether RGB pixels are needed depends on it.
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
        private var result: Result<Decoded, Error> = .failure(HeifError(operation: "decode", message: "not run"))
        /// The source's reference render, nil when there is no source to look in (read after `wait()`).
        private(set) var reference: ReferenceLookup?
        /// Why libavif did not decode an AVIF's primary (read after `wait()`); nil when it did, or for another brand.
        private(set) var libavifFailure: String?

        /// - Parameter avifOrientation: for an AVIF, its primary's `irot`/`imir` as an Exif orientation: libavif
        ///   decodes it first, libheif only when libavif cannot. Nil for other brands.
        /// - Parameters: `item` and `pixels`: the primary's item id and pixel count from the container, which name the
        ///   stage a decoder's worker died in and scale its default deadline.
        /// - Parameter file: the container as parsed; a grid primary of it is reduced tile by tile
        ///   (`Rewrap.gridTiles`) when only the render check needs its pixels.
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
                    case .failure(let f as WorkerFailure):
                        // libavif's worker died on the file: that is its verdict, not a reason to try libheif.
                        result = .failure(f)
                        done.signal()
                        return
                    case .failure(let e): libavifFailure = "\(e)"
                    }
                }
                result = Result {
                    if thumbnails {
                        return .image(try decoders.heifPrimary(bytes, format: .rgb8, item: item, pixels: count))
                    }
                    if pixels {
                        let minSide = 2 * RenderComparison.maxSide
                        if let file, let g = Rewrap.gridTiles(file, bytes: bytes) {
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
        func wait() -> Result<Decoded, Error> {
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
