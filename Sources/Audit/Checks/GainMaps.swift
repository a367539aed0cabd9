import Foundation
import HEIF
import ReportModel

extension Checks {
    /// Gain-map presence and completeness, per map and per part (description, metadata, data, colour space), for the
    /// ISO 21496-1 `tmap` form and Apple's `hdrgainmap` auxiliary image; `gainmap.missing` when the source had a gain
    /// map (or the policy requires one) and the output has none.
    static func gainMaps(_ ctx: inout Context) {
        guard let file = ctx.file else { return }
        let (results, findings) = GainMapParts.evaluate(file)
        ctx.gainMaps = results
        ctx.findings += findings
        if results.isEmpty {
            var why: String? = nil
            if let s = ctx.sourceHEIF, !GainMapParts.evaluate(s).results.isEmpty {
                why = "the source has a gain map"
            } else if let b = ctx.sourceBytes, Source.jpegHasGainMap(b) {
                why = "the source JPEG has a gain map"
            } else if ctx.options.policy.requireGainMap {
                why = "the policy requires a gain map"
            }
            if let why {
                ctx.add(
                    "gainmap.missing", .error, "\(why); the output has none",
                    Evidence(expected: "a tmap item or an Apple hdrgainmap auxiliary image", actual: "none"))
            }
        }
    }
}

/// The four-part evaluation of every gain map in a file.
enum GainMapParts {
    /// Evaluates each `tmap` item and the primary's Apple gain-map auxiliary image.
    /// - Returns: one result per gain map (sorted by kind) and the findings explaining each failed part.
    static func evaluate(_ file: HEIFFile) -> (results: [GainMapResult], findings: [Finding]) {
        var results: [GainMapResult] = []
        var findings: [Finding] = []
        func fail(_ code: String, _ msg: String, item: UInt32?, offset: Int? = nil) {
            findings.append(
                Finding(
                    code: code, severity: .error, message: msg,
                    evidence: Evidence(offset: offset.map { UInt64(max(0, $0)) }, item: item)))
        }
        let primary = file.primaryItemID
        for t in file.toneMapItems {
            // Description: the tmap derives from [base, gain map], both existing images, base the primary.
            var description = PartStatus.pass
            var gainMapItem: UInt32? = nil
            if let inputs = file.toneMapInputs(of: t), let base = file.item(inputs.base), let gm = file.item(inputs.gainMap),
                base.isImage, gm.isImage
            {
                gainMapItem = gm.id
                if inputs.base != primary {
                    description = .fail
                    fail(
                        "gainmap.dimg.invalid", "tmap \(t)'s base input is item \(inputs.base), not the primary",
                        item: t)
                }
            } else {
                description = .fail
                fail("gainmap.dimg.invalid", "tmap \(t) does not derive from [base, gain map] image items", item: t)
            }
            // Metadata: the ToneMapImage payload (ISO 21496-1 §C.2), version 0.
            var metadata = PartStatus.pass
            let body = file.payload(of: t)
            if body == nil || body!.isEmpty {
                metadata = .fail
                fail("gainmap.tmap.body-missing", "tmap \(t) has no payload", item: t)
            } else if body![0] != 0 {
                metadata = .fail
                fail("gainmap.tmap.version-unsupported", "tmap \(t) payload version \(body![0]) is not 0", item: t)
            }
            // Data: the gain-map image's coded data reachable through iloc.
            let data = dataPart(file, gainMapItem, fail: fail)
            // Colour space of the alternate rendition: colr on the tmap item.
            var colour = PartStatus.pass
            if file.colours(of: t).isEmpty {
                colour = .fail
                fail("gainmap.tmap.colr-missing", "tmap \(t) has no colr: the HDR rendition's colour space is undescribed", item: t)
            }
            results.append(
                GainMapResult(
                    kind: "iso", item: t, description: description, metadata: metadata, data: data, colourSpace: colour))
        }
        if let p = primary, let a = file.appleGainMap(of: p) {
            var description = PartStatus.pass
            if file.item(a)?.isImage != true || file.imageSize(of: a) == nil {
                description = .fail
                fail("gainmap.description.ispe-missing", "the Apple gain map item \(a) has no ispe", item: a)
            }
            var metadata = PartStatus.fail
            for x in file.metadataItems(describing: a) where file.item(x)?.isXMP == true {
                if let packet = file.payload(of: x),
                    Source.contains(packet, Array("http://ns.apple.com/HDRGainMap/1.0/".utf8))
                {
                    metadata = .pass
                }
            }
            if metadata == .fail {
                fail(
                    "gainmap.apple.xmp-missing",
                    "the Apple gain map item \(a) has no XMP with the HDRGainMap namespace (cdsc → \(a))", item: a)
            }
            let data = dataPart(file, a, fail: fail)
            let colour: PartStatus = file.colours(of: a).isEmpty ? .absent : .pass
            results.append(
                GainMapResult(
                    kind: "apple", item: a, description: description, metadata: metadata, data: data, colourSpace: colour))
        }
        return (results, findings)
    }

    static func dataPart(
        _ file: HEIFFile, _ item: UInt32?, fail: (String, String, UInt32?, Int?) -> Void
    ) -> PartStatus {
        guard let item else { return .fail }
        var ids = [item]
        if file.item(item)?.type == "grid" { ids = file.derivedInputs(of: item) }
        if ids.isEmpty {
            fail("gainmap.data-missing", "the gain map grid \(item) has no tiles", item, nil)
            return .fail
        }
        for id in ids {
            guard file.locations[id] != nil else {
                fail("gainmap.data-missing", "the gain map item \(id) has no iloc entry: its pixels are missing", id, nil)
                return .fail
            }
            guard let n = file.payloadLength(of: id), n > 0, file.payloadRanges(of: id) != nil else {
                fail("gainmap.data-missing", "the gain map item \(id)'s data is empty or outside the file", id, nil)
                return .fail
            }
        }
        return .pass
    }
}
