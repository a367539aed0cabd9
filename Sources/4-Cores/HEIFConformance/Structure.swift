import Findings
import HEIF

// The file-level rules of HEIF (ISO/IEC 23008-12) and MIAF (ISO/IEC 23000-22): brands, box versions, the order and
// content of `meta`, item protection, and where item bodies live. One code per rule; ComplianceWarden's heif and miaf
// rules with the same clause check the same conditions (docs/policy.md lists where Readback differs).
extension HEIFConformance {
    /// The brands whose presence as major brand asks for minor_version 0 (HEIF §10.1; MIAF and AVIF build on it).
    static let heifBrands: Set<FourCC> = [
        "mif1", "mif2", "msf1", "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "avci", "avcs", "jpeg",
        "jpgs", "vvic", "vvis", "j2ki", "j2is",
    ]

    static func structureProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        if let b = file.brands {
            if heifBrands.contains(b.major) && b.minorVersion != 0 {
                out.append(
                    problem(
                        .conformanceFtypMinorVersion, nil,
                        "ftyp's major brand is \(b.major) but minor_version is "
                            + "\(b.minorVersion)", clause: "HEIF ISO/IEC 23008-12 §10.1", expected: "0",
                        actual: "\(b.minorVersion)"))
            }
            let missing = (["mif1", "miaf"] as [FourCC]).filter { !b.compatible.contains($0) }
            if !missing.isEmpty {
                out.append(
                    problem(
                        .conformanceBrandMiafMissing, nil,
                        "ftyp's compatible brands lack \(missing.map(\.description).joined(separator: " and "))",
                        clause: "MIAF ISO/IEC 23000-22 §7.2.1.2", expected: "mif1, miaf",
                        actual: b.compatible.map(\.description).joined(separator: ", ")))
            }
        }
        guard let meta = file.boxes.first(where: { $0.type == "meta" }) else { return out + profileProblems(file) }
        out += boxVersionProblems(file, meta)
        if let first = meta.children.first, first.type != "hdlr" {
            out.append(
                problem(
                    .conformanceHdlrNotFirst, nil, "meta's first box is \(first.type), not hdlr",
                    clause: "MIAF ISO/IEC 23000-22 §7.2.1.1", expected: "hdlr", actual: first.type.description))
        }
        if let x = meta.children.first(where: { $0.type == "xml " || $0.type == "bxml" }) {
            out.append(
                problem(
                    .conformanceMetaXML, nil, "meta holds a '\(x.type)' box", clause: "MIAF ISO/IEC 23000-22 §7.2.1.4",
                    expected: "no xml or bxml", actual: x.type.description))
        }
        out += orderProblems(file)
        out += boxFieldProblems(file, meta)
        out += protectionProblems(file, meta)
        out += bodyPlacementProblems(file)
        out += profileProblems(file)
        return out
    }

    /// Box versions other than those HEIF §10.2.1.1 allows for `meta`, `hdlr`, `iloc`, `iinf`, `infe` and `pitm`.
    static func boxVersionProblems(_ file: HEIFFile, _ meta: Box) -> [Problem] {
        func version(_ b: Box) -> UInt8? {
            b.bodyRange.lowerBound < file.bytes.count && b.bodyRange.count >= 4
                ? file.bytes[b.bodyRange.lowerBound] : nil
        }
        let allowed: [FourCC: Set<UInt8>] = ["hdlr": [0], "iloc": [0, 1, 2], "iinf": [0, 1], "pitm": [0, 1]]
        var boxes: [(Box, Set<UInt8>)] = [(meta, [0])]
        for c in meta.children {
            if let a = allowed[c.type] { boxes.append((c, a)) }
            if c.type == "iinf" { boxes += c.children.filter { $0.type == "infe" }.map { ($0, [2, 3]) } }
        }
        return boxes.compactMap { box, ok in
            guard let v = version(box), !ok.contains(v) else { return nil }
            let list = ok.sorted().map(String.init).joined(separator: " or ")
            return problem(
                .conformanceBoxVersion, nil, "'\(box.type)' at offset \(box.offset) has version \(v)",
                clause: "HEIF ISO/IEC 23008-12 §10.2.1.1", expected: list, actual: "\(v)")
        }
    }

    /// iinf and ipma list items by increasing item_ID (ISO/IEC 14496-12 §8.11.6.1, §8.11.14.1); every decoder
    /// configuration is essential (HEIF §B.2.3.1, §E.2.3, §H.2.2).
    static func orderProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        let lists: [(FindingCode, String, [UInt32], String)] = [
            (.conformanceIinfOrder, "iinf", file.items.map(\.id), "ISO/IEC 14496-12 §8.11.6.1"),
            (.conformanceIpmaOrder, "ipma", file.associationOrder, "ISO/IEC 14496-12 §8.11.14.1"),
        ]
        for (code, box, ids, clause) in lists {
            if let i = ids.indices.dropLast().first(where: { ids[$0] >= ids[$0 + 1] }) {
                out.append(
                    problem(
                        code, nil, "\(box) lists item \(ids[i + 1]) after item \(ids[i])", clause: clause,
                        expected: "increasing item_ID", actual: "\(ids[i]), \(ids[i + 1])"))
            }
        }
        for it in file.items {
            for a in file.properties(of: it.id)
            where ["hvcC", "avcC", "jpgC"].contains(a.property.type) && !a.essential {
                out.append(
                    problem(
                        .conformanceConfigNotEssential, it.id, "its '\(a.property.type)' is not marked essential",
                        clause: "HEIF ISO/IEC 23008-12 §B.2.3.1, §E.2.3, §H.2.2", expected: "essential",
                        actual: "not essential"))
            }
        }
        return out
    }

    /// hdlr's fixed fields (ISO/IEC 14496-12 §8.4.3.1) and one ipma per version and flags (§8.11.14.1).
    static func boxFieldProblems(_ file: HEIFFile, _ meta: Box) -> [Problem] {
        var out: [Problem] = []
        if let h = meta.child("hdlr"), h.bodyRange.upperBound <= file.bytes.count, h.bodyRange.count >= 24 {
            let b = Array(file.bytes[h.bodyRange])
            var wrong: [String] = []
            if b[4..<8].contains(where: { $0 != 0 }) { wrong.append("pre_defined") }
            if b[12..<24].contains(where: { $0 != 0 }) { wrong.append("reserved") }
            if b.count == 24 || b.last != 0 { wrong.append("name without NUL") }
            if !wrong.isEmpty {
                out.append(
                    problem(
                        .conformanceHdlrFields, nil, "meta's hdlr has \(wrong.joined(separator: ", "))",
                        clause: "ISO/IEC 14496-12 §8.4.3.1",
                        expected: "zero pre_defined and reserved, a NUL-terminated name",
                        actual: wrong.joined(separator: ", ")))
            }
        }
        let ipmas = meta.child("iprp")?.children.filter { $0.type == "ipma" } ?? []
        let keys = ipmas.compactMap { b -> [UInt8]? in
            b.bodyRange.count >= 4 && b.bodyRange.upperBound <= file.bytes.count
                ? Array(file.bytes[b.bodyRange.prefix(4)]) : nil
        }
        if Set(keys).count < keys.count {
            out.append(
                problem(
                    .conformanceIpmaDuplicate, nil,
                    "iprp holds \(keys.count) ipma boxes, two with one version and flags",
                    clause: "ISO/IEC 14496-12 §8.11.14.1", expected: "one ipma per version and flags",
                    actual: "\(keys.count) ipma boxes"))
        }
        return out
    }

    /// Items that reference item protection, or an `ipro` box at all (MIAF §7.2.1.8).
    static func protectionProblems(_ file: HEIFFile, _ meta: Box) -> [Problem] {
        var out: [Problem] = []
        if meta.child("ipro") != nil {
            out.append(
                problem(
                    .conformanceItemProtected, nil, "meta holds an item protection box (ipro)",
                    clause: "MIAF ISO/IEC 23000-22 §7.2.1.8", expected: "no ipro", actual: "ipro"))
        }
        for it in file.items where it.protectionIndex != 0 {
            out.append(
                problem(
                    .conformanceItemProtected, it.id, "it references item protection entry \(it.protectionIndex)",
                    clause: "MIAF ISO/IEC 23000-22 §7.2.1.8", expected: "0", actual: "\(it.protectionIndex)"))
        }
        return out
    }

    /// Coded images' bodies in the file's `mdat` (construction method 0), derived images' with method 0 or 1, Exif
    /// and XMP in the `mdat` too (MIAF §7.2.1.7, §7.2.1.13).
    static func bodyPlacementProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        for it in file.items {
            guard let loc = file.locations[it.id] else { continue }
            let m = loc.constructionMethod
            if it.isImage
                && ((Item.derivedTypes.contains(it.type) && m > 1) || (!Item.derivedTypes.contains(it.type) && m != 0))
            {
                out.append(
                    problem(
                        .conformanceConstructionMethod, it.id, "'\(it.type)' item uses construction method \(m)",
                        clause: "MIAF ISO/IEC 23000-22 §7.2.1.7, §7.2.1.13",
                        expected: Item.derivedTypes.contains(it.type) ? "0 or 1" : "0", actual: "\(m)"))
            }
            if (it.isExif || it.isXMP) && !inMediaData(file, loc) {
                out.append(
                    problem(
                        .conformanceMetadataInIdat, it.id,
                        "its \(it.isExif ? "Exif" : "XMP") body is not in a MediaDataBox",
                        clause: "MIAF ISO/IEC 23000-22 §7.2.1.13", expected: "construction method 0, inside an mdat",
                        actual: "construction method \(m)"))
            }
        }
        return out
    }

    /// True when every extent of `loc` lies inside one of the file's `mdat` boxes.
    static func inMediaData(_ file: HEIFFile, _ loc: ItemLocation) -> Bool {
        guard loc.constructionMethod == 0 else { return false }
        return loc.extents.allSatisfy { e in
            let (s, o) = loc.baseOffset.addingReportingOverflow(e.offset)
            guard !o, s <= UInt64(Int.max) else { return false }
            let start = Int(s)
            let end = e.length == 0 ? start : start + Int(min(e.length, UInt64(Int.max - start)))
            return file.mdat.contains { $0.lowerBound <= start && end <= $0.upperBound }
        }
    }
}

