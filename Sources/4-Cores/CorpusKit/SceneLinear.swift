import ColorScience
import Foundation
import GainMap
import HEIF

/// A rendered photo (HEIC/HEIF) taken back to scene-linear sRGB, the input of `Remosaic.dng`.
///
/// The pixels come from a decoder the caller supplies (CorpusKit imports no C library): `photo(heif:decode:)` asks
/// it for the primary as interleaved RGB and, when the photo has an Apple gain map with headroom, for that map as one
/// plane.
public enum SceneLinear {
    /// Decoded samples handed back by the caller's decoder: row-major interleaved `samples` of `bitDepth` bits
    /// (3 channels for the primary; the gain map's first channel is used), and the image's nclx and ICC profile.
    public typealias Samples = (
        width: Int, height: Int, channels: Int, bitDepth: Int, samples: [UInt16], nclx: NCLX?, icc: [UInt8]?
    )

    /// What `photo(heif:decode:)` asks the decoder for.
    public enum Request: Sendable {
        /// The primary image as interleaved RGB at its native depth.
        case primaryRGB
        /// A standalone gain-map file's image as one plane.
        case gainMap
    }

    /// Decodes a HEIF photo to scene-linear sRGB, with its Apple gain map applied when present.
    ///
    /// Display P3 (nclx primaries 12, or an ICC profile naming Display P3) is converted to sRGB primaries; the
    /// transfer is taken as the sRGB curve (what iPhone HEICs use). The gain map is applied as
    /// `hdr = sdr · (1 + (headroom − 1) · gain)`, sampled nearest-neighbour.
    /// - Parameters:
    ///   - bytes: the HEIF file.
    ///   - decode: decodes the given bytes as asked.
    /// - Returns: the photo and a note of what was done (e.g. `Display P3 → sRGB, Apple gain map applied …`).
    public static func photo(
        heif bytes: [UInt8], decode: ([UInt8], Request) throws -> Samples
    ) throws -> (RGBImage, String) {
        let img = try decode(bytes, .primaryRGB)
        let p3 = isDisplayP3(nclx: img.nclx, icc: img.icc)
        var planar = try linear(img, displayP3: p3)
        var note = p3 ? "Display P3 → sRGB" : "sRGB"
        let file = HEIFFile(bytes: bytes)
        if let (standalone, headroom) = appleGainMap(of: file) {
            let g = try decode(standalone, .gainMap)
            let plane = stride(from: 0, to: g.width * g.height * g.channels, by: g.channels).map {
                Float(g.samples[$0])
            }
            let map = try GainMap.LinearImage(width: g.width, height: g.height, channels: 1, pixels: plane)
            planar = GainMapMath.applyApple(
                base: planar, gainMap: map, headroom: headroom, sampling: .nearest,
                mapMaximum: Float((1 << g.bitDepth) - 1))
            note += String(format: ", Apple gain map applied (headroom %.2f)", headroom)
        }
        return (interleaved(planar), note)
    }

    /// Whether decoded samples are Display P3: nclx primaries 12, or an ICC profile whose text names Display P3.
    public static func isDisplayP3(nclx: NCLX?, icc: [UInt8]?) -> Bool {
        nclx?.knownPrimaries == .displayP3
            || (icc.map { String(decoding: $0.filter { $0 != 0 }, as: UTF8.self).contains("Display P3") } ?? false)
    }

    /// The standalone file of the primary's Apple gain map and its headroom (the map's XMP, else the primary's
    /// MakerNote), when there is one with headroom above 1.
    public static func appleGainMap(of file: HEIFFile) -> (file: [UInt8], headroom: Double)? {
        guard let primary = file.primaryItemID, let gm = file.appleGainMap(of: primary),
            let standalone = file.standaloneFile(for: gm)
        else { return nil }
        let xmpHeadroom = file.metadataItems(describing: gm).compactMap { file.xmp(of: $0) }
            .compactMap { AppleGainMapXMP.parse($0).headroom }.first
        let makerHeadroom = file.metadataItems(describing: primary).compactMap { file.exifTIFF(of: $0) }
            .compactMap { AppleMakerNote.find(inExif: $0)?.headroom }.first
        guard let headroom = xmpHeadroom ?? makerHeadroom, headroom > 1 else { return nil }
        return (standalone, headroom)
    }

    /// Interleaved RGB under the sRGB transfer → planar linear light in sRGB primaries, negatives clipped.
    static func linear(_ img: Samples, displayP3: Bool) throws -> GainMap.LinearImage {
        let maxV = Double((1 << img.bitDepth) - 1)
        let n = img.width * img.height
        var out = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n {
            var c = (
                SRGBTransfer.decode(Double(img.samples[3 * i]) / maxV),
                SRGBTransfer.decode(Double(img.samples[3 * i + 1]) / maxV),
                SRGBTransfer.decode(Double(img.samples[3 * i + 2]) / maxV)
            )
            if displayP3 { c = Matrix3.apply(Primaries.displayP3ToSRGB, c) }
            out[i] = Float(max(0, c.0))
            out[n + i] = Float(max(0, c.1))
            out[2 * n + i] = Float(max(0, c.2))
        }
        return try GainMap.LinearImage(width: img.width, height: img.height, channels: 3, pixels: out)
    }

    /// Planar RGB → the interleaved `RGBImage` `Remosaic.dng` takes.
    static func interleaved(_ p: GainMap.LinearImage) -> RGBImage {
        let n = p.planeSize
        var px = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n {
            px[3 * i] = p.pixels[i]
            px[3 * i + 1] = p.pixels[n + i]
            px[3 * i + 2] = p.pixels[2 * n + i]
        }
        return RGBImage(width: p.width, height: p.height, pixels: px)
    }
}
