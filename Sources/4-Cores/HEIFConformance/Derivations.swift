import Findings
import HEIF

// The rules on derived images: grid and iovl versions, iden bodies and inputs, where derivation chains start and in
// which order derivations come (HEIF ISO/IEC 23008-12 §6.6; MIAF ISO/IEC 23000-22 §7.3.9, §7.3.11). Beyond the
// reference checker, the order knows ISO 21496-1: a `tmap` over [base, gain map] is the last derivation.
extension HEIFConformance {
    /// MIAF §7.3.11.1's derivation order, each step optional, then an ISO 21496-1 tone map.
    static let derivationOrder: [FourCC] = ["iden", "grid", "iden", "iovl", "iden", "tmap"]

    static func derivationProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        for it in file.items where it.type == "grid" || it.type == "iovl" {
            if let p = file.payload(of: it.id), let v = p.first, v != 0 {
                out.append(
                    problem(
                        .conformanceDerivedVersion, it.id, "its '\(it.type)' payload has version \(v)",
                        clause: it.type == "grid"
                            ? "HEIF ISO/IEC 23008-12 §6.6.2.3.3" : "HEIF ISO/IEC 23008-12 §6.6.2.2.3",
                        expected: "0", actual: "\(v)"))
            }
        }
        for it in file.items where it.type == "iden" {
            let inputs = file.derivedInputs(of: it.id)
            let body = file.payloadLength(of: it.id) ?? 0
            if inputs.count != 1 || body > 0 {
                out.append(
                    problem(
                        .conformanceIdenInputs, it.id,
                        "the iden item has \(inputs.count) dimg input(s) and a "
                            + "\(body)-byte body", clause: "HEIF ISO/IEC 23008-12 §6.6.2.1",
                        expected: "1 input, no body", actual: "\(inputs.count) input(s), \(body) bytes"))
            }
            if inputs.contains(where: { file.item($0)?.type == "iden" }) {
                out.append(
                    problem(
                        .conformanceIdenChain, it.id, "the iden item derives directly from another iden",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.9", expected: "a non-iden input", actual: "iden"))
            }
        }
        out += chainProblems(file)
        out += gridProblems(file)
        return out
    }

    /// Every derivation chain ends, without a cycle, at coded images (HEIF §6.6.2.3.1, MIAF §7.3.11.1), and its
    /// derivations come in MIAF's order.
    static func chainProblems(_ file: HEIFFile) -> [Problem] {
        let derived = file.items.filter { !file.derivedInputs(of: $0.id).isEmpty }.map(\.id)
        let inputs = Set(derived.flatMap { file.derivedInputs(of: $0) })
        var origin: [UInt32: String] = [:]
        var order: [UInt32: [FourCC]] = [:]
        // Walks down from `id`; `path` is the chain of items above it (top first).
        func walk(_ id: UInt32, _ path: [UInt32], top: UInt32) {
            if path.contains(id) || path.count > 16 {
                origin[top] = origin[top] ?? "cyclic through item \(id)"
                return
            }
            let next = file.derivedInputs(of: id)
            guard next.isEmpty else {
                for n in next { walk(n, path + [id], top: top) }
                return
            }
            let type = file.item(id)?.type
            if type == nil || !(file.item(id)?.isImage ?? false) || Item.derivedTypes.contains(type!) {
                origin[top] = origin[top] ?? "starts at item \(id) ('\(type?.description ?? "missing")')"
            }
            let types = path.reversed().compactMap { file.item($0)?.type }
            if order[top] == nil && !isInOrder(types) { order[top] = types }
        }
        for top in derived where !inputs.contains(top) || top == file.primaryItemID { walk(top, [], top: top) }
        var out: [Problem] = []
        for (top, why) in origin.sorted(by: { $0.key < $1.key }) {
            out.append(
                problem(
                    .conformanceDerivationOrigin, top, "its derivation chain \(why)",
                    clause: "HEIF ISO/IEC 23008-12 §6.6.2.3.1, MIAF ISO/IEC 23000-22 §7.3.11.1",
                    expected: "chains that start at coded images", actual: why))
        }
        for (top, types) in order.sorted(by: { $0.key < $1.key }) where origin[top] == nil {
            let chain = types.map(\.description).joined(separator: " → ")
            out.append(
                problem(
                    .conformanceDerivationOrder, top, "its derivations run coded → \(chain)",
                    clause: "MIAF ISO/IEC 23000-22 §7.3.11.1 (and ISO 21496-1 tmap last)",
                    expected: "coded → iden → grid → iden → iovl → iden → tmap, each optional", actual: chain))
        }
        return out
    }

    /// The coded item `id` is, or that a chain of iden items above it leads to; nil for other derived items.
    static func codedItem(_ file: HEIFFile, _ id: UInt32) -> UInt32? {
        var id = id
        for _ in 0..<16 {
            guard let it = file.item(id) else { return nil }
            if it.type != "iden" { return Item.derivedTypes.contains(it.type) ? nil : id }
            guard let next = file.derivedInputs(of: id).first else { return nil }
            id = next
        }
        return nil
    }

    /// True when `types` (bottom first) is a subsequence of ``derivationOrder``.
    static func isInOrder(_ types: [FourCC]) -> Bool {
        var i = 0
        for t in types {
            while i < derivationOrder.count && derivationOrder[i] != t { i += 1 }
            if i == derivationOrder.count { return false }
            i += 1
        }
        return true
    }

    /// A grid's tiles: one size (HEIF §6.6.2.3.1), at least 64×64 (MIAF §7.3.11.4.2), one coding format and decoder
    /// configuration, and sides that keep whole chroma samples (MIAF §7.3.11.4.1).
    static func gridProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        for g in file.items where g.type == "grid" {
            let tiles = file.derivedInputs(of: g.id)
            let sizes: [(UInt32, UInt32)] = tiles.compactMap {
                guard case .ispe(let w, let h)? = file.property("ispe", of: $0) else { return nil }
                return (w, h)
            }
            guard let (w, h) = sizes.first else { continue }
            if sizes.contains(where: { $0 != (w, h) }) {
                out.append(
                    problem(
                        .conformanceGridTileSizes, g.id, "its tiles are not all \(w)×\(h)",
                        clause: "HEIF ISO/IEC 23008-12 §6.6.2.3.1", expected: "\(w)×\(h)",
                        actual: Set(sizes.map { "\($0.0)×\($0.1)" }).sorted().joined(separator: ", ")))
            }
            if let layout = file.payload(of: g.id).flatMap(ImageGrid.parse),
                UInt64(w) * UInt64(layout.columns) < UInt64(layout.width)
                    || UInt64(h) * UInt64(layout.rows) < UInt64(layout.height)
            {
                out.append(
                    problem(
                        .conformanceGridCoverage, g.id,
                        "its \(layout.columns)×\(layout.rows) tiles of \(w)×\(h) do not cover \(layout.width)×\(layout.height)",
                        clause: "HEIF ISO/IEC 23008-12 §6.6.2.3.1",
                        expected: "at least \(layout.width)×\(layout.height)",
                        actual: "\(UInt64(w) * UInt64(layout.columns))×\(UInt64(h) * UInt64(layout.rows))"))
            }
            if w < 64 || h < 64 {
                out.append(
                    problem(
                        .conformanceGridTileSmall, g.id, "its tiles are \(w)×\(h)",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.11.4.2", expected: "at least 64×64", actual: "\(w)×\(h)"))
            }
            // The coded items under the tiles (an iden tile stands for its input); derived tiles are the derivation
            // order's to judge.
            let coded = tiles.compactMap { codedItem(file, $0) }
            let formats = Set(coded.compactMap { file.item($0)?.type })
            let configs = Set(
                coded.map { t in
                    file.properties(of: t).map(\.property).filter { $0.type == "hvcC" || $0.type == "av1C" }
                })
            if formats.count > 1 || configs.count > 1 {
                out.append(
                    problem(
                        .conformanceGridInputsDiffer, g.id,
                        "its tiles use \(formats.count) coding format(s) and \(configs.count) decoder configurations",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.11.4.1", expected: "one format, one configuration",
                        actual: "\(formats.count) format(s), \(configs.count) configurations"))
            }
            let chroma = tiles.first.flatMap { file.chromaFormat(of: $0) }
            if (chroma == 1 && (w % 2 != 0 || h % 2 != 0)) || (chroma == 2 && w % 2 != 0) {
                out.append(
                    problem(
                        .conformanceGridTileChroma, g.id,
                        "its \(chroma == 1 ? "4:2:0" : "4:2:2") tiles are \(w)×\(h), splitting a chroma sample",
                        clause: "MIAF ISO/IEC 23000-22 §7.3.11.4.1",
                        expected: chroma == 1 ? "even width and height" : "even width", actual: "\(w)×\(h)"))
            }
        }
        return out
    }
}
