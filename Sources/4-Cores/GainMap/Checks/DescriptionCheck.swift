import Findings
import HEIF

extension GainMapInspector {
    /// The description part: the gain-map item exists, is hidden, has `ispe`, `pixi` and a codec configuration
    /// (on every tile of a grid), and is 1, 1/2 or 1/4 of the base's size.
    enum DescriptionCheck {
        static func run(_ r: GainMapReport, _ f: HEIFFile) -> Part {
            var part = Part()
            guard let g = r.gainMapItem(in: f) else {
                let msg =
                    r.gainMapItemID.map { "gain-map item \($0) does not exist" }
                    ?? "tmap \(r.toneMapItemID ?? 0) names no gain-map input"
                let off =
                    r.toneMapItemID.flatMap { f.references(from: $0, type: "dimg").first?.offset }
                    ?? r.toneMapItemID.flatMap { f.item($0)?.offset }
                part.add(.gainmapDescriptionItemMissing, msg, off)
                return part
            }
            part.evidence.append(
                "item \(g.id) '\(g.type)'\(g.hidden ? " hidden" : "")\(r.auxiliaryType.map { ", auxC \($0)" } ?? "")")
            if !g.hidden {
                part.add(
                    .gainmapDescriptionNotHidden,
                    "gain-map item \(g.id) is not hidden; readers show it as an image of its own", g.offset)
            }
            if let s = f.imageSize(of: g.id) {
                part.evidence.append("ispe \(s.width)x\(s.height)")
            } else {
                part.add(.gainmapDescriptionIspeMissing, "gain-map item \(g.id) has no ispe", g.offset)
            }
            if case .pixi(let b)? = f.property("pixi", of: g.id) {
                part.evidence.append("pixi \(b.map(String.init).joined(separator: ","))")
            } else {
                part.add(.gainmapDescriptionPixiMissing, "gain-map item \(g.id) has no pixi", g.offset)
            }
            codecConfiguration(&part, g, f)
            size(&part, r, g, f)
            return part
        }

        /// `hvcC` or `av1C` on the item, or on every tile of a grid.
        static func codecConfiguration(_ part: inout Part, _ g: Item, _ f: HEIFFile) {
            let coded = g.type == "grid" ? f.derivedInputs(of: g.id) : [g.id]
            let withConfig = coded.filter { f.property("hvcC", of: $0) != nil || f.property("av1C", of: $0) != nil }
            if coded.isEmpty || withConfig.count != coded.count {
                part.add(
                    .gainmapDescriptionCodecConfigMissing,
                    g.type == "grid"
                        ? "\(coded.count - withConfig.count) of \(coded.count) tiles of grid \(g.id) lack hvcC/av1C"
                        : "gain-map item \(g.id) has no codec configuration (hvcC/av1C)", g.offset)
            } else {
                let chroma =
                    f.chromaFormat(of: g.id).map { ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][Swift.min($0, 3)] } ?? "?"
                let cfg = f.property("hvcC", of: coded[0]) != nil ? "hvcC" : "av1C"
                part.evidence.append(
                    g.type == "grid"
                        ? "\(cfg) on \(coded.count) tiles (\(chroma))"
                        : "\(cfg) (\(chroma), \(f.bitDepth(of: g.id) ?? 0)-bit)")
            }
        }

        /// The map's size against the base's: the same, 1/2 or 1/4 (within rounding).
        static func size(_ part: inout Part, _ r: GainMapReport, _ g: Item, _ f: HEIFFile) {
            guard let s = f.imageSize(of: g.id), let b = f.imageSize(of: r.baseItemID) else { return }
            if let k = [1, 2, 4].first(where: {
                plausible(Int(s.width), Int(b.width), $0) && plausible(Int(s.height), Int(b.height), $0)
            }) {
                part.evidence.append(
                    k == 1 ? "same size as base \(b.width)x\(b.height)" : "1/\(k) of base \(b.width)x\(b.height)")
            } else {
                part.add(
                    .gainmapDescriptionSizeImplausible,
                    "gain map \(s.width)x\(s.height) is not 1, 1/2 or 1/4 of base \(b.width)x\(b.height)",
                    propertyOffset(f, "ispe", g.id))
            }
        }
    }
}
