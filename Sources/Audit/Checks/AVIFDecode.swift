import AVIFCodec
import HEIF

extension Checks {
    /// An AVIF that libheif does not decode, tried with libavif (dav1d), so the decode finding says whether another
    /// reader decodes it and, when none does, why: nil for a file of another brand.
    static func libavifAttempt(_ file: HEIFFile, _ bytes: [UInt8]) -> (image: AVIFImage?, why: String)? {
        guard let b = file.brands, b.major == "avif" || b.major == "avis" || b.compatible.contains("avif") else {
            return nil
        }
        do {
            let img = try AVIFDecoder.decode(bytes)
            return (
                img, "libavif \(AVIFDecoder.shortVersion) decodes it (\(img.width)x\(img.height), \(img.depth)-bit)"
            )
        } catch {
            return (nil, "libavif \(AVIFDecoder.shortVersion) does not decode it either: \(error)")
        }
    }
}
