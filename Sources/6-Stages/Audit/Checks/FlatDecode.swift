import Findings
import Foundation
import HEIF
import HeifCodec
import ReportModel

// No garbage passes: a primary that decodes to a flat picture while the container describes a photo (a camera's
// Exif, at least 256 px a side) gets a finding even when there is no reference render to compare with. A decoder
// that ignored what it did not understand (a predictively coded item decodes to flat grey) passes every other check.
extension Checks {
    /// The spread below which a decode is flat: (p99 − p1) of the first plane over its full range (about 2.5 of
    /// 255 codes; a photo of a grey card under noise spreads wider).
    static let flatSpread = 0.01

    /// `render.blank` (warning) for a flat primary decode of a photo, when the render check compared nothing.
    /// - Parameters:
    ///   - file: the output's container.
    ///   - spread: the decoded primary's ``spread(_:)``.
    ///   - compared: whether the render check has a reference to compare the primary with.
    static func flatDecode(_ file: HEIFFile, spread: Double?, compared: Bool) -> Finding? {
        guard !compared, let spread, spread < flatSpread, let p = file.primaryItemID,
            let size = file.displaySize(of: p), min(size.width, size.height) >= 256,
            let exif = file.metadataItems(describing: p).first(where: { file.item($0)?.type == "Exif" })
        else { return nil }
        return Finding(
            code: .renderBlank, severity: .warning,
            message: String(
                format: "the primary decodes to a flat picture (spread %.2f %% of the range) although the file "
                    + "describes a photo (%d×%d, Exif item %d): nothing to compare it with, and nothing in it",
                spread * 100, Int(size.width), Int(size.height), Int(exif)),
            evidence: Evidence(
                expected: "a picture with content", actual: String(format: "spread %.4f", spread), item: p))
    }

    /// (p99 − p1) / range of a decoded image's first channel, sampled on a grid of at most 128 × 128 pixels.
    static func spread(_ img: HeifDecodedImage) -> Double {
        let step = max(1, max(img.width, img.height) / 128)
        let maxValue = Double((1 << img.bitDepth) - 1)
        var v: [Double] = []
        for y in stride(from: 0, to: img.height, by: step) {
            for x in stride(from: 0, to: img.width, by: step) {
                v.append(Double(img.samples[(y * img.width + x) * img.channels]) / maxValue)
            }
        }
        v.sort()
        guard !v.isEmpty else { return 0 }
        return v[min(v.count - 1, v.count * 99 / 100)] - v[v.count / 100]
    }
}
