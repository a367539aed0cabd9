import Findings
import HEIF

// The progressive application brand MiPr (MIAF ISO/IEC 23000-22 §10.2): a file that claims it promises a reader
// something it can show early, from the first bytes of a download. ComplianceWarden reports the brand's conditions
// as one rule (miaf#44) that also repeats every clause 7 and 8 problem and reads the thumbnail order backwards; here
// each condition is its own code: the box order, the thumbnail before the primary, the 128 000-byte early data.
extension HEIFConformance {
    /// The bytes from the start of the file within which a thumbnail or the primary must end (§10.2).
    static let miprEarlyBytes = 128_000

    static func miprProblems(_ file: HEIFFile) -> [Problem] {
        guard let b = file.brands, b.compatible.contains("MiPr") || b.major == "MiPr" else { return [] }
        let clause = "MIAF ISO/IEC 23000-22 §10.2"
        var out: [Problem] = []
        // The top level: ftyp, at most one fidx, meta; no mdat before meta; at most one free, between meta and mdat.
        let top = file.boxes.map(\.type)
        var order: [String] = []
        let metaAt = top.firstIndex(of: "meta")
        if !(top.first == "ftyp" && (metaAt == 1 || (metaAt == 2 && top[1] == "fidx"))) {
            order.append("'meta' is not right after 'ftyp'")
        }
        if let m = metaAt, top[..<m].contains("mdat") { order.append("an 'mdat' comes before 'meta'") }
        let frees = top.indices.filter { top[$0] == "free" || top[$0] == "skip" }
        let firstMdat = top.firstIndex(of: "mdat")
        if frees.count > 1 { order.append("\(frees.count) top-level free-space boxes") }
        if frees.contains(where: { i in (metaAt.map { i < $0 } ?? true) || (firstMdat.map { i > $0 } ?? false) }) {
            order.append("a free-space box outside meta…mdat")
        }
        if !order.isEmpty {
            out.append(
                problem(
                    .conformanceMiPrBoxOrder, nil,
                    "the file claims MiPr but its top-level boxes are \(top.map(\.description).joined(separator: ", ")): "
                        + order.joined(separator: "; "),
                    clause: clause, expected: "ftyp, [fidx,] meta, [free,] mdat", actual: order.joined(separator: "; "))
            )
        }
        guard let primary = file.primaryItemID else { return out }
        let thumbnails = file.thumbnails(of: primary)
        // Each image's coded data, read once: the primary's and every thumbnail's file ranges.
        var data: [UInt32: [Range<Int>]] = [:]
        for id in [primary] + thumbnails { data[id] = codedDataRanges(file, id, depth: 0) }
        let primaryData = data[primary] ?? []
        if thumbnails.isEmpty {
            out.append(
                problem(
                    .conformanceMiPrThumbnail, primary, "the file claims MiPr but the primary has no thumbnail",
                    clause: clause, expected: "a thumbnail", actual: "none"))
        } else if let start = primaryData.map(\.lowerBound).min() {
            // Every thumbnail's coded data precedes the primary's in file order.
            let late = thumbnails.filter { t in (data[t] ?? []).contains { $0.upperBound > start } }
            if !late.isEmpty {
                out.append(
                    problem(
                        .conformanceMiPrThumbnail, primary,
                        "the file claims MiPr but the coded data of thumbnail(s) "
                            + late.map(String.init).joined(separator: ", ")
                            + " does not precede the primary's (byte \(start))",
                        clause: clause, expected: "thumbnails' data before byte \(start)",
                        actual: "items \(late.map(String.init).joined(separator: ", ")) end later"))
            }
        }
        // At least one thumbnail, or the primary itself, ends within the first 128 000 bytes.
        let ends = data.values.compactMap { $0.map(\.upperBound).max() }
        if let earliest = ends.min(), earliest > miprEarlyBytes {
            out.append(
                problem(
                    .conformanceMiPrEarlyData, primary,
                    "the file claims MiPr but no thumbnail and not the primary ends within the first 128 000 bytes "
                        + "(the earliest ends at byte \(earliest))",
                    clause: clause, expected: "≤ 128000", actual: "\(earliest)"))
        }
        return out
    }

    /// The file ranges of an image item's coded data: its own extents, or, for a derived item (grid, iden, iovl,
    /// tmap), its inputs' (bounded in depth, as the item graph may loop in a hostile file).
    static func codedDataRanges(_ file: HEIFFile, _ id: UInt32, depth: Int) -> [Range<Int>] {
        guard depth < 8, let item = file.item(id) else { return [] }
        switch item.type {
        case "grid", "iden", "iovl", "tmap":
            return file.derivedInputs(of: id).flatMap { codedDataRanges(file, $0, depth: depth + 1) }
        default:
            return file.payloadRanges(of: id) ?? []
        }
    }
}
