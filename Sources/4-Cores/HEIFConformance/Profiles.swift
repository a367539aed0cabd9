import Findings
import HEIF

// The rules on single properties that the other groups do not cover (`lsel` essential, `clli` and `mdcv` syntax and
// place) and the MIAF profile constraints beyond the HEVC profile brands: the grid limit every profile adopts
// (MIAF ISO/IEC 23000-22 §8.4) and the AVC basic profile's brand MiAB (§A.6).
extension HEIFConformance {
    /// The MIAF profile brands; each adopts the shared constraint "grid-limit" (§8.4).
    static let miafProfileBrands: Set<FourCC> = ["MiHB", "MiHA", "MiHE", "MiAB"]
    /// The pixel count past which a primary grid or overlay needs a smaller alternative (MIAF §8.4).
    static let gridLimitPixels: UInt64 = 128_000_000

    static func profileConstraintProblems(_ file: HEIFFile) -> [Problem] {
        singlePropertyProblems(file) + gridLimitProblems(file) + miabProblems(file) + miprProblems(file)
    }

    /// `lsel` marked essential (HEIF §6.5.11.1); `clli` of 12 bytes and `mdcv` of 32 (MIAF §7.4.4.2.2, §7.4.4.3.2)
    /// and each inside `ipco` (the still-image place; a sample entry is a track's, which Readback does not read).
    static func singlePropertyProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        for it in file.items {
            for a in file.properties(of: it.id) where a.property.type == "lsel" && !a.essential {
                out.append(
                    problem(
                        .conformanceLselNotEssential, it.id, "its 'lsel' is not marked essential",
                        clause: "HEIF ISO/IEC 23008-12 §6.5.11.1", expected: "essential", actual: "not essential"))
            }
        }
        let rules: [(FourCC, Int, FindingCode, String)] = [
            ("clli", 12, .conformanceClliInvalid, "§7.4.4.2.2"), ("mdcv", 32, .conformanceMdcvInvalid, "§7.4.4.3.2"),
        ]
        for (type, size, code, clause) in rules {
            for (box, parent) in boxesWithParents(file.boxes, parent: nil) where box.type == type {
                var wrong: [String] = []
                if box.size != size { wrong.append("\(box.size) bytes") }
                if parent != "ipco" { wrong.append("inside \(parent.map { "'\($0)'" } ?? "no box (top level)")") }
                guard !wrong.isEmpty else { continue }
                out.append(
                    problem(
                        code, nil, "a '\(type)' box at byte \(box.offset) has \(wrong.joined(separator: ", "))",
                        clause: "MIAF ISO/IEC 23000-22 \(clause)", expected: "\(size) bytes, inside ipco",
                        actual: wrong.joined(separator: ", ")))
            }
        }
        return out
    }

    /// Every box of the tree with its parent's type (nil at the top level), depth first.
    static func boxesWithParents(_ boxes: [Box], parent: FourCC?) -> [(Box, FourCC?)] {
        boxes.flatMap { [($0, parent)] + boxesWithParents($0.children, parent: $0.type) }
    }

    /// The pixels an image item stands for: the sum over its inputs for a grid or an overlay (MIAF §8.4's count),
    /// else its `ispe`.
    static func pixelCount(_ file: HEIFFile, _ id: UInt32) -> UInt64 {
        let type = file.item(id)?.type
        if type == "grid" || type == "iovl" {
            return file.derivedInputs(of: id).reduce(0) { s, i in
                s + (file.imageSize(of: i).map { UInt64($0.width) * UInt64($0.height) } ?? 0)
            }
        }
        return file.imageSize(of: id).map { UInt64($0.width) * UInt64($0.height) } ?? 0
    }

    /// MIAF §8.4, in a file with a MIAF profile brand: a grid or overlay that is the primary item, or an alternative
    /// of it, and whose inputs sum to more than 128 000 000 pixels needs an alternative of its type in its `altr`
    /// group, or a thumbnail, within that count; and the largest such alternative of its type at most a factor 200
    /// below the next larger one. (A thumbnail's factor is §7.3.3's, `conformance.thumbnail-ratio`.)
    static func gridLimitProblems(_ file: HEIFFile) -> [Problem] {
        guard let b = file.brands, !miafProfileBrands.isDisjoint(with: b.compatible), let p = file.primaryItemID
        else { return [] }
        let groups = file.alternativeGroups(containing: p)
        let inScope = [p] + groups.flatMap(\.entities).filter { $0 != p }
        var out: [Problem] = []
        for id in Set(inScope).sorted() {
            guard let type = file.item(id)?.type, type == "grid" || type == "iovl" else { continue }
            let count = pixelCount(file, id)
            guard count > gridLimitPixels else { continue }
            let siblings = Set(file.alternativeGroups(containing: id).flatMap(\.entities)).subtracting([id])
            let sameType = siblings.filter { file.item($0)?.type == type }.map { pixelCount(file, $0) }
            let thumbs = ([id] + siblings).flatMap { file.thumbnails(of: $0) }.map { pixelCount(file, $0) }
            let small = sameType.filter { $0 <= gridLimitPixels }.max()
            let what = "its '\(type)' stands for \(count) pixels"
            if small == nil && !thumbs.contains(where: { $0 <= gridLimitPixels }) {
                out.append(
                    problem(
                        .conformanceGridLimit, id, "\(what) and it has no alternative or thumbnail within 128 000 000",
                        clause: "MIAF ISO/IEC 23000-22 §8.4",
                        expected: "an alternative '\(type)' or a thumbnail of at most 128 000 000 pixels",
                        actual: "none"))
            } else if let s = small, s > 0 {
                let next = ([count] + sameType).filter { $0 > s }.min() ?? count
                if next > 200 * s {
                    out.append(
                        problem(
                            .conformanceGridLimit, id,
                            "\(what); its largest alternative within 128 000 000 has \(s), \(next / s)× fewer than "
                                + "the next larger", clause: "MIAF ISO/IEC 23000-22 §8.4",
                            expected: "at most a factor 200", actual: "\(next / s)×"))
                }
            }
        }
        return out
    }

    /// MiAB (MIAF §A.6.2): AVC-coded image items of AVC Progressive or Constrained High Profile (profile_idc 100, or
    /// a profile below it) at level 5.2 or lower.
    static func miabProblems(_ file: HEIFFile) -> [Problem] {
        guard let b = file.brands, b.compatible.contains("MiAB") else { return [] }
        var outside: [(UInt32, String)] = []
        for it in file.items where it.type == "avc1" {
            guard case .unknown(_, let c)? = file.property("avcC", of: it.id), c.count >= 4 else { continue }
            if c[1] > 100 || c[3] > 52 {
                outside.append((it.id, "profile_idc \(c[1]) level \(Double(c[3]) / 10)"))
            }
        }
        guard let first = outside.first else { return [] }
        let kinds = Set(outside.map(\.1)).sorted().joined(separator: "; ")
        return [
            problem(
                .conformanceProfileMiAB, first.0,
                "the file claims MiAB but \(outside.count) AVC item(s) are outside that profile (items "
                    + "\(outside.map { String($0.0) }.joined(separator: ", ")): \(kinds))",
                clause: "MIAF ISO/IEC 23000-22 §A.6",
                expected: "AVC Progressive or Constrained High (profile_idc 100 or lower), level 5.2 or lower",
                actual: kinds)
        ]
    }
}
