import Findings
import Foundation
import GainMap
import HEIF
import HeifCodec
import Isolation
import ReportModel

extension Checks {
    /// Gain-map presence and completeness per map and per part (GainMap's `GainMapInspector`: description, metadata,
    /// data, colour, consistency; ISO 21496-1 `tmap` and Apple's `hdrgainmap` auxiliary image); `gainmap.missing`
    /// when the source had a gain map in any container (or the policy requires one) and the output has none. With decoding on, the
    /// inspector decodes each map through HeifCodec, and the pixels feed the decode results and thumbnails.
    static func gainMaps(_ ctx: inout Context) {
        guard let file = ctx.file else { return }
        // unchecked: the inspector calls the decoder closure on this thread, one map at a time.
        final class Decoded: @unchecked Sendable {
            var results: [DecodeResult] = []
            var firstImage: HeifDecodedImage? = nil
        }
        let decoded = Decoded()
        let thumbs = ctx.options.thumbnails
        let decoders = ctx.decoders
        // The inspector's plane is the decoder's first plane (Y of a YCbCr or monochrome map), with no conversion to
        // RGB; the RGB picture is decoded only when a thumbnail is wanted.
        let decoder: GainMapDecoder? =
            ctx.options.decode
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
        let (results, findings) = GainMapView.results(inspection, policy: ctx.options.policy)
        ctx.gainMaps = results
        ctx.findings += findings
        ctx.gainMapDecodes = decoded.results
        for d in decoded.results where d.status == .failed {
            ctx.add(.decodeGainmapFailed, "a gain map does not decode: \(d.message ?? "")")
        }
        if ctx.options.thumbnails, let img = decoded.firstImage { ctx.thumbnails.gainMap = thumbnail(img) }
        pairGainMaps(&ctx, output: GainMapFacts.of(inspection), outputHasOne: inspection.hasGainMap)
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
