import Foundation
import HEIF

/// One decoded plane of a gain map (the first channel; luma for YCbCr), as a decoder hands it back.
public struct DecodedPlane: Sendable, Hashable {
    /// Width in samples.
    public var width: Int
    /// Height in samples.
    public var height: Int
    /// Bits per sample (8 for Apple and most ISO maps).
    public var bitDepth: Int
    /// Row-major samples, width·height of them.
    public var samples: [UInt16]

    /// Makes a plane.
    public init(width: Int, height: Int, bitDepth: Int, samples: [UInt16]) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.samples = samples
    }
}

/// Decodes one gain-map image wrapped as the primary of a minimal HEIF (`HEIFFile.standaloneFile(for:)`).
/// GainMap imports no C; the Audit module supplies one built on HeifCodec. Return nil or throw when the
/// bitstream does not decode.
public typealias GainMapDecoder = (_ standaloneHEIF: [UInt8]) throws -> DecodedPlane?

/// The ways a file can carry a gain map.
public enum GainMapForm: String, Sendable, Hashable, Codable, Comparable {
    /// ISO 21496-1 `tmap` derived image with `dimg` [base, gain map].
    case iso21496 = "iso21496-tmap"
    /// Apple auxiliary image `urn:com:apple:photo:2020:aux:hdrgainmap` (iOS 14.1+).
    case appleAux = "apple-aux"
    /// Another vendor's auxiliary gain map (Samsung `…:aux:hdrgainmap`, Adobe `urn:com:photo:aux:hdrgainmap`).
    case otherAux = "other-aux"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The parts of a gain map a reader (ImageIO, libavif) needs, each judged on its own, plus cross-checks.
public enum GainMapPart: String, Sendable, Hashable, Codable, CaseIterable {
    /// The item, its `ispe`, `pixi`, codec configuration and a plausible size.
    case description
    /// The parameters: a valid `tmap` body; Apple XMP with version and headroom; vendor XMP.
    case metadata
    /// The coded pixels: present in `iloc`, non-empty, decodable, not constant.
    case data
    /// Colour signalling: `colr` on the map; nclx or ICC on the `tmap` for the alternate.
    case colour
    /// Agreement between the views: brand, `altr` order, `dimg`, `tmap` size, headrooms.
    case consistency
}

/// How a part fared.
public enum PartVerdict: String, Sendable, Hashable, Codable, Comparable {
    /// A reader would drop or misuse the gain map because of this part.
    case fail
    /// Usable, with non-conformities or doubts.
    case warn
    /// Present but not verified (the data part without a decoder).
    case unverified
    /// Complete.
    case pass

    private var rank: Int {
        switch self {
        case .fail: 0
        case .warn: 1
        case .unverified: 2
        case .pass: 3
        }
    }
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// One part's verdict with its findings and the evidence seen (what was found where).
public struct GainMapPartReport: Sendable, Hashable, Codable {
    /// The part.
    public var part: GainMapPart
    /// The verdict: worst finding severity, or `unverified`/`pass`.
    public var verdict: PartVerdict
    /// Problems, each with code, message and file offset.
    public var findings: [GainMapFinding]
    /// Human-readable facts supporting the verdict ("ispe 2856x2142", "tmap 62 bytes, one channel", …).
    public var evidence: [String]
}

/// Everything known about one gain map in a file.
public struct GainMapReport: Sendable, Hashable {
    /// The image the gain map applies to (the tmap's first input, or the auxl target).
    public var baseItemID: UInt32
    /// The gain-map image item, when one is referenced.
    public var gainMapItemID: UInt32?
    /// The `tmap` item, for the ISO form.
    public var toneMapItemID: UInt32?
    /// The `auxC` URN of the gain-map item, if it is an auxiliary image.
    public var auxiliaryType: String?
    /// Which forms describe this gain map (iPhone 16: ISO and Apple on one item).
    public var forms: [GainMapForm]
    /// Description, metadata, data, colour and consistency, in that order.
    public var parts: [GainMapPartReport]
    /// The ISO metadata when the `tmap` body is usable.
    public var isoMetadata: GainMapMetadata?
    /// Apple XMP values on the gain-map item.
    public var appleXMP: AppleGainMapXMP?
    /// Apple MakerNote values from the base's Exif.
    public var appleMakerNote: AppleMakerNote?
    /// Adobe `hdrgm` XMP values on the gain-map item.
    public var adobeXMP: AdobeGainMapXMP?

