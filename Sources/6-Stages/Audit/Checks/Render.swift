import ColorScience
import Findings
import Foundation
import RenderCheck
import RenderIO
import ReportModel
import ReportWriting

extension Checks {
    /// What the render check makes: its findings, and the reference's thumbnail when thumbnails are wanted.
    struct RenderOutcome {
        var findings: [Finding] = []
        var thumbnail: Data? = nil
    }

    /// The render check: the output's pixels against the source's own rendering (its embedded preview, its thumbnail
    /// item, or a JPEG source itself), by the policy's `render` limits. Without a usable reference the file gets
    /// `render.no-reference` (info), so a missing comparison never passes silently.
    /// - Parameters:
    ///   - lookup: the source's reference as the primary's decode found it.
    ///   - output: the primary's pixels from its decode; nil when it did not decode (`decode.primary-failed` says so).
    static func render(_ lookup: ReferenceLookup, output: OutputPixels?, options: AuditOptions) -> RenderOutcome {
        var out = RenderOutcome()
        switch lookup {
        case .none(let why):
            out.findings.add(.renderNoReference, "no reference render: \(why)")
        case .died(let failure):
            out.findings.add(
                FindingCode(failure), "the source's reference render cannot be read: \(failure)",
                Evidence(actual: failure.stage))
        case .found(let ref):
            if options.thumbnails { out.thumbnail = thumbnail(ref.image) }
            guard let px = output else { return out }
            let image: RenderImage
            do { image = try OutputImage.image(px.image).oriented(ExifOrientation(exif: px.orientation)) } catch {
                out.findings.add(.renderSkipped, "not compared with the \(ref.description): \(error)")
                return out
            }
            let m = RenderComparison.compare(reference: ref.image, output: image)
            out.findings += RenderVerdict.findings(
                m, thresholds: options.policy.render, reference: ref.description,
                orientationAmbiguous: ref.orientationAmbiguous)
        }
        return out
    }

    /// The PNG thumbnail (≤ 160 px) of a reference render, as shown.
    static func thumbnail(_ img: RenderImage) -> Data? {
        let codes = img.samples.map { UInt16((min(max($0, 0), 1) * 255).rounded()) }
        return Thumbnailer.png(
            Pixels(width: img.width, height: img.height, channels: 3, bitDepth: 8, samples: codes), maxSide: 160)
    }
}
