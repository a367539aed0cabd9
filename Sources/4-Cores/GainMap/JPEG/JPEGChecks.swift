import Findings
import Foundation

/// The five parts of a JPEG gain map, judged as a HEIF's are, plus what only JPEG can get wrong: no MPF index, an
/// MPF offset past the end of the file, a declared image that is not there, a GContainer length that disagrees.
enum JPEGChecks {
    typealias Part = GainMapInspector.Part

    /// Where the gain-map image is and what its frame says.
    static func description(_ c: JPEGCheckContext) -> Part {
        var part = Part()
        part.evidence += c.signals.evidence
        let b = c.bytes
        if c.mpf == nil {
            part.add(
                .gainmapJpegMpfMissing,
                "the primary announces a gain map but has no MPF index: readers find no gain-map image", 0)
        } else if let m = c.mpf {
            part.evidence.append(
                "MPF (\(m.bigEndian ? "big" : "little")-endian) at \(m.segmentOffset): \(m.entries.count) image\(m.entries.count == 1 ? "" : "s")"
            )
        }
        if let e = c.candidate.mpfEntry, let k = c.candidate.entry {
            if e.fileOffset > b.count {
                part.add(
                    .gainmapJpegMpfOffsetPastEof,
                    "MPF image \(k + 1) starts at \(e.fileOffset), past the end of the \(b.count)-byte file",
                    c.mpf?.segmentOffset)
            } else if c.candidate.image == nil {
                part.add(
                    .gainmapJpegImageAbsent,
                    e.fileOffset == b.count
                        ? "the file ends where MPF image \(k + 1) should start (\(e.fileOffset)): the gain map is not there"
                        : "MPF image \(k + 1) at \(e.fileOffset) does not start with a JPEG SOI", e.fileOffset)
            }
        } else if c.candidate.image == nil {
            part.add(
                .gainmapJpegImageAbsent,
                c.mpf == nil
                    ? "the declared gain-map image is not in the file (nothing follows the primary)"
                    : "the MPF index lists no image besides the primary", c.mpf?.segmentOffset ?? 0)
        }
        guard let g = c.candidate.image else { return part }
        let at = c.candidate.entry.map { "MPF image \($0 + 1)" } ?? "JPEG after the primary"
        guard let w = g.width, let h = g.height else {
            part.add(.gainmapDescriptionIspeMissing, "\(at) at \(g.start) has no frame header (SOFn)", g.start)
            return part
        }
        part.evidence.append("\(at) at \(g.start): \(w)x\(h), \(g.components ?? 0) component(s)")
        if let bw = c.primary.width, let bh = c.primary.height {
            if let k = [1, 2, 4, 8].first(where: {
                GainMapInspector.plausible(w, bw, $0) && GainMapInspector.plausible(h, bh, $0)
            }) {
                part.evidence.append(k == 1 ? "same size as primary \(bw)x\(bh)" : "1/\(k) of primary \(bw)x\(bh)")
            } else {
                part.add(
                    .gainmapDescriptionSizeImplausible,
                    "gain map \(w)x\(h) is not 1, 1/2, 1/4 or 1/8 of primary \(bw)x\(bh)", g.start)
            }
        }
        return part
    }

    /// The gain map's parameters: ISO 21496-1 APP2 block, `hdrgm` XMP, Apple XMP (headroom also from the
    /// primary's MakerNote). The values read are recorded on the report.
    static func metadata(_ r: inout GainMapReport, _ c: JPEGCheckContext) -> Part {
        var part = Part()
        guard let g = c.candidate.image else {
            part.unverified = true
            part.evidence.append("no gain-map image to read")
            return part
        }
        if let iso = c.candidate.iso {
            // The JPEG block is the tmap body without its leading version byte.
            let d = ToneMapImage.decode([0] + iso.bytes)
            for var x in d.findings {
                x.evidence = Evidence(offset: x.offset.map { iso.offset + max(0, $0 - 1) })
                part.findings.append(x)
            }
            if let m = d.image?.metadata {
                part.evidence.append(
                    "ISO 21496-1 block at \(iso.offset): " + GainMapInspector.describe(m, bytes: iso.bytes.count))
            }
            r.isoMetadata = d.usableMetadata
        }
        if let x = c.candidate.hdrgm {
            r.adobeXMP = x
            if let m = x.isoMetadata {
                part.evidence.append("gain-map XMP hdrgm: " + GainMapInspector.describe(m, bytes: nil))
            } else if c.candidate.iso == nil {
                part.add(
                    .gainmapAuxMetadataMissing, "the gain map's hdrgm XMP lacks Version, GainMapMax or HDRCapacityMax",
                    g.start)
            }
        }
        if let a = c.candidate.apple {
            apple(&part, &r, a, c, g)
        }
        if !c.candidate.hasMetadata {
            part.add(
                .gainmapAuxMetadataMissing,
                "the gain-map image at \(g.start) carries no gain-map metadata (no hdrgm XMP, no ISO 21496-1 block)",
                g.start)
        }
        return part
    }