    /// The report for `part`.
    public func part(_ p: GainMapPart) -> GainMapPartReport { parts.first { $0.part == p }! }
    /// All findings of all parts.
    public var findings: [GainMapFinding] { parts.flatMap(\.findings) }
    /// Apple's linear headroom: XMP HDRGainMapHeadroom, else the MakerNote formula.
    public var appleHeadroom: Double? { appleXMP?.headroom ?? appleMakerNote?.headroom }
    /// True when no part failed.
    public var isComplete: Bool { !parts.contains { $0.verdict == .fail } }
}

/// The gain maps of a file and the file-level findings.
public struct GainMapInspection: Sendable, Hashable {
    /// One report per gain map.
    public var reports: [GainMapReport]
    /// Findings that belong to no single gain map (e.g. a `tmap` brand without a `tmap` item).
    public var findings: [GainMapFinding]
    /// True when the file carries at least one gain map in any form.
    public var hasGainMap: Bool { !reports.isEmpty }
}

/// Finds every gain map in a parsed HEIF and checks the four parts ImageIO needs (ISO 21496-1, ISO/IEC
/// 23008-12 AMD 1 `tmap`; Apple "Applying Apple HDR effect to your photos").
public enum GainMapInspector {
    /// Whether an `auxC` URN names a gain map (Apple, Samsung, Adobe all end in `hdrgainmap`).
    /// - Parameter urn: the aux type.
    /// - Returns: true for gain-map aux types.
    public static func isGainMapURN(_ urn: String?) -> Bool {
        guard let urn else { return false }
        return urn.lowercased().hasSuffix(":hdrgainmap")
    }

    /// Inspects every gain map in `file`.
    /// - Parameters:
    ///   - file: the parsed file.
    ///   - decode: decodes a standalone HEIF holding just the gain-map image; nil = do not decode (the data part
    ///     then says "present, not decoded").
    /// - Returns: one report per gain map plus file-level findings.
    public static func inspect(_ file: HEIFFile, decode: GainMapDecoder? = nil) -> GainMapInspection {
        var reports: [GainMapReport] = []
        var fileFindings: [GainMapFinding] = []
        let tmaps = file.toneMapItems
        if file.brands?.compatible.contains("tmap") == true || file.brands?.major == "tmap", tmaps.isEmpty {
            fileFindings.append(
                GainMapFinding(
                    .brandWithoutTmap, .error, "ftyp lists the tmap brand but the file has no tmap item", offset: 0))
        }
        // ISO form: one record per tmap item.
        for t in tmaps {
            let inputs = file.derivedInputs(of: t)
            let base = inputs.first ?? file.primaryItemID ?? 0
            let gm = inputs.count >= 2 ? inputs[1] : nil
            let urn = gm.flatMap { file.auxiliaryType(of: $0) }
            var forms: [GainMapForm] = [.iso21496]
            if urn == AppleGainMap.auxiliaryURN {
                forms.append(.appleAux)
            } else if isGainMapURN(urn) {
                forms.append(.otherAux)
            }
            reports.append(
                GainMapReport(
                    baseItemID: base, gainMapItemID: gm, toneMapItemID: t, auxiliaryType: urn, forms: forms, parts: []))
        }
        // Aux forms not already covered by a tmap's gain-map input.
        for r in file.references where r.type == "auxl" {
            let urn = file.auxiliaryType(of: r.from)
            guard isGainMapURN(urn), !reports.contains(where: { $0.gainMapItemID == r.from }) else { continue }
            let base = r.to.first { $0 == file.primaryItemID } ?? r.to.first ?? file.primaryItemID ?? 0
            reports.append(
                GainMapReport(
                    baseItemID: base, gainMapItemID: r.from, toneMapItemID: nil, auxiliaryType: urn,
                    forms: [urn == AppleGainMap.auxiliaryURN ? .appleAux : .otherAux], parts: []))
        }
        for i in reports.indices { check(&reports[i], file, decode) }
        return GainMapInspection(reports: reports, findings: fileFindings)
    }

