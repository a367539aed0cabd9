import AVIFCodec
import ColorScience
import Findings
import HEIF
import HeifCodec
import Isolation
import ReportModel

/// An AVIF's primary as libavif (dav1d) decodes it, shown upright: libavif 0.11 leaves `irot`/`imir` to its caller,
/// so the primary's transforms are applied here, as libheif applies them.
struct LibavifPrimary: Sendable {
    /// Upright 8-bit RGB pixels, when they were asked for.
    var image: HeifDecodedImage?
    /// The upright size and the coded depth.
    var size: HeifDecodedSize
    /// Set when libavif's strict checks refuse the file and it decoded with them off: the strict reason.
    var strictRefusal: String?

    /// "libavif 0.11.1".
    static var decoder: String { "libavif \(AVIFDecoder.shortVersion)" }

    /// The decode row's message: nil for a plain decode.
    var note: String? {
        strictRefusal.map { "libavif's strict checks refuse it (\($0)); decoded with them off, as avifdec --no-strict" }
    }
}

extension Checks {
    /// True for a file of the AVIF family (major brand `avif`/`avis`, or `avif` compatible): its primary is decoded by
    /// libavif first.
    static func isAVIF(_ file: HEIFFile) -> Bool {
        guard let b = file.brands else { return false }
        return b.major == "avif" || b.major == "avis" || b.compatible.contains("avif")
    }

    /// Decodes an AVIF's primary through libavif: strict first, then with the strict checks off (`pixi` missing, an
    /// invalid `clap`, alpha without `ispe`: files libheif and browsers read). The failure is libavif's reason.
    /// - Parameters:
    ///   - orientation: the primary's `irot`/`imir` as an Exif orientation, applied to the pixels and the size.
    ///   - rgb: false decodes the AV1 data but keeps only the size.
    ///   A worker that died, hung or ran out of memory in libavif fails it with that `DecodeFailure.worker`.
    static func libavifDecode(_ bytes: [UInt8], orientation: Int, rgb: Bool, decoders: any Decoders) -> Result<
        LibavifPrimary, DecodeFailure
    > {
        var strictRefusal: String? = nil
        let img: AVIFImage
        do {
            img = try decoders.avif(bytes, strict: true, rgb: rgb)
        } catch {
            guard case .library(.libavif(let e)) = error else { return .failure(error) }
            strictRefusal = e.message
            do { img = try decoders.avif(bytes, strict: false, rgb: rgb) } catch { return .failure(error) }
        }
        let turn = ExifOrientation(exif: orientation)
        let (w, h) = turn.displaySize(storedWidth: img.width, storedHeight: img.height)
        var out = LibavifPrimary(
            image: nil, size: HeifDecodedSize(width: w, height: h, codedBitDepth: img.depth),
            strictRefusal: strictRefusal)
        guard rgb else { return .success(out) }
        var samples = [UInt16](repeating: 0, count: w * h * 3)
        for dy in 0..<h {
            for dx in 0..<w {
                let s = turn.storedPosition(dx: dx, dy: dy, storedWidth: img.width, storedHeight: img.height)
                let si = 3 * (s.y * img.width + s.x)
                let di = 3 * (dy * w + dx)
                samples[di] = UInt16(img.samples[si])
                samples[di + 1] = UInt16(img.samples[si + 1])
                samples[di + 2] = UInt16(img.samples[si + 2])
            }
        }
        // Unspecified primaries and transfer (no nclx anywhere) leave the space to the ICC profile or sRGB, as libheif's
        // absent nclx does.
        let unspecified = img.colourPrimaries == 2 && img.transferCharacteristics == 2
        let nclx =
            unspecified
            ? nil
            : NCLX(
                colourPrimaries: img.colourPrimaries, transferCharacteristics: img.transferCharacteristics,
                matrixCoefficients: img.matrixCoefficients, fullRange: img.fullRange)
        out.image = HeifDecodedImage(
            rgb8: samples, width: w, height: h, nclx: nclx, icc: img.icc, codedBitDepth: img.depth)
        return .success(out)
    }

    /// An AVIF that libheif decodes but libavif does not: `decode.libavif-refused` (warning) naming libavif's reason,
    /// since the viewers built on libavif (browsers, Android) show nothing for it.
    static func libavifRefused(_ primary: PrimaryDecode, file: HEIFFile, _ out: inout PrimaryOutcome) {
        guard let why = primary.libavifFailure else { return }
        out.rows.append(DecodeResult(target: .primary, status: .failed, message: why, decoder: LibavifPrimary.decoder))
        out.findings.add(
            .decodeLibavifRefused,
            "\(LibavifPrimary.decoder) does not decode the primary image (\(why)); its pixels come from libheif",
            Evidence(actual: why, item: file.primaryItemID))
    }
}
