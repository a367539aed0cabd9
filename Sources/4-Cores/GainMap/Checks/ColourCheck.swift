import Findings
import HEIF

extension GainMapInspector {
    /// The colour part: a `colr` on an ISO gain map (libavif expects nclx; Apple and vendor maps are untagged), and
    /// an nclx or ICC `colr` on the `tmap` for the alternate rendition.
    enum ColourCheck {
        static func run(_ r: GainMapReport, _ f: HEIFFile) -> Part {
            var part = Part()
            if let g = r.gainMapItem(in: f) {
                let cs = f.colours(of: g.id)
                if cs.isEmpty {
                    if r.isISO {
                        part.add(
                            .gainmapColrMissing, "gain-map item \(g.id) has no colr (libavif expects nclx)",
                            g.offset)
                    } else {
                        part.evidence.append(
                            "gain map untagged (no colr), as \(r.forms.contains(.appleAux) ? "iOS" : "the vendor") writes it"
                        )
                    }
                } else {
                    part.evidence.append("gain map colr " + cs.map(describe).joined(separator: " + "))
                }
            }
            if r.isISO, let t = r.toneMapItemID {
                let cs = f.colours(of: t)
                if cs.isEmpty {
                    part.add(
                        .gainmapTmapColrMissing, "tmap \(t) has no colr (nclx or ICC) for the alternate rendition",
                        f.item(t)?.offset)
                } else {
                    part.evidence.append("alternate (tmap) colr " + cs.map(describe).joined(separator: " + "))
                }
                if case .clli(let a, let b)? = f.property("clli", of: t) {
                    part.evidence.append("alternate clli \(a)/\(b)")
                }
            }
            return part
        }
    }
}