    // MARK: - the parts

    struct Part {
        var findings: [GainMapFinding] = []
        var evidence: [String] = []
        var unverified = false
        mutating func add(_ c: GainMapFindingCode, _ s: GainMapSeverity, _ m: String, _ o: Int?) {
            findings.append(GainMapFinding(c, s, m, offset: o))
        }
        func report(_ p: GainMapPart) -> GainMapPartReport {
            let worst = findings.map(\.severity).min()
            let v: PartVerdict =
                worst == .error ? .fail : worst == .warning ? .warn : unverified ? .unverified : .pass
            return GainMapPartReport(part: p, verdict: v, findings: findings, evidence: evidence)
        }
    }

    static func check(_ r: inout GainMapReport, _ f: HEIFFile, _ decode: GainMapDecoder?) {
        var description = Part()
        var metadata = Part()
        var data = Part()
        var colour = Part()
        var consistency = Part()
        let iso = r.forms.contains(.iso21496)
        let gmItem = r.gainMapItemID.flatMap { f.item($0) }

        // Description.
        if let g = gmItem {
            description.evidence.append(
                "item \(g.id) '\(g.type)'\(g.hidden ? " hidden" : "")\(r.auxiliaryType.map { ", auxC \($0)" } ?? "")")
            if !g.hidden {
                description.add(
                    .descriptionNotHidden, .warning,
                    "gain-map item \(g.id) is not hidden; readers show it as an image of its own", g.offset)
            }
            if let s = f.imageSize(of: g.id) {
                description.evidence.append("ispe \(s.width)x\(s.height)")
            } else {
                description.add(.descriptionIspeMissing, .error, "gain-map item \(g.id) has no ispe", g.offset)
            }
            if case .pixi(let b)? = f.property("pixi", of: g.id) {
                description.evidence.append("pixi \(b.map(String.init).joined(separator: ","))")
            } else {
                description.add(.descriptionPixiMissing, .warning, "gain-map item \(g.id) has no pixi", g.offset)
            }
            let coded = g.type == "grid" ? f.derivedInputs(of: g.id) : [g.id]
            let withConfig = coded.filter { f.property("hvcC", of: $0) != nil || f.property("av1C", of: $0) != nil }
            if coded.isEmpty || withConfig.count != coded.count {
                description.add(
                    .descriptionCodecConfigMissing, .error,
                    g.type == "grid"
                        ? "\(coded.count - withConfig.count) of \(coded.count) tiles of grid \(g.id) lack hvcC/av1C"
                        : "gain-map item \(g.id) has no codec configuration (hvcC/av1C)", g.offset)
            } else {
                let chroma =
                    f.chromaFormat(of: g.id).map { ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][Swift.min($0, 3)] } ?? "?"
                let cfg = f.property("hvcC", of: coded[0]) != nil ? "hvcC" : "av1C"
                description.evidence.append(
                    g.type == "grid"
                        ? "\(cfg) on \(coded.count) tiles (\(chroma))"
                        : "\(cfg) (\(chroma), \(f.bitDepth(of: g.id) ?? 0)-bit)")
            }
            if let s = f.imageSize(of: g.id), let b = f.imageSize(of: r.baseItemID) {
                if let k = [1, 2, 4].first(where: {
                    plausible(Int(s.width), Int(b.width), $0) && plausible(Int(s.height), Int(b.height), $0)
                }) {
                    description.evidence.append(
                        k == 1 ? "same size as base \(b.width)x\(b.height)" : "1/\(k) of base \(b.width)x\(b.height)")
                } else {
                    description.add(
                        .descriptionSizeImplausible, .warning,
                        "gain map \(s.width)x\(s.height) is not 1, 1/2 or 1/4 of base \(b.width)x\(b.height)",
                        propertyOffset(f, "ispe", g.id))
                }
            }
        } else {
            let msg =
                r.gainMapItemID.map { "gain-map item \($0) does not exist" }
                ?? "tmap \(r.toneMapItemID ?? 0) names no gain-map input"
            let off =
                r.toneMapItemID.flatMap { f.references(from: $0, type: "dimg").first?.offset }
                ?? r.toneMapItemID.flatMap { f.item($0)?.offset }
            description.add(.descriptionItemMissing, .error, msg, off)
        }

