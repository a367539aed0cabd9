import Findings
import Foundation
import GainMap
import HEIF
import Isolation
import JPEGCodec
import MetadataIO
import ReportModel

extension Checks {
    /// A JPEG output's gain map (Ultra HDR, ISO 21496-1, Apple; found through MPF), judged per part with the same
    /// `gainmap.*` codes as a HEIF's; nil when the output is not a JPEG or holds no MPF index to look in.
    static func jpegGainMaps(_ output: [UInt8], options: AuditOptions, decoders: any Decoders) -> GainMapOutcome? {
        guard Source.isJPEG(output) else { return nil }
        let decoder: JPEGGainMapDecoder? =
            options.decode
            ? { jpeg in
                let img = try decoders.jpeg(jpeg)
                // A one-component map comes back as grey RGB: its first sample of each pixel is the map.
                let plane = stride(from: 0, to: img.samples.count, by: 3).map { UInt16(img.samples[$0]) }
                return DecodedPlane(width: img.width, height: img.height, bitDepth: 8, samples: plane)
            } : nil
        guard let inspection = JPEGGainMapReader.inspect(output, decode: decoder) else { return nil }
        let (results, findings) = GainMapView.results(inspection.inspection, policy: options.policy)
        return GainMapOutcome(
            results: results, findings: findings, facts: inspection.facts, hasGainMap: inspection.hasGainMap)
    }

    /// The source's usable gain map, whatever its container: a HEIF/AVIF's `tmap` or auxiliary image, a JPEG's.
    static func sourceGainMap(_ source: InputFile?) -> GainMapFacts? {
        if let s = heif(of: source) { return GainMapFacts.of(GainMapInspector.inspect(s)) }
        if let b = source?.bytes, Source.isJPEG(b) { return JPEGGainMapReader.inspect(b)?.facts }
        return nil
    }

    /// The pair judgement of gain maps across containers: `gainmap.missing` when the source has a usable gain map
    /// (or the policy requires one) and the output has none; when both have one, a change of form is an info and a
    /// change of parameters a warning.
    /// - Parameters:
    ///   - source: the source's gain map (``sourceGainMap(_:)``), nil without a source or without a map.
    ///   - output: the output's gain maps as the gain-map check found them.
    static func pairGainMaps(source: GainMapFacts?, output: GainMapOutcome, policy: Policy) -> [Finding] {
        var findings: [Finding] = []
        if !output.hasGainMap {
            let why =
                source != nil
                ? "the source has a gain map"
                : policy.requireGainMap ? "the policy requires a gain map" : nil
            if let why {
                findings.add(
                    .gainmapMissing,
                    "\(why) (\(source?.forms.sorted().joined(separator: "+") ?? "any form")); the output has none",
                    Evidence(
                        expected:
                            "a gain map: a tmap item, an hdrgainmap auxiliary image or a JPEG's MPF gain-map image",
                        actual: "none"))
            }
            return findings
        }
        guard let source, let facts = output.facts else { return findings }
        return GainMapFacts.compare(source: source, output: facts)
    }
}
