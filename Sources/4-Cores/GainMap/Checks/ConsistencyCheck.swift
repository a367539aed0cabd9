import Findings
import Foundation
import HEIF

extension GainMapInspector {
    /// The consistency part: agreement between the views of one gain map. For the ISO form: the `tmap` brand, the
    /// `dimg` [base, gain map], the `altr` order, no transform on the `tmap`, its `ispe` against the base's; for every
    /// form: the headrooms (ISO, Apple, Adobe) against each other, and the `auxl` link.
    enum ConsistencyCheck {
        static func run(_ r: GainMapReport, _ f: HEIFFile) -> Part {
            var part = Part()
            if r.isISO, let t = r.toneMapItemID {
                if f.brands?.contains("tmap") == true {
                    part.evidence.append("ftyp has the tmap brand")
                } else {
                    part.add(
                        .gainmapBrandMissing, "tmap item \(t) but no tmap brand in ftyp; readers ignore the gain map",
                        0)
                }
                derivation(&part, f, t)
                alternatives(&part, r, f, t)
                transforms(&part, f, t)
                toneMapSize(&part, r, f, t)
            }
            headrooms(&part, r, f)
            if r.forms.contains(.appleAux) || r.forms.contains(.otherAux), let g = r.gainMapItemID {
                let auxl = f.references(from: g, type: "auxl")
                if let a = auxl.first {
                    part.evidence.append("auxl \(g) → [\(a.to.map(String.init).joined(separator: ", "))]")
                }
            }
            return part
        }

        /// One `dimg` from the `tmap` to two distinct images, the first the primary.
        static func derivation(_ part: inout Part, _ f: HEIFFile, _ t: UInt32) {
            let dimgs = f.references(from: t, type: "dimg")
            let inputs = dimgs.first?.to ?? []
            let off = dimgs.first?.offset ?? f.item(t)?.offset
            if inputs.count != 2 || Set(inputs).count != 2 || inputs.contains(where: { f.item($0)?.isImage != true }) {
                part.add(
                    .gainmapDimgInvalid,
                    "tmap \(t) dimg is \(inputs); it must list two distinct images [base, gain map]", off)
            } else if dimgs.count > 1 {
                part.add(
                    .gainmapDimgInvalid, "tmap \(t) has \(dimgs.count) dimg boxes; one is allowed", dimgs[1].offset)
            } else if inputs[0] != f.primaryItemID {
                part.add(
                    .gainmapDimgInvalid, .warning,
                    "tmap \(t) base input \(inputs[0]) is not the primary item \(f.primaryItemID.map(String.init) ?? "none")",
                    off)
            } else {
                part.evidence.append("dimg \(t) → [\(inputs[0]), \(inputs[1])]")
            }
        }

        /// An `altr` group that lists the `tmap` before the base, or readers ignore the gain map.
        static func alternatives(_ part: inout Part, _ r: GainMapReport, _ f: HEIFFile, _ t: UInt32) {
            let groups = f.alternativeGroups(containing: t)
            guard let gr = groups.first(where: { $0.entities.contains(r.baseItemID) }) else {
                part.add(
                    .gainmapAltrMissing, "no altr group holds tmap \(t) and base \(r.baseItemID)", f.item(t)?.offset)
                return
            }
            let it = gr.entities.firstIndex(of: t)!
            let ib = gr.entities.firstIndex(of: r.baseItemID)!
            if it < ib {
                part.evidence.append("altr \(gr.id) [\(gr.entities.map(String.init).joined(separator: ", "))]")
            } else {
                part.add(
                    .gainmapAltrOrder,
                    "altr \(gr.id) lists base \(r.baseItemID) before tmap \(t); readers ignore the gain map", gr.offset)
            }
        }

        /// libavif read.c: irot/imir/clap/pasp belong on the base and the gain map, not on the tmap. A no-op irot 0
        /// (as iOS and Samsung write) changes nothing and is not reported.
        static func transforms(_ part: inout Part, _ f: HEIFFile, _ t: UInt32) {
            let transforms = f.properties(of: t).filter {
                switch $0.property {
                case .irot(let q): return q != 0
                case .imir, .clap, .pasp: return true
                default: return false
                }
            }
            if let first = transforms.first {
                part.add(
                    .gainmapTmapTransform,
                    "tmap \(t) carries \(transforms.map { $0.property.type.description }.joined(separator: ", ")); libavif rejects transforms on tmap (put them on base and gain map)",
                    f.propertyBoxes[first.index - 1].range?.lowerBound ?? f.item(t)?.offset)
            }
        }

        /// The `tmap`'s `ispe` equals the base's (or the base's after its rotation, as iOS writes it).
        static func toneMapSize(_ part: inout Part, _ r: GainMapReport, _ f: HEIFFile, _ t: UInt32) {
            guard let ts = f.imageSize(of: t) else {
                part.add(.gainmapTmapIspeMissing, "tmap \(t) has no ispe", f.item(t)?.offset)
                return
            }
            guard let bs = f.imageSize(of: r.baseItemID) else { return }
            if ts == bs {
                part.evidence.append("tmap ispe = base ispe \(bs.width)x\(bs.height)")
            } else if f.orientation(of: r.baseItemID).swapsAxes, ts.width == bs.height, ts.height == bs.width {
                part.evidence.append(
                    "tmap ispe \(ts.width)x\(ts.height) = base ispe after its rotation (as iOS writes it)")
            } else {
                part.add(
                    .gainmapTmapIspeMismatch,
                    "tmap ispe \(ts.width)x\(ts.height) differs from base ispe \(bs.width)x\(bs.height)",
                    propertyOffset(f, "ispe", t))
            }
        }

        /// The ISO alternate headroom against Apple's headroom and Adobe's HDRCapacityMax (within 0.05 stops).
        static func headrooms(_ part: inout Part, _ r: GainMapReport, _ f: HEIFFile) {
            guard let m = r.isoMetadata else { return }
            let ha = m.alternateHdrHeadroom.doubleValue
            if let h = r.appleHeadroom, h > 0 {
                let d = abs(log2(h) - ha)
                if d > 0.05 {
                    part.add(
                        .gainmapHeadroomMismatch,
                        "Apple headroom \(fmt(h)) = \(fmt(log2(h))) stops vs ISO alternate_hdr_headroom \(fmt(ha)) (Δ \(fmt(d)))",
                        r.toneMapItemID.flatMap { f.payloadRanges(of: $0)?.first?.lowerBound }.map { $0 + 14 })
                } else {
                    part.evidence.append("Apple headroom log2 \(fmt(log2(h))) ≈ ISO \(fmt(ha))")
                }
            }
            if let a = r.adobeXMP?.hdrCapacityMax {
                if abs(a - ha) > 0.05 {
                    part.add(
                        .gainmapHeadroomMismatch,
                        "hdrgm HDRCapacityMax \(fmt(a)) vs ISO alternate_hdr_headroom \(fmt(ha))", nil)
                } else {
                    part.evidence.append("hdrgm HDRCapacityMax \(fmt(a)) ≈ ISO \(fmt(ha))")
                }
            }
        }
    }
}