        // Data.
        if let g = gmItem {
            let coded = g.type == "grid" ? f.derivedInputs(of: g.id) : [g.id]
            var missing: [UInt32] = []
            var total = 0
            for id in coded {
                if let n = f.payloadLength(of: id), n > 0 { total += n } else { missing.append(id) }
            }
            if g.type == "grid", f.grid(of: g.id) == nil { missing.append(g.id) }
            if !missing.isEmpty || coded.isEmpty {
                data.add(
                    .dataMissing, .error,
                    coded.isEmpty
                        ? "grid \(g.id) has no tiles"
                        : "no or empty iloc data for item\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", "))",
                    f.item(missing.first ?? g.id)?.offset)
            } else {
                data.evidence.append("\(total) bytes in \(coded.count) extent set\(coded.count > 1 ? "s" : "")")
                if let decode {
                    decodeCheck(&data, f, g.id, decode)
                } else {
                    data.unverified = true
                    data.evidence.append("present, not decoded")
                }
            }
        }

        if gmItem == nil {
            data.add(.dataMissing, .error, "there is no gain-map item, so no gain-map data", nil)
        }

        // Metadata.
        if iso, let t = r.toneMapItemID {
            if let body = f.payload(of: t) {
                let d = ToneMapImage.decode(body)
                let base = f.payloadRanges(of: t)?.first?.lowerBound
                for var x in d.findings {
                    x.offset = x.offset.flatMap { o in base.map { $0 + o } }
                    metadata.findings.append(x)
                }
                if let m = d.image?.metadata {
                    metadata.evidence.append(describe(m, bytes: body.count))
                }
                r.isoMetadata = d.usableMetadata
            } else {
                metadata.add(.tmapBodyMissing, .error, "tmap item \(t) has no readable body", f.item(t)?.offset)
            }
        }
        if let g = gmItem {
            let xmps = f.metadataItems(describing: g.id).filter { f.item($0)?.isXMP == true }
            if r.forms.contains(.appleAux) {
                let parsed = xmps.compactMap { id in f.xmp(of: id).map { (id, AppleGainMapXMP.parse($0)) } }
                let hit = parsed.first { $0.1.version != nil } ?? parsed.first { $0.1.declaresNamespace }
                r.appleXMP = hit?.1
                r.appleMakerNote =
                    f.metadataItems(describing: r.baseItemID).lazy.filter { f.item($0)?.isExif == true }
                    .compactMap { f.payload(of: $0).flatMap(AppleMakerNote.find(inExif:)) }.first
                if let (id, x) = hit {
                    if let v = x.version {
                        metadata.evidence.append("XMP item \(id) → item \(g.id): HDRGainMapVersion \(v)")
                    } else {
                        metadata.add(
                            .appleVersionMissing, .error, "XMP item \(id) on the gain map has no HDRGainMapVersion",
                            f.item(id)?.offset)
                    }
                    if let h = x.headroom {
                        metadata.evidence.append("HDRGainMapHeadroom \(h) (\(fmt(log2(h))) stops)")
                    }
                } else {
                    metadata.add(
                        .appleXMPMissing, .error,
                        xmps.isEmpty
                            ? "no XMP item describes (cdsc) the Apple gain map \(g.id)"
                            : "the XMP on gain map \(g.id) has no HDRGainMap properties", g.offset)
                }
                if r.appleXMP?.headroom == nil {
                    if let h = r.appleMakerNote?.headroom, let n = r.appleMakerNote {
                        metadata.evidence.append(
                            "headroom from MakerNote 0x0021 \(fmt(n.hdrHeadroom!)) / 0x0030 \(fmt(n.hdrGain!)): \(fmt(h)) (\(fmt(log2(h))) stops)"
                        )
                    } else if let n = r.appleMakerNote, let a = n.hdrHeadroom ?? n.hdrGain {
                        let which =
                            n.hdrHeadroom != nil
                            ? "0x0021 HDRHeadroom \(fmt(a)) without 0x0030 HDRGain"
                            : "0x0030 HDRGain \(fmt(a)) without 0x0021 HDRHeadroom"
                        metadata.add(
                            .appleHeadroomMissing, .warning,
                            "no HDRGainMapHeadroom in the XMP and only MakerNote \(which): readers fall back to defaults",
                            g.offset)
                    } else if hit != nil {
                        metadata.add(
                            .appleHeadroomMissing, .error,
                            "no HDRGainMapHeadroom in the XMP and no MakerNote tags 0x0021/0x0030 in the base's Exif",
                            g.offset)
                    }
                }
            }
            if r.forms.contains(.otherAux) {
                let hit = xmps.lazy.compactMap { id in f.xmp(of: id).flatMap(AdobeGainMapXMP.parse).map { (id, $0) } }
                    .first
                r.adobeXMP = hit?.1
                if let (id, x) = hit, let m = x.isoMetadata {
                    metadata.evidence.append("hdrgm XMP item \(id) → item \(g.id): " + describe(m, bytes: nil))
                } else if !iso {
                    metadata.add(
                        .auxMetadataMissing, .error,
                        "no usable hdrgm XMP (Version, GainMapMax, HDRCapacityMax) describes the auxiliary gain map \(g.id)",
                        g.offset)
                }
            }
        }

