import Findings

/// Decodes a gain-map JPEG (the bytes its MPF entry spans) to its first plane. GainMap imports no C; the Audit
/// module supplies one built on JPEGCodec. Throw when the bitstream does not decode.
public typealias JPEGGainMapDecoder = (_ jpeg: [UInt8]) throws -> DecodedPlane?

/// What a JPEG's primary image says about a gain map before anyone looks for it.
public struct JPEGGainMapSignals: Sendable, Hashable {
    /// `hdrgm:Version` in the primary's XMP (Ultra HDR v1, Adobe).
    public var hdrgmVersion: String?
    /// The GContainer directory's `Item:Length` of the item whose `Item:Semantic` is `GainMap`.
    public var containerGainMapLength: Int?
    /// True when the directory lists a `GainMap` item at all.
    public var containerListsGainMap = false
    /// File offset of the primary's ISO 21496-1 APP2 block (the version block), when there is one.
    public var isoVersionBlockOffset: Int?

    /// True when the primary announces a gain map in any form a reader looks for.
    public var declared: Bool { hdrgmVersion != nil || containerListsGainMap || isoVersionBlockOffset != nil }

    /// Lines for a person.
    public var evidence: [String] {
        var out: [String] = []
        if let v = hdrgmVersion { out.append("primary XMP hdrgm:Version \(v)") }
        if containerListsGainMap {
            out.append("GContainer GainMap item" + (containerGainMapLength.map { ", Item:Length \($0)" } ?? ""))
        }
        if let o = isoVersionBlockOffset { out.append("primary ISO 21496-1 APP2 block at \(o)") }
        return out
    }
}

/// Everything known about the gain map of a JPEG file: the primary's layout, the MPF index, the gain-map image
/// and one `GainMapReport` judged part by part with the same `gainmap.*` codes as a HEIF's.
public struct JPEGGainMapInspection: Sendable, Hashable {
    /// The primary image.
    public var primary: JPEGImageLayout
    /// The MPF index, when the primary has one.
    public var mpf: MPFIndex?
    /// The primary's announcements.
    public var signals: JPEGGainMapSignals
    /// The gain-map image, when it was found in the file.
    public var gainMapImage: JPEGImageLayout?
    /// The MPF entry (0-based) of the gain map, when MPF lists it.
    public var gainMapEntry: Int?
    /// The reports (none, or one) and file-level findings, as for a HEIF.
    public var inspection: GainMapInspection

    /// True when the file carries (or declares) a gain map in any form.
    public var hasGainMap: Bool { inspection.hasGainMap }
}

/// Reads the gain map of a JPEG: Ultra HDR v1 (`hdrgm` XMP + GContainer), ISO 21496-1 APP2 blocks, Apple's MPF + XMP
/// (HDRGainMap, apdi), always through the CIPA DC-007 MPF index readers follow.
public enum JPEGGainMapReader {
    /// Inspects `bytes`; nil when they are not a JPEG.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - decode: decodes the gain-map JPEG; nil = the data part says "present, not decoded".
    public static func inspect(_ bytes: [UInt8], decode: JPEGGainMapDecoder? = nil) -> JPEGGainMapInspection? {
        // The primary's EOI is looked for only when there is no MPF index to find the gain map by.
        guard let primary = JPEGScanner.image(bytes, at: 0, toEOI: false) else { return nil }
        let signals = readSignals(primary, bytes)
        let mpf = MPFIndex.parse(primary, bytes)
        var candidate = Candidate.find(primary, mpf, signals, bytes)
        var result = JPEGGainMapInspection(
            primary: primary, mpf: mpf, signals: signals, gainMapImage: candidate?.image,
            gainMapEntry: candidate?.entry, inspection: GainMapInspection(reports: [], findings: []))
        guard signals.declared || candidate?.hasMetadata == true else { return result }
        if candidate == nil { candidate = Candidate(entry: nil, mpfEntry: nil, image: nil, bytes: bytes) }
        guard let c = candidate else { return result }
        var report = GainMapReport(
            baseItemID: 1, gainMapItemID: UInt32((c.entry ?? 1) + 1), toneMapItemID: nil,
            auxiliaryType: c.apple?.auxiliaryImageType,
            forms: c.hasMetadata ? c.forms : signals.isoVersionBlockOffset != nil ? [.iso21496] : [.ultraHDR], parts: []
        )
        let ctx = JPEGCheckContext(bytes: bytes, primary: primary, mpf: mpf, signals: signals, candidate: c)
        let description = JPEGChecks.description(ctx)
        let metadata = JPEGChecks.metadata(&report, ctx)
        let data = JPEGChecks.data(ctx, decode)
        let colour = JPEGChecks.colour(ctx)
        let consistency = JPEGChecks.consistency(report, ctx)
        report.parts = [
            description.report(.description), metadata.report(.metadata), data.report(.data), colour.report(.colour),
            consistency.report(.consistency),
        ]
        result.inspection.reports = [report]
        return result
    }

