import Fidelity
import HeifCodec

/// The primary's luma of a HEIF, decoded by libheif at its coded depth (the fidelity tests' view of a converted file).
public func primaryLuma(_ bytes: [UInt8]) throws -> Plane {
    let d = try HeifDecoder.decodePrimary(bytes, format: .rgbNative)
    return try Fidelity.Luma.plane(rgb: d.samples, width: d.width, height: d.height, maxCode: (1 << d.bitDepth) - 1)
}
