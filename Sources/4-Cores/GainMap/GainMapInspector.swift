import Findings
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
    /// Ultra HDR / Adobe `hdrgm` XMP on a JPEG's gain-map image (found through MPF).
    case ultraHDR = "ultrahdr-xmp"

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
    public var findings: [Finding]
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
    public var findings: [Finding] { parts.flatMap(\.findings) }
    /// Apple's linear headroom: XMP HDRGainMapHeadroom, else the MakerNote formula.
    public var appleHeadroom: Double? { appleXMP?.headroom ?? appleMakerNote?.headroom }
    /// True when no part failed.
    public var isComplete: Bool { !parts.contains { $0.verdict == .fail } }

    /// True when the ISO 21496-1 form describes this gain map.
    var isISO: Bool { forms.contains(.iso21496) }
    /// The gain-map image item, when it is referenced and exists.
    func gainMapItem(in f: HEIFFile) -> Item? { gainMapItemID.flatMap { f.item($0) } }
}

/// The gain maps of a file and the file-level findings.
public struct GainMapInspection: Sendable, Hashable {
    /// One report per gain map.
    public var reports: [GainMapReport]
    /// Findings that belong to no single gain map (e.g. a `tmap` brand without a `tmap` item).
    public var findings: [Finding]
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
        var fileFindings: [Finding] = []
        let tmaps = file.toneMapItems
        if file.brands?.compatible.contains("tmap") == true || file.brands?.major == "tmap", tmaps.isEmpty {
            fileFindings.append(
                Finding(
                    .gainmapBrandWithoutTmap, message: "ftyp lists the tmap brand but the file has no tmap item",
                    evidence: Evidence(offset: 0))
            )
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

    /// One part being checked: its findings, the evidence seen, and whether it could be verified.
    struct Part {
        var findings: [Finding] = []
        var evidence: [String] = []
        var unverified = false
        /// Adds a finding at the catalogue's severity for `c`.
        mutating func add(_ c: FindingCode, _ m: String, _ o: Int?) {
            findings.append(Finding(c, message: m, evidence: Evidence(offset: o)))
        }
        /// Adds a finding at a severity other than the catalogue's.
        mutating func add(_ c: FindingCode, _ s: Severity, _ m: String, _ o: Int?) {
            findings.append(Finding(c, severity: s, message: m, evidence: Evidence(offset: o)))
        }
        func report(_ p: GainMapPart) -> GainMapPartReport {
            let worst = findings.map(\.severity).max()
            let v: PartVerdict =
                worst == .error ? .fail : worst == .warning ? .warn : unverified ? .unverified : .pass
            return GainMapPartReport(part: p, verdict: v, findings: findings, evidence: evidence)
        }
    }

    /// Runs one checker per part and files the parts in report order. The metadata checker records what it read
    /// (ISO metadata, Apple and Adobe XMP, Apple MakerNote) on the report, and the consistency checker compares it.
    static func check(_ r: inout GainMapReport, _ f: HEIFFile, _ decode: GainMapDecoder?) {
        let description = DescriptionCheck.run(r, f)
        let data = DataCheck.run(r, f, decode)
        let metadata = MetadataCheck.run(&r, f)
        let colour = ColourCheck.run(r, f)
        let consistency = ConsistencyCheck.run(r, f)
        r.parts = [
            description.report(.description), metadata.report(.metadata), data.report(.data), colour.report(.colour),
            consistency.report(.consistency),
        ]
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
