import Findings
import Foundation

/// The `readback inspect` view of a file: a summary for people (`text`) and a versioned machine form (`json`).
///
/// The JSON carries `schemaVersion` (readers check it first) and is written with sorted keys, so the same file
/// always gives the same bytes.
public struct Inspection: Codable, Sendable {
    /// Bumped when a key changes meaning or disappears. Version 2: finding codes are the catalogue's
    /// (`container.iloc.extent-past-eof`, formerly `iloc.extentPastEOF`; docs/report-schema.md lists the renames).
    public static let schemaVersion = 2

    public struct BrandSummary: Codable, Sendable {
        public var major: String
        public var minorVersion: UInt32
        public var compatible: [String]
    }

    public struct PropertySummary: Codable, Sendable {
        public var index: Int
        public var type: String
        public var essential: Bool
        /// Short human form, e.g. `ispe 4032×3024`, `colr nclx 9/16/9 full`.
        public var summary: String
    }

    public struct ReferenceSummary: Codable, Sendable {
        public var type: String
        public var to: [UInt32]
    }

    public struct ItemSummary: Codable, Sendable {
        public var id: UInt32
        public var type: String
        public var name: String
        public var hidden: Bool
        public var contentType: String?
        public var bytes: Int?
        public var properties: [PropertySummary]
        public var references: [ReferenceSummary]
        public var auxiliaryType: String?
    }

    public struct PrimarySummary: Codable, Sendable {
        public var id: UInt32
        public var type: String
        public var width: UInt32?
        public var height: UInt32?
        public var bitDepth: Int?
        public var chroma: String?
        public var colour: [String]
        /// EXIF-style orientation 1–8 from irot/imir.
        public var orientation: Int
        /// Rows × columns for a grid primary.
        public var grid: String?
        /// The size shown: `ispe` after the item's own `clap` and `irot` (ISO/IEC 23008-12 §6.5.3, §6.5.9, §6.5.10).
        public var displayWidth: UInt32?
        public var displayHeight: UInt32?
    }

    /// An auxiliary image (`auxl` + `auxC`): alpha, depth, a gain map, a matte.
    public struct AuxiliarySummary: Codable, Sendable {
        public var id: UInt32
        public var urn: String
        /// The images it belongs to (its `auxl` targets).
        public var of: [UInt32]
    }

    public struct GainMapSummary: Codable, Sendable {
        /// `apple-aux` (auxl + auxC hdrgainmap URN), `aux` (another vendor's hdrgainmap URN) or `iso-tmap`.
        public var kind: String
        /// The gain map image item.
        public var gainMap: UInt32
        /// The image it belongs to (auxl target, or tmap dimg[0]).
        public var base: UInt32?
        /// The tmap item for `iso-tmap`.
        public var tmap: UInt32?
        public var urn: String?
        public var width: UInt32?
        public var height: UInt32?
        public var bitDepth: Int?
        public var chroma: String?
        /// For `iso-tmap`: the tmap payload length and its version byte.
        public var payloadBytes: Int?
        public var payloadVersion: Int?
        /// For `iso-tmap`: the altr group that lists [tmap, base], if any.
        public var altrGroup: UInt32?
    }

    public struct MetadataSummary: Codable, Sendable {
        public var id: UInt32
        /// `Exif`, `XMP` or the item type / content type.
        public var kind: String
        public var bytes: Int?
        public var describes: [UInt32]
    }

    public struct GroupSummary: Codable, Sendable {
        public var type: String
        public var id: UInt32
        public var entities: [UInt32]
    }

    public struct BoxSummary: Codable, Sendable {
        public var type: String
        public var offset: Int
        public var size: Int
        public var headerSize: Int
        public var truncated: Bool
        public var children: [BoxSummary]?
    }

    /// A container finding as the JSON form writes it, flat: `{code, severity, message, offset?}`.
    public struct FindingSummary: Codable, Sendable, CustomStringConvertible {
        public var code: FindingCode
        public var severity: Severity
        public var message: String
        public var offset: Int?

