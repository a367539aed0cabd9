import Findings
import Foundation
import HEIF

extension GainMapInspector {
    /// The metadata part: a valid ISO 21496-1 `tmap` body; Apple's XMP (HDRGainMapVersion, headroom, or the
    /// MakerNote's headroom tags); another vendor's `hdrgm` XMP. What it reads is recorded on the report.
    enum MetadataCheck {
        static func run(_ r: inout GainMapReport, _ f: HEIFFile) -> Part {
            var part = Part()
            if r.isISO, let t = r.toneMapItemID { toneMap(&part, &r, f, t) }
            if let g = r.gainMapItem(in: f) {
                let xmps = f.metadataItems(describing: g.id).filter { f.item($0)?.isXMP == true }
                if r.forms.contains(.appleAux) { apple(&part, &r, f, g, xmps) }
                if r.forms.contains(.otherAux) { vendor(&part, &r, f, g, xmps) }
            }
            return part
        }

        /// The `tmap` body, its findings moved from body offsets to file offsets.
        static func toneMap(_ part: inout Part, _ r: inout GainMapReport, _ f: HEIFFile, _ t: UInt32) {
            guard let body = f.payload(of: t) else {
                part.add(.gainmapTmapBodyMissing, "tmap item \(t) has no readable body", f.item(t)?.offset)
                return
            }
            let d = ToneMapImage.decode(body)
            let base = f.payloadRanges(of: t)?.first?.lowerBound
            for var x in d.findings {
                x.offset = x.offset.flatMap { o in base.map { $0 + o } }
                part.findings.append(x)
            }
            if let m = d.image?.metadata {
                part.evidence.append(describe(m, bytes: body.count))
            }
            r.isoMetadata = d.usableMetadata
        }

        /// Apple's XMP on the gain map (version, headroom) and the MakerNote of the base's Exif.
        static func apple(_ part: inout Part, _ r: inout GainMapReport, _ f: HEIFFile, _ g: Item, _ xmps: [UInt32]) {
            let parsed = xmps.compactMap { id in f.xmp(of: id).map { (id, AppleGainMapXMP.parse($0)) } }
            let hit = parsed.first { $0.1.version != nil } ?? parsed.first { $0.1.declaresNamespace }
            r.appleXMP = hit?.1
            r.appleMakerNote =
                f.metadataItems(describing: r.baseItemID).lazy.filter { f.item($0)?.isExif == true }
                .compactMap { f.payload(of: $0).flatMap(AppleMakerNote.find(inExif:)) }.first
            if let (id, x) = hit {
                if let v = x.version {
                    part.evidence.append("XMP item \(id) → item \(g.id): HDRGainMapVersion \(v)")
                } else {
                    part.add(
                        .gainmapAppleVersionMissing, "XMP item \(id) on the gain map has no HDRGainMapVersion",
                        f.item(id)?.offset)
                }
                if let h = x.headroom {
                    part.evidence.append("HDRGainMapHeadroom \(h) (\(fmt(log2(h))) stops)")
                }
            } else {
                part.add(
                    .gainmapAppleXmpMissing,
                    xmps.isEmpty
                        ? "no XMP item describes (cdsc) the Apple gain map \(g.id)"
                        : "the XMP on gain map \(g.id) has no HDRGainMap properties", g.offset)
            }
            if r.appleXMP?.headroom == nil { makerNoteHeadroom(&part, r, g, xmpFound: hit != nil) }
        }

        /// Without an XMP headroom: the MakerNote's 0x0021/0x0030 pair gives it, one of them alone is a warning.
        static func makerNoteHeadroom(_ part: inout Part, _ r: GainMapReport, _ g: Item, xmpFound: Bool) {
            if let h = r.appleMakerNote?.headroom, let n = r.appleMakerNote {
                part.evidence.append(
                    "headroom from MakerNote 0x0021 \(fmt(n.hdrHeadroom!)) / 0x0030 \(fmt(n.hdrGain!)): \(fmt(h)) (\(fmt(log2(h))) stops)"
                )
            } else if let n = r.appleMakerNote, let a = n.hdrHeadroom ?? n.hdrGain {
                let which =
                    n.hdrHeadroom != nil
                    ? "0x0021 HDRHeadroom \(fmt(a)) without 0x0030 HDRGain"
                    : "0x0030 HDRGain \(fmt(a)) without 0x0021 HDRHeadroom"
                part.add(
                    .gainmapAppleHeadroomMissing, .warning,
                    "no HDRGainMapHeadroom in the XMP and only MakerNote \(which): readers fall back to defaults",
                    g.offset)
            } else if xmpFound {
                part.add(
                    .gainmapAppleHeadroomMissing,
                    "no HDRGainMapHeadroom in the XMP and no MakerNote tags 0x0021/0x0030 in the base's Exif",
                    g.offset)
            }
        }

        /// Another vendor's auxiliary map: Adobe `hdrgm` XMP (needed unless a `tmap` carries the metadata).
        static func vendor(_ part: inout Part, _ r: inout GainMapReport, _ f: HEIFFile, _ g: Item, _ xmps: [UInt32]) {
            let hit = xmps.lazy.compactMap { id in f.xmp(of: id).flatMap(AdobeGainMapXMP.parse).map { (id, $0) } }
                .first
            r.adobeXMP = hit?.1
            if let (id, x) = hit, let m = x.isoMetadata {
                part.evidence.append("hdrgm XMP item \(id) → item \(g.id): " + describe(m, bytes: nil))
            } else if !r.isISO {
                part.add(
                    .gainmapAuxMetadataMissing,
                    "no usable hdrgm XMP (Version, GainMapMax, HDRCapacityMax) describes the auxiliary gain map \(g.id)",
                    g.offset)
            }
        }
    }
}
