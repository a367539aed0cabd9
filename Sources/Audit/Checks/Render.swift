import ColorScience
import Findings
import Foundation
import RenderCheck
import RenderIO
import ReportModel
import ReportWriting

extension Checks {
    /// The render check: the output's pixels against the source's own rendering (its embedded preview, its thumbnail
    /// item, or a JPEG source itself), by the policy's `render` limits. Without a usable reference the file gets
    /// `render.no-reference` (info), so a missing comparison never passes silently.
    static func render(_ ctx: inout Context, _ lookup: ReferenceLookup?) {
        guard let lookup else { return }
        switch lookup {
        case .none(let why):
            ctx.add(.renderNoReference, "no reference render: \(why)")
        case .died(let failure):
            ctx.add(
                FindingCode(failure), "the source's reference render cannot be read: \(failure)",
                Evidence(actual: failure.stage))
        case .found(let ref):
            if ctx.options.thumbnails { ctx.thumbnails.reference = thumbnail(ref.image) }
            // A primary that does not decode is `decode.primary-failed` already.
            guard let px = ctx.outputPixels else { return }
            let out: RenderImage
            do { out = try OutputImage.image(px).oriented(ExifOrientation(exif: ctx.outputPixelsOrientation)) } catch {
                ctx.add(.renderSkipped, "not compared with the \(ref.description): \(error)")
                return
            }
            let m = RenderComparison.compare(reference: ref.image, output: out)
            ctx.findings += RenderVerdict.findings(
                m, thresholds: ctx.options.policy.render, reference: ref.description,
                orientationAmbiguous: ref.orientationAmbiguous)
        }
    }

    /// The PNG thumbnail (≤ 160 px) of a reference render, as shown.
    static func thumbnail(_ img: RenderImage) -> Data? {
        let codes = img.samples.map { UInt16((min(max($0, 0), 1) * 255).rounded()) }
        return Thumbnailer.png(
            Pixels(width: img.width, height: img.height, channels: 3, bitDepth: 8, samples: codes), maxSide: 160)
    }
}