    /// The primary's XMP (`hdrgm:Version`, GContainer directory) and ISO version block.
    static func readSignals(_ primary: JPEGImageLayout, _ b: [UInt8]) -> JPEGGainMapSignals {
        var s = JPEGGainMapSignals()
        if let xmp = JPEGScanner.xmp(primary, b) {
            s.hdrgmVersion = AdobeGainMapXMP.parse(xmp)?.version
            let text = String(decoding: xmp, as: UTF8.self)
            let p = XMPScan.prefixes(boundTo: "http://ns.google.com/photos/1.0/container/item/", in: text)
            if !p.isEmpty {
                for chunk in text.components(separatedBy: "<rdf:li").dropFirst()
                where XMPScan.value(of: "Semantic", prefixes: p, in: " " + chunk) == "GainMap" {
                    s.containerListsGainMap = true
                    s.containerGainMapLength = XMPScan.value(of: "Length", prefixes: p, in: " " + chunk).flatMap {
                        Int($0)
                    }
                    break
                }
            }
        }
        s.isoVersionBlockOffset = JPEGScanner.iso(primary, b)?.offset
        return s
    }
}

/// The image the inspector takes for the gain map, and what its own header says.
struct Candidate {
    /// Its MPF entry (0-based), nil when MPF does not list it.
    var entry: Int?
    var mpfEntry: MPFEntry?
    /// Its layout, nil when no JPEG starts where it should.
    var image: JPEGImageLayout?
    var iso: (bytes: [UInt8], offset: Int)?
    var hdrgm: AdobeGainMapXMP?
    var apple: AppleGainMapXMP?

    init(entry: Int?, mpfEntry: MPFEntry?, image: JPEGImageLayout?, bytes b: [UInt8]) {
        self.entry = entry
        self.mpfEntry = mpfEntry
        self.image = image
        guard let image else { return }
        iso = JPEGScanner.iso(image, b).flatMap { $0.bytes.count > 4 ? $0 : nil }
        if let xmp = JPEGScanner.xmp(image, b) {
            hdrgm = AdobeGainMapXMP.parse(xmp)
            let a = AppleGainMapXMP.parse(xmp)
            if a.declaresNamespace || GainMapInspector.isGainMapURN(a.auxiliaryImageType) { apple = a }
        }
    }

    /// True when the image's own header carries gain-map metadata in some form.
    var hasMetadata: Bool { iso != nil || hdrgm?.version != nil || apple != nil }

    /// The forms that describe it (Ultra HDR when the primary or the image uses `hdrgm`).
    var forms: [GainMapForm] {
        var f: [GainMapForm] = []
        if iso != nil { f.append(.iso21496) }
        if apple != nil { f.append(.appleAux) }
        if hdrgm != nil || f.isEmpty { f.append(.ultraHDR) }
        return f
    }

    /// The gain-map image: an MPF secondary whose header carries gain-map metadata; else, when the primary
    /// declares one, the entry whose size the GContainer gives, else the first secondary that is not a thumbnail;
    /// without MPF, a JPEG right after the primary.
    static func find(_ primary: JPEGImageLayout, _ mpf: MPFIndex?, _ s: JPEGGainMapSignals, _ b: [UInt8])
        -> Candidate?
    {
        if let mpf, mpf.entries.count > 1 {
            let all = mpf.entries.indices.dropFirst().map { k in
                let e = mpf.entries[k]
                return Candidate(entry: k, mpfEntry: e, image: JPEGScanner.image(b, at: e.fileOffset), bytes: b)
            }
            if let c = all.first(where: \.hasMetadata) { return c }
            guard s.declared else { return nil }
            if let n = s.containerGainMapLength, let c = all.first(where: { $0.mpfEntry?.size == n }) { return c }
            return all.first { ![0x01_0001, 0x01_0002].contains($0.mpfEntry?.type ?? 0) } ?? all.first
        }
        guard let end = JPEGScanner.image(b, at: primary.start)?.end, JPEGScanner.isSOI(b, at: end) else {
            return nil
        }
        let c = Candidate(entry: nil, mpfEntry: nil, image: JPEGScanner.image(b, at: end), bytes: b)
        return c.hasMetadata || s.declared ? c : nil
    }
}

/// What the part checkers look at.
struct JPEGCheckContext {
    let bytes: [UInt8]
    let primary: JPEGImageLayout
    let mpf: MPFIndex?
    let signals: JPEGGainMapSignals
    let candidate: Candidate
}