        // Colour.
        if let g = gmItem {
            let cs = f.colours(of: g.id)
            if cs.isEmpty {
                if iso {
                    colour.add(
                        .colrMissing, .warning, "gain-map item \(g.id) has no colr (libavif expects nclx)", g.offset)
                } else {
                    colour.evidence.append(
                        "gain map untagged (no colr), as \(r.forms.contains(.appleAux) ? "iOS" : "the vendor") writes it"
                    )
                }
            } else {
                colour.evidence.append("gain map colr " + cs.map(describe).joined(separator: " + "))
            }
        }
        if iso, let t = r.toneMapItemID {
            let cs = f.colours(of: t)
            if cs.isEmpty {
                colour.add(
                    .tmapColrMissing, .warning, "tmap \(t) has no colr (nclx or ICC) for the alternate rendition",
                    f.item(t)?.offset)
            } else {
                colour.evidence.append("alternate (tmap) colr " + cs.map(describe).joined(separator: " + "))
            }
            if case .clli(let a, let b)? = f.property("clli", of: t) {
                colour.evidence.append("alternate clli \(a)/\(b)")
            }
        }

        // Consistency.
        if iso, let t = r.toneMapItemID {
            if f.brands?.contains("tmap") == true {
                consistency.evidence.append("ftyp has the tmap brand")
            } else {
                consistency.add(
                    .brandMissing, .error, "tmap item \(t) but no tmap brand in ftyp; readers ignore the gain map", 0)
            }
            let dimgs = f.references(from: t, type: "dimg")
            let inputs = dimgs.first?.to ?? []
            let off = dimgs.first?.offset ?? f.item(t)?.offset
            if inputs.count != 2 || Set(inputs).count != 2 || inputs.contains(where: { f.item($0)?.isImage != true }) {
                consistency.add(
                    .dimgInvalid, .error,
                    "tmap \(t) dimg is \(inputs); it must list two distinct images [base, gain map]", off)
            } else if dimgs.count > 1 {
                consistency.add(
                    .dimgInvalid, .error, "tmap \(t) has \(dimgs.count) dimg boxes; one is allowed", dimgs[1].offset)
            } else if inputs[0] != f.primaryItemID {
                consistency.add(
                    .dimgInvalid, .warning,
                    "tmap \(t) base input \(inputs[0]) is not the primary item \(f.primaryItemID.map(String.init) ?? "none")",
                    off)
            } else {
                consistency.evidence.append("dimg \(t) → [\(inputs[0]), \(inputs[1])]")
            }
            let groups = f.alternativeGroups(containing: t)
            if let gr = groups.first(where: { $0.entities.contains(r.baseItemID) }) {
                let it = gr.entities.firstIndex(of: t)!
                let ib = gr.entities.firstIndex(of: r.baseItemID)!
                if it < ib {
                    consistency.evidence.append(
                        "altr \(gr.id) [\(gr.entities.map(String.init).joined(separator: ", "))]")
                } else {
                    consistency.add(
                        .altrOrder, .error,
                        "altr \(gr.id) lists base \(r.baseItemID) before tmap \(t); readers ignore the gain map",
                        gr.offset)
                }
            } else {
                consistency.add(
                    .altrMissing, .error, "no altr group holds tmap \(t) and base \(r.baseItemID)", f.item(t)?.offset)
            }
            // libavif read.c: irot/imir/clap/pasp belong on the base and the gain map, not on the tmap. A no-op
            // irot 0 (as iOS and Samsung write) changes nothing and is not reported.
            let transforms = f.properties(of: t).filter {
                switch $0.property {
                case .irot(let q): return q != 0
                case .imir, .clap, .pasp: return true
                default: return false
                }
            }
            if let first = transforms.first {
                consistency.add(
                    .tmapTransform, .warning,
                    "tmap \(t) carries \(transforms.map { $0.property.type.description }.joined(separator: ", ")); libavif rejects transforms on tmap (put them on base and gain map)",
                    f.propertyBoxes[first.index - 1].range?.lowerBound ?? f.item(t)?.offset)
            }
            if let ts = f.imageSize(of: t) {
                if let bs = f.imageSize(of: r.baseItemID) {
                    if ts == bs {
                        consistency.evidence.append("tmap ispe = base ispe \(bs.width)x\(bs.height)")
                    } else if f.orientation(of: r.baseItemID) >= 5, ts.width == bs.height, ts.height == bs.width {
                        consistency.evidence.append(
                            "tmap ispe \(ts.width)x\(ts.height) = base ispe after its rotation (as iOS writes it)")
                    } else {
                        consistency.add(
                            .tmapIspeMismatch, .error,
                            "tmap ispe \(ts.width)x\(ts.height) differs from base ispe \(bs.width)x\(bs.height)",
                            propertyOffset(f, "ispe", t))
                    }
                }
            } else {
                consistency.add(.tmapIspeMissing, .error, "tmap \(t) has no ispe", f.item(t)?.offset)
            }
        }
        if let m = r.isoMetadata {
            let ha = m.alternateHdrHeadroom.doubleValue
            if let h = r.appleHeadroom, h > 0 {
                let d = abs(log2(h) - ha)
                if d > 0.05 {
                    consistency.add(
                        .headroomMismatch, .warning,
                        "Apple headroom \(fmt(h)) = \(fmt(log2(h))) stops vs ISO alternate_hdr_headroom \(fmt(ha)) (Δ \(fmt(d)))",
                        r.toneMapItemID.flatMap { f.payloadRanges(of: $0)?.first?.lowerBound }.map { $0 + 14 })
                } else {
                    consistency.evidence.append("Apple headroom log2 \(fmt(log2(h))) ≈ ISO \(fmt(ha))")
                }
            }
            if let a = r.adobeXMP?.hdrCapacityMax {
                if abs(a - ha) > 0.05 {
                    consistency.add(
                        .headroomMismatch, .warning,
                        "hdrgm HDRCapacityMax \(fmt(a)) vs ISO alternate_hdr_headroom \(fmt(ha))", nil)
                } else {
                    consistency.evidence.append("hdrgm HDRCapacityMax \(fmt(a)) ≈ ISO \(fmt(ha))")
                }
            }
        }
        if r.forms.contains(.appleAux) || r.forms.contains(.otherAux), let g = r.gainMapItemID {
            let auxl = f.references(from: g, type: "auxl")
            if let a = auxl.first {
                consistency.evidence.append("auxl \(g) → [\(a.to.map(String.init).joined(separator: ", "))]")
            }
        }