        init(_ f: Finding) {
            code = f.code
            severity = f.severity
            message = f.message
            offset = f.offset
        }

        /// The summary's line: the finding's own description.
        public var description: String {
            Finding(code: code, severity: severity, message: message, evidence: Evidence(offset: offset)).description
        }
    }

    public var schemaVersion: Int
    public var file: String
    public var fileBytes: Int
    public var brands: BrandSummary?
    public var primary: PrimarySummary?
    public var items: [ItemSummary]
    public var gainMaps: [GainMapSummary]
    public var metadata: [MetadataSummary]
    public var groups: [GroupSummary]
    /// Every auxiliary image, as the text view's "auxiliary images" lists them.
    public var auxiliaryImages: [AuxiliarySummary]
    public var findings: [FindingSummary]
    public var boxes: [BoxSummary]?

    /// Builds the view of a parsed file.
    /// - Parameters:
    ///   - file: the parsed file.
    ///   - name: what to call it (a path or file name).
    ///   - includeBoxes: include the full box tree.
    public init(file f: HEIFFile, name: String = "", includeBoxes: Bool = false) {
        schemaVersion = Inspection.schemaVersion
        self.file = name
        fileBytes = f.bytes.count
        brands = f.brands.map {
            BrandSummary(
                major: $0.major.description, minorVersion: $0.minorVersion, compatible: $0.compatible.map(\.description)
            )
        }
        items = f.items.map { it in
            ItemSummary(
                id: it.id, type: it.type.description, name: it.name, hidden: it.hidden, contentType: it.contentType,
                bytes: f.payloadLength(of: it.id),
                properties: f.properties(of: it.id).map {
                    PropertySummary(
                        index: $0.index, type: $0.property.type.description, essential: $0.essential,
                        summary: Inspection.describe($0.property))
                },
                references: f.references(from: it.id).map { ReferenceSummary(type: $0.type.description, to: $0.to) },
                auxiliaryType: f.auxiliaryType(of: it.id))
        }
        primary = f.primaryItem.map { Inspection.primarySummary(f, $0) }
        auxiliaryImages = Inspection.auxiliaries(f)
        var gms: [GainMapSummary] = []
        func gainMapSummary(kind: String, gm: UInt32, base: UInt32?) -> GainMapSummary {
            let s = f.imageSize(of: gm)
            return GainMapSummary(
                kind: kind, gainMap: gm, base: base, tmap: nil, urn: f.auxiliaryType(of: gm), width: s?.width,
                height: s?.height,
                bitDepth: f.bitDepth(of: gm), chroma: f.chromaFormat(of: gm).map(Inspection.chromaName),
                payloadBytes: nil,
                payloadVersion: nil, altrGroup: nil)
        }
        for it in f.items where it.isImage {
            for r in f.references(from: it.id, type: "auxl") {
                guard let urn = f.auxiliaryType(of: it.id), urn.lowercased().contains("gainmap") else { continue }
                gms.append(
                    gainMapSummary(
                        kind: urn == HEIFFile.appleGainMapURN ? "apple-aux" : "aux", gm: it.id, base: r.to.first))
            }
        }
        for t in f.toneMapItems {
            let d = f.derivedInputs(of: t)
            var s = gainMapSummary(kind: "iso-tmap", gm: d.count > 1 ? d[1] : 0, base: d.first)
            s.tmap = t
            s.urn = d.count > 1 ? f.auxiliaryType(of: d[1]) : nil
            let payload = f.payload(of: t)
            s.payloadBytes = payload?.count
            s.payloadVersion = payload?.first.map(Int.init)
            s.altrGroup =
                f.groups.first { g in
                    guard g.type == "altr", let i = g.entities.firstIndex(of: t), let b = d.first,
                        let j = g.entities.firstIndex(of: b)
                    else { return false }
                    return i < j
                }?.id
            gms.append(s)
        }
        gainMaps = gms
        metadata = f.items.filter {
            !$0.isImage && !f.references(from: $0.id, type: "cdsc").isEmpty || $0.isExif || $0.isXMP
        }.map { it in
            MetadataSummary(
                id: it.id, kind: it.isExif ? "Exif" : it.isXMP ? "XMP" : (it.contentType ?? it.type.description),
                bytes: f.payloadLength(of: it.id), describes: f.described(by: it.id))
        }
        groups = f.groups.map { GroupSummary(type: $0.type.description, id: $0.id, entities: $0.entities) }
        findings = f.findings.map(FindingSummary.init)
        boxes = includeBoxes ? f.boxes.map(Inspection.boxSummary) : nil
    }

