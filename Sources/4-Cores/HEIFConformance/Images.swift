import Findings
import HEIF

// The rules on image items and their properties: the primary item, thumbnails, pixi, pasp and the order of the
// transformative properties (HEIF ISO/IEC 23008-12 §6.2, §6.4.4; MIAF ISO/IEC 23000-22 §7.3).
extension HEIFConformance {
    static func imageProblems(_ file: HEIFFile) -> [Problem] {
        primaryProblems(file) + thumbnailProblems(file) + propertyProblems(file)
    }

    /// The primary item is a coded or derived image (HEIF §6.2) and a master image: not an auxiliary image nor a
    /// thumbnail (MIAF §7.3.2). A missing or dangling `pitm` is the container check's (container.pitm.*).
    static func primaryProblems(_ file: HEIFFile) -> [Problem] {
        guard let p = file.primaryItemID, let it = file.item(p) else { return [] }
        if !it.isImage {
            return [
                problem(
                    .conformancePrimaryNotImage, p, "the primary item is a '\(it.type)' item, not an image",
                    clause: "HEIF ISO/IEC 23008-12 §6.2", expected: "a coded or derived image item",
                    actual: it.type.description)
            ]
        }
        let role = ["auxl": "an auxiliary image", "thmb": "a thumbnail"] as [FourCC: String]
        for (type, name) in role.sorted(by: { $0.key.description < $1.key.description })
        where !file.references(from: p, type: type).isEmpty {
            return [
                problem(
                    .conformancePrimaryNotMaster, p, "the primary item is \(name) ('\(type)' reference)",
                    clause: "MIAF ISO/IEC 23000-22 §7.3.2", expected: "a master image", actual: name)
            ]
        }
        return []
    }

    /// No thumbnail of a thumbnail (HEIF §6.4.4); at most a factor 200 in pixels between a thumbnail and the next
    /// larger thumbnail or master (MIAF §7.3.3).
    static func thumbnailProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        let thumbs = file.references.filter { $0.type == "thmb" }
        let masters = Set(thumbs.flatMap(\.to))
        for r in thumbs where masters.contains(r.from) {
            out.append(
                problem(
                    .conformanceThumbnailChain, r.from, "it is a thumbnail of \(r.to) and has a thumbnail itself",
                    clause: "HEIF ISO/IEC 23008-12 §6.4.4", expected: "thmb to a master image",
                    actual: "thmb to thumbnail"))
        }
        func pixels(_ id: UInt32) -> Double? {
            guard case .ispe(let w, let h)? = file.property("ispe", of: id) else { return nil }
            return Double(w) * Double(h)
        }
        for m in masters.sorted() {
            guard let mp = pixels(m) else { continue }
            // The master and its thumbnails by pixel count: each against the next larger one.
            let ladder =
                (thumbs.filter { $0.to.contains(m) }.map(\.from).compactMap { t in pixels(t).map { (t, $0) } }
                + [(m, mp)]).sorted { $0.1 < $1.1 }
            for (a, b) in zip(ladder, ladder.dropFirst()) where a.1 > 0 && b.1 / a.1 > 200 {
                out.append(
                    problem(
                        .conformanceThumbnailRatio, a.0,
                        "the thumbnail has \(Int(a.1)) pixels, \(Int(b.1 / a.1))× fewer than item \(b.0)",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.3", expected: "a factor of 200 at most",
                        actual: "\(Int(b.1 / a.1))"))
            }
        }
        return out
    }

    /// Every displayable image has `pixi` (MIAF §7.3.6.6), no `pasp` other than 1:1 (MIAF §7.3.6.5), and its
    /// transformative properties in the order clap, irot, imir, each at most once (MIAF §7.3.6.7).
    static func propertyProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        // Every entity ipma lists, whether or not iinf does: a pasp says how its pixels are shown either way.
        for id in file.associationOrder {
            for case .pasp(let h, let v) in file.properties(of: id).map(\.property) where h != v {
                out.append(
                    problem(
                        .conformancePaspNotSquare, id, "its pixel aspect ratio is \(h):\(v)",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.6.5", expected: "1:1", actual: "\(h):\(v)"))
            }
        }
        for it in file.items where it.isImage {
            let props = file.properties(of: it.id).map(\.property)
            if !it.hidden && !props.contains(where: { $0.type == "pixi" }) {
                out.append(
                    problem(
                        .conformancePixiMissing, it.id, "the displayable '\(it.type)' item has no pixi",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.6.6", expected: "pixi", actual: "none"))
            }
            let order: [FourCC] = ["clap", "irot", "imir"]
            let transforms = props.map(\.type).filter { order.contains($0) }
            let ranks = transforms.compactMap { order.firstIndex(of: $0) }
            if zip(ranks, ranks.dropFirst()).contains(where: { $0 >= $1 }) {
                out.append(
                    problem(
                        .conformanceTransformOrder, it.id,
                        "its transformative properties are \(transforms.map(\.description).joined(separator: ", "))",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.6.7", expected: "clap, irot, imir (each at most once)",
                        actual: transforms.map(\.description).joined(separator: ", ")))
            }
        }
        return out
    }
}