        r.parts = [
            description.report(.description), metadata.report(.metadata), data.report(.data), colour.report(.colour),
            consistency.report(.consistency),
        ]
    }

    static func decodeCheck(_ data: inout Part, _ f: HEIFFile, _ id: UInt32, _ decode: GainMapDecoder) {
        guard let standalone = standalone(f, id) else {
            data.add(
                .dataUndecodable, .error, "item \(id) cannot be wrapped as a standalone image to decode",
                f.item(id)?.offset)
            return
        }
        let plane: DecodedPlane?
        do { plane = try decode(standalone) } catch {
            data.add(.dataUndecodable, .error, "item \(id) does not decode: \(error)", f.item(id)?.offset)
            return
        }
        guard let p = plane, !p.samples.isEmpty else {
            data.add(.dataUndecodable, .error, "item \(id) decoded to nothing", f.item(id)?.offset)
            return
        }
        var lo = p.samples[0]
        var hi = lo
        for s in p.samples {
            lo = Swift.min(lo, s)
            hi = Swift.max(hi, s)
        }
        data.evidence.append("decoded \(p.width)x\(p.height) \(p.bitDepth)-bit, samples \(lo)…\(hi)")
        if lo == hi {
            data.add(
                .dataConstant, .error, "gain map \(id) is constant (every sample \(lo)): it carries no HDR",
                f.item(id)?.offset)
        }
    }