    static func boxSummary(_ b: Box) -> BoxSummary {
        BoxSummary(
            type: b.type.description, offset: b.offset, size: b.size, headerSize: b.headerSize, truncated: b.truncated,
            children: b.children.isEmpty ? nil : b.children.map(boxSummary))
    }

    /// `4:0:0`, `4:2:0`, `4:2:2`, `4:4:4`.
    public static func chromaName(_ c: Int) -> String {
        ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][max(0, min(3, c))]
    }

    /// The primary's summary: coded size, shown size, depth, chroma, colour, orientation, grid.
    static func primarySummary(_ f: HEIFFile, _ p: Item) -> PrimarySummary {
        let size = f.imageSize(of: p.id)
        let g = f.grid(of: p.id)
        var s = PrimarySummary(
            id: p.id, type: p.type.description, width: size?.width, height: size?.height,
            bitDepth: f.bitDepth(of: p.id),
            chroma: f.chromaFormat(of: p.id).map(Inspection.chromaName),
            colour: f.colours(of: p.id).map(Inspection.describe),
            orientation: f.orientation(of: p.id).exif, grid: g.map { "\($0.rows)×\($0.columns)" })
        let shown = f.displaySize(of: p.id)
        s.displayWidth = shown?.width
        s.displayHeight = shown?.height
        return s
    }

    /// Every auxiliary image of `f` with its URN and the images it belongs to.
    static func auxiliaries(_ f: HEIFFile) -> [AuxiliarySummary] {
        f.items.compactMap { it in
            f.auxiliaryType(of: it.id).map {
                AuxiliarySummary(id: it.id, urn: $0, of: f.references(from: it.id, type: "auxl").flatMap(\.to))
            }
        }
    }

    /// A short human form of a property.
    public static func describe(_ p: Property) -> String {
        switch p {
        case .ispe(let w, let h): return "ispe \(w)×\(h)"
        case .pixi(let b): return "pixi \(b.map(String.init).joined(separator: ","))"
        case .colrNCLX(let n):
            return
                "colr nclx \(n.colourPrimaries)/\(n.transferCharacteristics)/\(n.matrixCoefficients) \(n.fullRange ? "full" : "limited")"
        case .colrICC(let t, let prof): return "colr \(t) \(prof.count) B"
        case .irot(let q): return "irot \(Int(q) * 90)°"
        case .imir(let a): return "imir \(a == 0 ? "top-bottom" : "left-right")"
        case .clap(let c):
            return "clap \(c.widthD == 0 ? 0 : c.widthN / c.widthD)×\(c.heightD == 0 ? 0 : c.heightN / c.heightD)"
        case .pasp(let h, let v): return "pasp \(h):\(v)"
        case .auxC(let urn, _): return "auxC \(urn)"
        case .hvcC(let c):
            let profile =
                [1: "Main", 2: "Main 10", 3: "Main Still", 4: "RExt"][Int(c.generalProfileIDC)]
                ?? "profile \(c.generalProfileIDC)"
            return "hvcC \(profile) \(chromaName(Int(c.chromaFormat))) \(c.bitDepthLuma)-bit"
        case .av1C(let c):
            let chroma =
                c.monochrome ? "4:0:0" : c.chromaSubsamplingX ? (c.chromaSubsamplingY ? "4:2:0" : "4:2:2") : "4:4:4"
            return "av1C profile \(c.seqProfile) \(chroma) \(c.bitDepth)-bit"
        case .clli(let a, let b): return "clli \(a)/\(b) cd/m²"
        case .mdcv(let m): return "mdcv \(Double(m.maxLuminance) / 10000)/\(Double(m.minLuminance) / 10000) cd/m²"
        case .unknown(let t, let body): return "\(t) \(body.count) B"
        }
    }

    /// The versioned JSON form, keys sorted.
    public func json() -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let d = try? enc.encode(self) else { return "{}" }
        return String(decoding: d, as: UTF8.self) + "\n"
    }

    /// The summary for people: brands, primary, items (runs of alike tiles folded), gain maps, metadata, groups,
    /// findings; with `boxes`, the box tree after it.
    public func text(boxes showBoxes: Bool = false) -> String {
        var out: [String] = []
        out.append("\(file.isEmpty ? "file" : file): \(fileBytes) bytes")
        if let b = brands {
            out.append("brands: \(b.major) (compatible: \(b.compatible.joined(separator: ", ")))")
        } else {
            out.append("brands: none (no ftyp)")
        }
        out.append(primaryLine)
        out += itemLines + gainMapLines + metadataLines
        let auxAll = auxiliaryImages.map { "\($0.id) \($0.urn)" }
        if !auxAll.isEmpty {
            out.append("auxiliary images:")
            for a in auxAll { out.append("  \(a)") }
        }
        if groups.isEmpty {
            out.append("groups: none")
        } else {
            out.append("groups:")
            for g in groups {
                out.append("  \(g.type) \(g.id): [\(g.entities.map(String.init).joined(separator: ", "))]")
            }
        }
        out += findingLines
        if showBoxes, let bx = boxes {
            out.append("boxes:")
            func walk(_ b: BoxSummary, _ depth: Int) {
                out.append(
                    String(repeating: "  ", count: depth + 1)
                        + "\(b.type) @\(b.offset) size \(b.size)\(b.truncated ? " TRUNCATED" : "")")
                for c in b.children ?? [] { walk(c, depth + 1) }
            }
            for b in bx { walk(b, 0) }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The text view's primary line: type, size, grid, depth, chroma, colour, orientation.
    private var primaryLine: String {
        guard let p = primary else { return "primary: none" }
        var s = "primary: item \(p.id) \(p.type)"
        if let w = p.width, let h = p.height {
            s += " \(w)×\(h)"
            if let dw = p.displayWidth, let dh = p.displayHeight, dw != w || dh != h { s += " (shown \(dw)×\(dh))" }
        }
        if let g = p.grid { s += " (grid \(g) tiles)" }
        if let d = p.bitDepth { s += ", \(d)-bit" }
        if let c = p.chroma { s += " \(c)" }
        s += ", colour: " + (p.colour.isEmpty ? "none" : p.colour.joined(separator: " + "))
        s += ", orientation \(p.orientation)"
        return s
    }

    /// The text view's item list: one line per item, runs of three or more alike items (tiles) folded into one.
    private var itemLines: [String] {
        var out = ["items (\(items.count)):"]
        var i = 0
        while i < items.count {
            let it = items[i]
            let sig = Inspection.signature(it)
            var j = i + 1
            while j < items.count && Inspection.signature(items[j]) == sig { j += 1 }
            if j - i >= 3 {
                let total = items[i..<j].reduce(0) { $0 + ($1.bytes ?? 0) }
                out.append(
                    "  \(it.id)…\(items[j - 1].id)  \(it.type) ×\(j - i)\(it.hidden ? " hidden" : "")  \(total) B total  \(Inspection.props(it))"
                )
                i = j
                continue
            }
            var s = "  \(it.id)  \(it.type)"
            if it.hidden { s += " hidden" }
            if !it.name.isEmpty { s += " \"\(it.name)\"" }
            if let ct = it.contentType { s += " \(ct)" }
            s += "  " + (it.bytes.map { "\($0) B" } ?? "no data")
            let pr = Inspection.props(it)
            if !pr.isEmpty { s += "  " + pr }
            if !it.references.isEmpty {
                s += "  " + it.references.map { "\($0.type)→\(Inspection.idList($0.to))" }.joined(separator: " ")
            }
            out.append(s)
            i += 1
        }
        return out
    }

    /// The text view's gain maps: one line each, ISO 21496-1 `tmap` or auxiliary image.
    private var gainMapLines: [String] {
        guard !gainMaps.isEmpty else { return ["gain maps: none"] }
        return ["gain maps:"] + gainMaps.map(Inspection.gainMapLine)
    }

    private static func gainMapLine(_ g: GainMapSummary) -> String {
        var s = "  "
        let dims = [
            g.width.flatMap { w in g.height.map { "\(w)×\($0)" } }, g.bitDepth.map { "\($0)-bit" }, g.chroma,
        ].compactMap { $0 }.joined(separator: " ")
        switch g.kind {
        case "iso-tmap":
            s +=
                "ISO 21496-1 tmap item \(g.tmap ?? 0): dimg [base \(g.base.map(String.init) ?? "?"), gain map \(g.gainMap)]"
            if !dims.isEmpty { s += " (\(dims))" }
            s += ", payload \(g.payloadBytes.map { "\($0) B" } ?? "unreadable")"
            if let v = g.payloadVersion { s += " version \(v)" }
            s += g.altrGroup.map { ", altr group \($0) [tmap, base]" } ?? ", no altr [tmap, base]"
            if let u = g.urn { s += ", gain map is aux \(u)" }
        default:
            s +=
                "\(g.kind == "apple-aux" ? "Apple aux" : "aux") item \(g.gainMap) → auxl \(g.base.map(String.init) ?? "?")"
            if !dims.isEmpty { s += " (\(dims))" }
            s += ", \(g.urn ?? "")"
        }
        return s
    }

    /// The text view's metadata items (Exif, XMP) and what they describe.
    private var metadataLines: [String] {
        guard !metadata.isEmpty else { return ["metadata: none"] }
        return ["metadata:"]
            + metadata.map { m in
                "  \(m.kind) item \(m.id): \(m.bytes.map { "\($0) B" } ?? "no data"), describes \(m.describes.isEmpty ? "nothing" : m.describes.map(String.init).joined(separator: ", "))"
            }
    }

    /// The text view's findings, errors and warnings counted.
    private var findingLines: [String] {
        guard !findings.isEmpty else { return ["findings: none"] }
        let e = findings.filter { $0.severity == .error }.count
        let w = findings.filter { $0.severity == .warning }.count
        return ["findings (\(e) error\(e == 1 ? "" : "s"), \(w) warning\(w == 1 ? "" : "s")):"]
            + findings.map { "  \($0)" }
    }

    /// Ids with runs of three or more consecutive ids folded: `1–45,47`.
    public static func idList(_ ids: [UInt32]) -> String {
        var parts: [String] = []
        var i = 0
        while i < ids.count {
            var j = i
            while j + 1 < ids.count && ids[j + 1] == ids[j] &+ 1 { j += 1 }
            if j - i >= 2 {
                parts.append("\(ids[i])–\(ids[j])")
                i = j + 1
            } else {
                parts.append(String(ids[i]))
                i += 1
            }
        }
        return parts.joined(separator: ",")
    }

    static func props(_ it: ItemSummary) -> String {
        it.properties.map { $0.summary + ($0.essential ? "*" : "") }.joined(separator: ", ")
    }

    /// Items folded together in the text view: same type, hidden flag, property indices, no references of their own.
    static func signature(_ it: ItemSummary) -> String {
        guard it.references.isEmpty, it.auxiliaryType == nil else { return "unique-\(it.id)" }
        return "\(it.type)|\(it.hidden)|\(it.properties.map { "\($0.index)\($0.essential)" })"
    }
}