// MIAF's HEVC profile brands (ISO/IEC 23000-22 Annex A): a file that claims one has only coded items that profile
// allows, read from each `hvcC`'s profile, chroma format and bit depth, at level 6 or lower.
extension HEIFConformance {
    /// Whether `c` is within the HEVC profile that `brand` names.
    static func allows(_ brand: FourCC, _ c: HEVCConfig) -> Bool {
        let p = c.generalProfileIDC
        switch brand {
        case "MiHB": return p == 1 || p == 3
        case "MiHA":
            return [1, 2, 3].contains(p) || (p == 4 && c.bitDepthLuma <= 10 && [1, 2].contains(c.chromaFormat))
        default: return [1, 2, 3].contains(p) || (p == 4 && c.bitDepthLuma <= 10)
        }
    }

    /// MIAF's HEVC profile brands: code, clause, what the profile allows.
    static let hevcProfileBrands: [(brand: FourCC, code: FindingCode, clause: String, allowed: String)] = [
        ("MiHB", .conformanceProfileMiHB, "§A.3", "HEVC Main or Main Still Picture"),
        ("MiHA", .conformanceProfileMiHA, "§A.4", "HEVC up to 4:2:2 10-bit"),
        ("MiHE", .conformanceProfileMiHE, "§A.5", "HEVC up to 4:4:4 10-bit or monochrome"),
    ]