    /// The gain-map image wrapped as the primary of a minimal HEIF (libheif 1.15 decodes it even when it
    /// refuses the original file).
    static func standalone(_ f: HEIFFile, _ id: UInt32) -> [UInt8]? { f.standaloneFile(for: id) }

    static func plausible(_ g: Int, _ b: Int, _ k: Int) -> Bool { abs(g * k - b) <= 2 * k }

    static func propertyOffset(_ f: HEIFFile, _ type: FourCC, _ id: UInt32) -> Int? {
        f.properties(of: id).first { $0.property.type == type }.flatMap {
            f.propertyBoxes[$0.index - 1].range?.lowerBound
        }
            ?? f.item(id)?.offset
    }

    static func fmt(_ x: Double) -> String { String(format: "%.4g", x) }

    static func describe(_ p: Property) -> String {
        switch p {
        case .colrNCLX(let n):
            "nclx \(n.colourPrimaries)/\(n.transferCharacteristics)/\(n.matrixCoefficients)\(n.fullRange ? " full" : "")"
        case .colrICC(let t, let prof): "\(t) ICC \(prof.count) bytes"
        default: "\(p.type)"
        }
    }

    static func describe(_ m: GainMapMetadata, bytes: Int?) -> String {
        let c = m.channels.first
        let size = bytes.map { "tmap \($0) bytes, " } ?? ""
        return size
            + "\(m.isMultichannel ? "three channels" : "one channel"), headroom base \(fmt(m.baseHdrHeadroom.doubleValue)) alternate \(fmt(m.alternateHdrHeadroom.doubleValue))"
            + (c.map {
                ", min \(fmt($0.min.doubleValue)) max \(fmt($0.max.doubleValue)) gamma \(fmt($0.gamma.doubleValue))"
            } ?? "")
    }
}