    /// Apple's XMP on the gain map; the headroom from it or from the primary's MakerNote.
    static func apple(
        _ part: inout Part, _ r: inout GainMapReport, _ a: AppleGainMapXMP, _ c: JPEGCheckContext, _ g: JPEGImageLayout
    ) {
        r.appleXMP = a
        r.appleMakerNote = JPEGScanner.exif(c.primary, c.bytes).flatMap(AppleMakerNote.find(inExif:))
        if let v = a.version {
            part.evidence.append("gain-map XMP HDRGainMapVersion \(v)")
        } else {
            part.add(.gainmapAppleVersionMissing, "the Apple gain map's XMP has no HDRGainMapVersion", g.start)
        }
        if let h = a.headroom {
            part.evidence.append("HDRGainMapHeadroom \(h) (\(GainMapInspector.fmt(log2(h))) stops)")
        } else if let h = r.appleMakerNote?.headroom {
            part.evidence.append(
                "headroom from the primary's MakerNote: \(GainMapInspector.fmt(h)) (\(GainMapInspector.fmt(log2(h))) stops)"
            )
        } else {
            part.add(
                .gainmapAppleHeadroomMissing,
                "no HDRGainMapHeadroom in the XMP and no MakerNote tags 0x0021/0x0030 in the primary's Exif", g.start)
        }
    }

    /// The coded pixels: all the bytes MPF promises, a scan, an EOI; with a decoder, not constant.
    static func data(_ c: JPEGCheckContext, _ decode: JPEGGainMapDecoder?) -> Part {
        var part = Part()
        guard let g = c.candidate.image else {
            part.add(.gainmapDataMissing, "there is no gain-map image, so no gain-map data", nil)
            return part
        }
        let b = c.bytes
        if let e = c.candidate.mpfEntry, e.fileOffset + e.size > b.count {
            part.add(
                .gainmapDataMissing,
                "the gain-map image is truncated: MPF gives \(e.size) bytes at \(e.fileOffset), the file ends at \(b.count)",
                b.count)
            return part
        }
        guard g.hasScan, let end = g.end else {
            part.add(
                .gainmapDataMissing,
                g.hasScan ? "the gain-map image has no EOI: truncated" : "the gain-map image has no scan (SOS)",
                g.start)
            return part
        }
        part.evidence.append("\(end - g.start) bytes from SOI to EOI")
        guard let decode else {
            part.unverified = true
            part.evidence.append("present, not decoded")
            return part
        }
        let plane: DecodedPlane?
        do { plane = try decode(Array(b[g.start..<end])) } catch {
            part.add(.gainmapDataUndecodable, "the gain-map JPEG does not decode: \(error)", g.start)
            return part
        }
        guard let p = plane, let first = p.samples.first else {
            part.add(.gainmapDataUndecodable, "the gain-map JPEG decoded to nothing", g.start)
            return part
        }
        let lo = p.samples.min() ?? first
        let hi = p.samples.max() ?? first
        part.evidence.append("decoded \(p.width)x\(p.height) \(p.bitDepth)-bit, samples \(lo)…\(hi)")
        if lo == hi {
            part.add(
                .gainmapDataConstant, "the gain map is constant (every sample \(lo)): it carries no HDR", g.start)
        }
        return part
    }

    /// Colour: what ICC profiles the primary and the gain map carry, and the ISO colour-space flag.
    static func colour(_ c: JPEGCheckContext) -> Part {
        var part = Part()
        func icc(_ l: JPEGImageLayout) -> String {
            let n = l.payloads("APP2 ICC", in: c.bytes).reduce(0) { $0 + max(0, $1.count - 14) }
            return n > 0 ? "ICC \(n) bytes" : "no ICC (sRGB assumed)"
        }
        part.evidence.append("primary: \(icc(c.primary))")
        if let g = c.candidate.image {
            part.evidence.append("gain map: \(icc(g)), \(g.components == 1 ? "one channel" : "three channels")")
        }
        if let iso = c.candidate.iso, let m = ToneMapImage.decode([0] + iso.bytes).image?.metadata {
            part.evidence.append(
                m.useBaseColorSpace
                    ? "the map applies in the base's colour space" : "the map applies in the alternate's")
        }
        return part
    }

    /// Agreement between the views: the primary announces what the image carries, GContainer's length matches
    /// MPF's, the headrooms of two forms agree.
    static func consistency(_ r: GainMapReport, _ c: JPEGCheckContext) -> Part {
        var part = Part()
        let cand = c.candidate
        if cand.image != nil, cand.apple == nil, !c.signals.declared {
            part.add(
                .gainmapJpegPrimarySignalMissing,
                "the gain-map image carries \(cand.iso != nil ? "an ISO 21496-1 block" : "hdrgm XMP") but the primary has neither hdrgm XMP nor an ISO 21496-1 block",
                0)
        }
        if let n = c.signals.containerGainMapLength, let e = cand.mpfEntry, n != e.size {
            part.add(
                .gainmapJpegXmpLengthMismatch, "GContainer Item:Length \(n) vs MPF size \(e.size) of the gain map",
                c.mpf?.segmentOffset)
        } else if let n = c.signals.containerGainMapLength {
            part.evidence.append("GContainer Item:Length \(n) agrees with MPF")
        }
        if let m = r.isoMetadata, let a = r.adobeXMP?.hdrCapacityMax {
            let ha = m.alternateHdrHeadroom.doubleValue
            let hb = m.baseHdrHeadroom.doubleValue
            // A base that is HDR puts the capacity in the base headroom.
            let iso = (r.adobeXMP?.baseRenditionIsHDR ?? false) ? hb : ha
            if abs(a - iso) > 0.05 {
                part.add(
                    .gainmapHeadroomMismatch,
                    "hdrgm HDRCapacityMax \(GainMapInspector.fmt(a)) vs ISO headroom \(GainMapInspector.fmt(iso))",
                    cand.iso?.offset)
            } else {
                part.evidence.append(
                    "hdrgm HDRCapacityMax \(GainMapInspector.fmt(a)) ≈ ISO \(GainMapInspector.fmt(iso))")
            }
        }
        return part
    }
}
