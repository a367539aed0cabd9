import ColorScience
import HEIF
import HeifCodec
import Isolation
import RenderCheck

/// An output's pixels as the render check reads them: the primary image as libheif shows it (its irot/imir/clap
/// applied), reduced, in the colour space its nclx or ICC profile signals.
public enum OutputImage {
    /// Why an output cannot be compared.
    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Decodes and reduces the primary image of a HEIF file (long side ≥ 2 × `RenderComparison.maxSide`).
    /// - Throws: `Unreadable` for a decode failure or a colour signalling the check cannot read (PQ, HLG, …).
    public static func fromHEIF(_ bytes: [UInt8], decoders: any Decoders) throws(Unreadable) -> RenderImage {
        // Never hand libheif 1.15 an overlay primary: it crashes on one (HEIFFile+Overlay.swift).
        if let why = HEIFFile.libheifOverlayRefusal(bytes) { throw Unreadable(description: why) }
        let img: HeifDecodedImage
        do {
            img = try decoders.heifPrimaryReduced(bytes, minSide: 2 * RenderComparison.maxSide, item: nil, pixels: nil)
                .image
        } catch {
            throw Unreadable(description: "the primary image does not decode: \(error)")
        }
        return try image(img)
    }

    /// A decoded HEIF image (8-bit RGB, or deeper with `bitDepth`) as a `RenderImage`, reduced to at most
    /// 2 × `RenderComparison.maxSide`.
    /// - Throws: `Unreadable` for a colour signalling the check cannot read.
    public static func image(_ img: HeifDecodedImage) throws(Unreadable) -> RenderImage {
        guard img.channels == 3 else { throw Unreadable(description: "the primary image is not RGB") }
        guard let space = space(nclx: img.nclx, icc: img.icc) else {
            let t = img.nclx.map { "transfer \($0.transferCharacteristics), primaries \($0.colourPrimaries)" } ?? "?"
            throw Unreadable(description: "the output's colour signalling (\(t)) is not an SDR space the check reads")
        }
        return RenderImage.capped(
            width: img.width, height: img.height, codes: img.samples, maxCode: (1 << img.bitDepth) - 1, space: space,
            maxSide: 2 * RenderComparison.maxSide)
    }

    /// The space an image signals: its nclx when the check reads it, else its ICC profile, else sRGB (what a
    /// viewer assumes); nil for an HDR transfer (PQ, HLG), which an SDR reference cannot be compared with.
    public static func space(nclx: NCLX?, icc: [UInt8]?) -> ColorSpace? {
        if let n = nclx, n.hasHDRTransfer { return nil }
        if let n = nclx, let s = ColorSpace.from(n) { return s }
        if let icc, let s = ICCReader.colourSpace(icc) { return s }
        return .sRGB
    }
}
