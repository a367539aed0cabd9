import Findings
import Foundation
import GainMap
import HEIF
import HeifCodec
import Isolation
import ReportModel

extension Checks {
    /// What the gain-map check makes: the report's results and findings, the output's maps as the pair judgement
    /// compares them, and, with decoding, each map's decode row and the first map's thumbnail.
    struct GainMapOutcome {
        var results: [GainMapResult]
        var findings: [Finding]
        /// The output's usable gain map (nil when none).
        var facts: GainMapFacts?
        var hasGainMap: Bool
        /// Each map's decode, reported after the primary's.
        var decodes: [DecodeResult] = []
        var thumbnail: Data? = nil
    }

    /// Gain-map presence and completeness per map and per part (GainMap's `GainMapInspector`: description, metadata,
    /// data, colour, consistency; ISO 21496-1 `tmap` and Apple's `hdrgainmap` auxiliary image). With decoding on,
    /// the inspector decodes each map through the decoders, and the pixels feed the decode rows and the thumbnail.
    /// The pair's judgement (`gainmap.missing`, a changed form or parameters) is ``pairGainMaps(source:output:policy:)``.
    static func gainMaps(_ file: HEIFFile, options: AuditOptions, decoders: any Decoders) -> GainMapOutcome {
        // unchecked: the inspector calls the decoder closure on this thread, one map at a time.
        final class Decoded: @unchecked Sendable {
            var results: [DecodeResult] = []
            var firstImage: HeifDecodedImage? = nil
        }
        let decoded = Decoded()
        let thumbs = options.thumbnails
        // The inspector's plane is the decoder's first plane (Y of a YCbCr or monochrome map), with no conversion to
        // RGB; the RGB picture is decoded only when a thumbnail is wanted.
        let decoder: GainMapDecoder? =
            options.decode
            ? { standalone in
                do {
                    let img = try decoders.heifPrimary(standalone, format: .firstPlane)
                    decoded.results.append(
                        DecodeResult(
                            target: .gainmap, status: .ok, width: img.width, height: img.height,
                            bitDepth: img.codedBitDepth))
                    if thumbs && decoded.firstImage == nil {
                        decoded.firstImage = try? decoders.heifPrimary(standalone, format: .rgb8)
                    }
                    return DecodedPlane(
                        width: img.width, height: img.height, bitDepth: img.bitDepth, samples: img.samples)
                } catch {
                    decoded.results.append(DecodeResult(target: .gainmap, status: .failed, message: "\(error)"))
                    throw error
                }
            } : nil
        let inspection = GainMapInspector.inspect(file, decode: decoder)
        let (results, findings) = GainMapView.results(inspection, policy: options.policy)
        var out = GainMapOutcome(
            results: results, findings: findings, facts: GainMapFacts.of(inspection),
            hasGainMap: inspection.hasGainMap, decodes: decoded.results)
        for d in decoded.results where d.status == .failed {
            out.findings.add(.decodeGainmapFailed, "a gain map does not decode: \(d.message ?? "")")
        }
        if thumbs, let img = decoded.firstImage { out.thumbnail = thumbnail(img) }
        return out
    }
}

/// Maps the GainMap module's inspection onto the report: one `GainMapResult` per form (a map that is both an ISO
/// `tmap` input and an Apple aux image, as on the iPhone 16, gives one `iso` and one `apple` result), each part
/// failing when a finding of error severity that concerns that form sits in it.
enum GainMapView {
    static func kind(_ f: GainMapForm) -> String {
        switch f {
        case .iso21496: "iso"
        case .appleAux: "apple"
        case .otherAux: "other"
        case .ultraHDR: "ultrahdr"
        }
    }

    /// Whether a finding code concerns one form: `gainmap.apple.*` only Apple's, tmap/altr/brand/dimg codes only
    /// the ISO form, everything else both.
    static func concerns(_ finding: FindingCode, _ kind: String) -> Bool {
        let code = finding.rawValue
        if code.hasPrefix("gainmap.apple.") { return kind == "apple" }
        for p in [
            "gainmap.tmap.", "gainmap.altr.", "gainmap.brand.", "gainmap.dimg.",
            FindingCode.gainmapHeadroomMismatch.rawValue,
        ]
        where code.hasPrefix(p) {
            return kind == "iso"
        }
        return true
    }

    /// - Parameters:
    ///   - inspection: the GainMap module's inspection.
    ///   - policy: severities are judged after the policy, so a part fails on what the policy calls an error.
    static func results(_ inspection: GainMapInspection, policy: Policy) -> (
        results: [GainMapResult], findings: [Finding]
    ) {
        var results: [GainMapResult] = []
        var findings: [Finding] = []
        var seen = Set<Finding>()
        func add(_ g: Finding, item: UInt32?) {
            let f = Finding(
                code: g.code, severity: g.severity, message: g.message,
                evidence: Evidence(offset: g.offset.map { max(0, $0) }, item: item))
            if seen.insert(f).inserted { findings.append(f) }
        }
        for g in inspection.findings { add(g, item: nil) }
        for r in inspection.reports {
            for g in r.findings { add(g, item: r.gainMapItemID ?? r.toneMapItemID) }
            for form in r.forms {
                let k = kind(form)
                func status(_ parts: [GainMapPart]) -> PartStatus {
                    let failing = parts.flatMap { r.part($0).findings }.contains {
                        policy.severity(for: $0.code.rawValue, default: $0.severity) == .error && concerns($0.code, k)
                    }
                    return failing ? .fail : .pass
                }
                results.append(
                    GainMapResult(
                        kind: k, item: form == .iso21496 ? r.toneMapItemID : r.gainMapItemID,
                        description: status([.description, .consistency]), metadata: status([.metadata]),
                        data: status([.data]), colourSpace: status([.colour])))
            }
        }
        return (results, findings)
    }
}