    static func profileProblems(_ file: HEIFFile) -> [Problem] {
        guard let b = file.brands else { return [] }
        var out: [Problem] = []
        for (brand, code, clause, allowed) in hevcProfileBrands where b.compatible.contains(brand) {
            // One finding per brand, naming every item outside the profile (a phone's file has dozens of tiles).
            var outside: [(UInt32, String)] = []
            for it in file.items where it.type == "hvc1" {
                guard case .hvcC(let c)? = file.property("hvcC", of: it.id) else { continue }
                if !allows(brand, c) || c.generalLevelIDC > 180 {
                    outside.append(
                        (
                            it.id,
                            "profile \(c.generalProfileIDC) \(chromaName(c.chromaFormat)) \(c.bitDepthLuma)-bit "
                                + "level \(Double(c.generalLevelIDC) / 30)"
                        ))
                }
            }
            guard let first = outside.first else { continue }
            let kinds = Set(outside.map(\.1)).sorted().joined(separator: "; ")
            out.append(
                problem(
                    code, first.0,
                    "the file claims \(brand) but \(outside.count) coded item(s) are outside that "
                        + "profile (items \(outside.map { String($0.0) }.joined(separator: ", ")): \(kinds))",
                    clause: "MIAF ISO/IEC 23000-22 \(clause)", expected: "\(allowed), level 6 or lower", actual: kinds))
        }
        return out
    }

    static func chromaName(_ c: UInt8) -> String { ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][Int(min(c, 3))] }
}
