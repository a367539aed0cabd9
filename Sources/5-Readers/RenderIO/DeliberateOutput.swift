import ColorScience
import HEIF
import HeifCodec
import Isolation
import RenderCheck

extension OutputImage {
    /// A HEIF output deliberately broken (`DeliberateFailure`): its primary decoded at full size, the failure applied,
    /// re-encoded as a plain 8-bit HEIC with the same nclx — what a faulty converter would write while every tag
    /// stays right. For measuring the render check (`readback-render`, the tests), never on a user path.
    /// - Throws: `Unreadable` or libheif's error.
    public static func broken(_ heif: [UInt8], _ failure: DeliberateFailure, decoders: any Decoders) throws -> [UInt8] {
        if let why = HEIFFile.libheifOverlayRefusal(heif) { throw Unreadable(description: why) }
        let img = try decoders.heifPrimary(heif, format: .rgb8)
        let nclx = img.nclx ?? .sRGB
        guard let space = space(nclx: nclx, icc: img.icc) else {
            throw Unreadable(description: "an HDR output is not broken on purpose here")
        }
        let bad = failure.apply(
            to: RenderImage(width: img.width, height: img.height, codes: img.samples, space: space))
        let codes = bad.samples.map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
        return try HeifEncoder.encode(
            .rgb8(width: bad.width, height: bad.height, samples: codes),
            settings: HeifEncodeSettings(quality: 90, preset: "ultrafast", nclx: nclx))
    }
}
