import GainMap
import HeifCodec

/// The gain-map inspector's decoder in tests, on HeifCodec (libheif): the image's luma, or R of RGB when libheif
/// decodes it only as RGB (libheif 1.15 assembles grids as RGB only; docs/platform.md).
///
/// The audit's own decoder takes the decoder's first plane (`HeifDecodeFormat.firstPlane`); the tests decode
/// independently of it.
public func heifCodecPlane(_ standaloneHEIF: [UInt8]) throws -> DecodedPlane? {
    let img: HeifDecodedImage
    do { img = try HeifDecoder.decodePrimary(standaloneHEIF, format: .mono) } catch {
        img = try HeifDecoder.decodePrimary(standaloneHEIF, format: .rgb8)
    }
    let plane =
        img.channels == 1
        ? img.samples : stride(from: 0, to: img.samples.count, by: img.channels).map { img.samples[$0] }
    return DecodedPlane(width: img.width, height: img.height, bitDepth: img.bitDepth, samples: plane)
}
