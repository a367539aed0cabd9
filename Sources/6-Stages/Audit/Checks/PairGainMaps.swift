import Findings
import Foundation
import GainMap
import HEIF
import Isolation
import JPEGCodec
import ReportModel

extension Checks {
    /// A JPEG output's gain map (Ultra HDR, ISO 21496-1, Apple; found through MPF), judged per part with the same
    /// `gainmap.*` codes as a HEIF's, then against the source's.
    static func jpegGainMaps(_ ctx: inout Context) {
        guard Source.isJPEG(ctx.output) else { return }
        let decoders = ctx.decoders
        let decoder: JPEGGainMapDecoder? =
            ctx.options.decode
            ? { jpeg in
                let img = try decoders.jpeg(jpeg)
                // A one-component map comes back as grey RGB: its first sample of each pixel is the map.
                let plane = stride(from: 0, to: img.samples.count, by: 3).map { UInt16(img.samples[$0]) }
                return DecodedPlane(width: img.width, height: img.height, bitDepth: 8, samples: plane)
            } : nil
        guard let inspection = JPEGGainMapReader.inspect(ctx.output, decode: decoder) else { return }
        let (results, findings) = GainMapView.results(inspection.inspection, policy: ctx.options.policy)
        ctx.gainMaps = results
        ctx.findings += findings
        pairGainMaps(&ctx, output: inspection.facts, outputHasOne: inspection.hasGainMap)
    }

    /// The source's usable gain map, whatever its container: a HEIF/AVIF's `tmap` or auxiliary image, a JPEG's.
    static func sourceGainMap(_ ctx: Context) -> GainMapFacts? {
        if let s = ctx.sourceHEIF { return GainMapFacts.of(GainMapInspector.inspect(s)) }
        if let b = ctx.sourceBytes, Source.isJPEG(b) { return JPEGGainMapReader.inspect(b)?.facts }
        return nil
    }

    /// The pair judgement of gain maps across containers: `gainmap.missing` when the source has a usable gain map
    /// (or the policy requires one) and the output has none; when both have one, a change of form is an info and a
    /// change of parameters a warning.
    static func pairGainMaps(_ ctx: inout Context, output: GainMapFacts?, outputHasOne: Bool) {
        let source = ctx.job.source != nil ? sourceGainMap(ctx) : nil
        if !outputHasOne {
            let why =
                source != nil
                ? "the source has a gain map"
                : ctx.options.policy.requireGainMap ? "the policy requires a gain map" : nil
            if let why {
                ctx.add(
                    .gainmapMissing,
                    "\(why) (\(source?.forms.sorted().joined(separator: "+") ?? "any form")); the output has none",
                    Evidence(
                        expected:
                            "a gain map: a tmap item, an hdrgainmap auxiliary image or a JPEG's MPF gain-map image",
                        actual: "none"))
            }
            return
        }
        guard let source, let output else { return }
        ctx.findings += GainMapFacts.compare(source: source, output: output)
    }
}
