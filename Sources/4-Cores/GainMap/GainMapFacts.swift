import Findings
import Foundation

/// What a file's usable gain map amounts to, whatever its container: the forms that describe it and its parameters
/// in ISO 21496-1 terms. Two of them (a source's and an output's) are compared by `GainMapFacts.compare`.
public struct GainMapFacts: Sendable, Hashable {
    /// The families of the forms: "iso" (ISO 21496-1 `tmap` or JPEG APP2), "apple", "ultrahdr" (`hdrgm` XMP),
    /// "other" (another vendor's auxiliary image).
    public var forms: Set<String>
    /// The parameters: the ISO metadata when present, else `hdrgm` XMP's, else Apple's headroom as ISO metadata.
    public var metadata: GainMapMetadata?
    /// True when the metadata came only from Apple's headroom (the other parameters are Apple's fixed ones).
    public var fromAppleHeadroom = false

    /// Facts given directly.
    public init(forms: Set<String>, metadata: GainMapMetadata?, fromAppleHeadroom: Bool = false) {
        self.forms = forms
        self.metadata = metadata
        self.fromAppleHeadroom = fromAppleHeadroom
    }

    /// The facts of a report, nil when one of its parts fails (readers drop such a gain map).
    public init?(_ r: GainMapReport) {
        guard !r.findings.contains(where: { $0.severity == .error }) else { return nil }
        forms = Set(r.forms.map(Self.family))
        if let m = r.isoMetadata {
            metadata = m
        } else if let m = r.adobeXMP?.isoMetadata {
            metadata = m
        } else if let h = r.appleHeadroom, h > 0 {
            metadata = AppleGainMap.isoMetadata(fromHeadroom: h)
            fromAppleHeadroom = true
        }
    }

    /// The first usable gain map of a HEIF or AVIF inspection.
    public static func of(_ i: GainMapInspection) -> GainMapFacts? { i.reports.lazy.compactMap(Self.init).first }

    /// The family of a form.
    public static func family(_ f: GainMapForm) -> String {
        switch f {
        case .iso21496: "iso"
        case .appleAux: "apple"
        case .ultraHDR: "ultrahdr"
        case .otherAux: "other"
        }
    }

    /// What changed from `source` to `output`: an info when the forms differ (not a loss), a warning per parameter
    /// that differs (which rendition is the base, the HDR headroom; within one form also gamma, offsets and the
    /// gain range of each channel).
    public static func compare(source s: GainMapFacts, output o: GainMapFacts) -> [Finding] {
        var out: [Finding] = []
        let sf = s.forms.sorted().joined(separator: "+")
        let of = o.forms.sorted().joined(separator: "+")
        if s.forms.isDisjoint(with: o.forms) {
            out.append(
                Finding(
                    .gainmapFormChanged,
                    message:
                        "the source's gain map (\(sf)) is carried in another form in the output (\(of)): not a loss"))
        }
        guard let a = s.metadata, let b = o.metadata else { return out }
        var diffs: [String] = []
        func hdrBase(_ m: GainMapMetadata) -> Bool {
            m.baseHdrHeadroom.doubleValue > m.alternateHdrHeadroom.doubleValue
        }
        func headroom(_ m: GainMapMetadata) -> Double {
            max(m.baseHdrHeadroom.doubleValue, m.alternateHdrHeadroom.doubleValue)
        }
        if hdrBase(a) != hdrBase(b) {
            diffs.append("base rendition \(hdrBase(a) ? "HDR" : "SDR") → \(hdrBase(b) ? "HDR" : "SDR")")
        }
        if abs(headroom(a) - headroom(b)) > 0.05 {
            diffs.append("HDR headroom \(fmt(headroom(a))) → \(fmt(headroom(b))) stops")
        }
        // Across forms (Apple's fixed parameters against ISO's) only the headroom and the base compare.
        if !s.fromAppleHeadroom, !o.fromAppleHeadroom, a.channels.count == b.channels.count {
            for (k, (x, y)) in zip(a.channels, b.channels).enumerated() {
                let c = a.channels.count == 1 ? "" : " channel \(k)"
                let pairs: [(String, Double, Double, Double)] = [
                    ("gamma", x.gamma.doubleValue, y.gamma.doubleValue, 0.01),
                    ("base offset", x.baseOffset.doubleValue, y.baseOffset.doubleValue, 0.001),
                    ("alternate offset", x.alternateOffset.doubleValue, y.alternateOffset.doubleValue, 0.001),
                    ("gain min", x.min.doubleValue, y.min.doubleValue, 0.05),
                    ("gain max", x.max.doubleValue, y.max.doubleValue, 0.05),
                ]
                for (n, u, v, tol) in pairs where abs(u - v) > tol { diffs.append("\(n)\(c) \(fmt(u)) → \(fmt(v))") }
            }
        } else if a.channels.count != b.channels.count, !s.fromAppleHeadroom, !o.fromAppleHeadroom {
            diffs.append("\(a.channels.count) channel(s) → \(b.channels.count)")
        }
        if !diffs.isEmpty {
            out.append(
                Finding(
                    .gainmapMetadataChanged,
                    message: "the output's gain map differs from the source's: " + diffs.joined(separator: "; ")))
        }
        return out
    }

    static func fmt(_ x: Double) -> String { String(format: "%.4g", x) }
}

extension JPEGGainMapInspection {
    /// The usable gain map of the JPEG, nil when it has none or one a reader would drop.
    public var facts: GainMapFacts? { GainMapFacts.of(inspection) }
}
