import Findings
import Foundation

/// The limits the render findings are raised at (docs/policy.md "Render checks" records how they were measured).
public struct RenderThresholds: Sendable, Hashable {
    /// `render.blank`: the output's L* spread (p99 − p1) below this while the reference's is at least
    /// `blankReferenceSpread`.
    public var blankSpread = 2.0
    public var blankReferenceSpread = 5.0
    /// `render.orientation`: another of the 8 transforms correlates at least `orientationCorrelation` and beats the
    /// signalled one by at least `orientationGain`.
    public var orientationCorrelation = 0.8
    public var orientationGain = 0.2
    /// `render.cast`: |(Δa*, Δb*)| at which a warning, then an error, is raised.
    public var castWarning = 5.0
    public var castError = 7.0
    /// In a scene without neutral tones (the cast measured over the whole frame), a shift whose hues differ by less
    /// than this many degrees on average (`RenderMeasurement.hueDifference`) is a saturation difference
    /// (`render.saturation`), not a cast.
    public var castHueAgreement = 8.0
    /// `render.exposure`: mid-tone shifts in stops (negative: darker) at which a warning, then an error, is raised.
    public var exposureWarning: ClosedRange<Double> = -0.75...1.5
    public var exposureError: ClosedRange<Double> = -1.25...2.0

    public init() {}

    /// The values as `render NAME VALUE…` policy lines.
    public var policyLines: [String] {
        func f(_ v: Double) -> String { String(format: "%g", v) }
        return [
            "render blank \(f(blankSpread)) \(f(blankReferenceSpread))",
            "render orientation \(f(orientationCorrelation)) \(f(orientationGain))",
            "render cast \(f(castWarning)) \(f(castError))",
            "render exposure-warning \(f(exposureWarning.lowerBound)) \(f(exposureWarning.upperBound))",
            "render exposure-error \(f(exposureError.lowerBound)) \(f(exposureError.upperBound))",
        ]
    }
}

/// Turns a measurement into findings.
public enum RenderVerdict {
    /// The findings for `m`. A blank frame is reported alone, and turned pixels are reported without colour or
    /// exposure findings (those compare pixel to pixel and mean nothing on a turned frame).
    /// - Parameters:
    ///   - m: the measurement.
    ///   - thresholds: the limits.
    ///   - reference: what the reference is, for the messages ("embedded preview 1024×683").
    ///   - orientationAmbiguous: the reference's own orientation is uncertain: a turn is a warning, not an error.
    public static func findings(
        _ m: RenderMeasurement, thresholds t: RenderThresholds, reference: String, orientationAmbiguous: Bool = false
    ) -> [Finding] {
        if let frame = frameFinding(m, t, reference) { return [frame] }
        let gain = m.correlationBest - m.correlationIdentity
        if m.bestOrientation != 1 && m.correlationBest >= t.orientationCorrelation && gain >= t.orientationGain {
            let sev: Severity = orientationAmbiguous ? .warning : .error
            let note = orientationAmbiguous ? " (the reference's own orientation is ambiguous)" : ""
            return [
                Finding(
                    code: .renderOrientation, severity: sev,
                    message: "the output's pixels are \(transformName(inverse(m.bestOrientation))) against the"
                        + " \(reference): they match it under orientation \(m.bestOrientation), not as signalled\(note)",
                    evidence: Evidence(
                        expected: String(
                            format: "orientation 1 (as signalled): correlation %.3f", m.correlationIdentity),
                        actual: String(
                            format: "orientation %d: correlation %.3f (gain %.3f ≥ %g)", m.bestOrientation,
                            m.correlationBest, gain, t.orientationGain)))
            ]
        }
        return toneFindings(m, t, reference)
    }

    /// A reference without content (a near-black or flat frame) judges nothing, which is said rather than passed
    /// (`render.no-reference`); an output without content where the reference has some is `render.blank`.
    static func frameFinding(_ m: RenderMeasurement, _ t: RenderThresholds, _ reference: String) -> Finding? {
        if m.referenceSpread < t.blankReferenceSpread {
            return Finding(
                .renderNoReference,
                message: String(
                    format: "no reference render: the %@ has no content to compare with (L* spread %.1f < %g)",
                    reference, m.referenceSpread, t.blankReferenceSpread))
        }
        guard m.outputSpread < t.blankSpread else { return nil }
        return Finding(
            .renderBlank,
            message: String(
                format: "the output is a blank frame: its L* spread is %.1f where the %@'s is %.1f", m.outputSpread,
                reference, m.referenceSpread),
            evidence: Evidence(
                expected: String(format: "L* spread ≥ %g (reference %.1f)", t.blankSpread, m.referenceSpread),
                actual: String(format: "L* spread %.2f, median L* %.1f", m.outputSpread, m.outputMedianL)))
    }

    /// Colour cast and exposure, compared pixel to pixel.
    static func toneFindings(_ m: RenderMeasurement, _ t: RenderThresholds, _ reference: String) -> [Finding] {
        let scores = String(
            format: "ΔE00 median %.2f, p90 %.2f; exposure %@ stops; cast Δa* %+.2f Δb* %+.2f (%@)", m.deltaEMedian,
            m.deltaEP90, m.exposureStops.map { String(format: "%+.2f", $0) } ?? "n/a", m.castA, m.castB,
            m.castFromNeutrals ? String(format: "%.0f%% near-neutral pixels", m.neutralFraction * 100) : "whole frame")
        var out: [Finding] = []
        if m.cast >= t.castWarning, let saturation = saturationFinding(m, t, reference, scores) {
            out.append(saturation)
        } else if m.cast >= t.castWarning {
            out.append(
                Finding(
                    code: .renderCast, severity: m.cast >= t.castError ? .error : .warning,
                    message: String(
                        format: "the output has a colour cast against the %@: Δa* %+.1f, Δb* %+.1f (|Δ| %.1f)",
                        reference, m.castA, m.castB, m.cast),
                    evidence: Evidence(
                        expected: String(format: "|Δa*b*| < %g (warning), < %g (error)", t.castWarning, t.castError),
                        actual: scores)))
        }
        if let e = m.exposureStops, !t.exposureWarning.contains(e) {
            out.append(
                Finding(
                    code: .renderExposure, severity: t.exposureError.contains(e) ? .warning : .error,
                    message: String(
                        format: "the output's mid-tones are %.2f stops %@ than the %@'s", abs(e),
                        e < 0 ? "darker" : "brighter", reference),
                    evidence: Evidence(
                        expected: String(
                            format: "%+g…%+g stops (warning), %+g…%+g (error)", t.exposureWarning.lowerBound,
                            t.exposureWarning.upperBound, t.exposureError.lowerBound, t.exposureError.upperBound),
                        actual: scores)))
        }
        return out
    }

    /// A frame-wide shift in a scene with no neutral content, whose hues agree with the reference's: a saturation
    /// difference (`render.saturation`, a warning), not a cast. nil when the cast was measured on neutral tones or
    /// the hues differ (a cast moves or turns every colour's hue).
    static func saturationFinding(_ m: RenderMeasurement, _ t: RenderThresholds, _ reference: String, _ scores: String)
        -> Finding?
    {
        guard !m.castFromNeutrals, let hue = m.hueDifference, hue < t.castHueAgreement else { return nil }
        let ratio = m.chromaRatio ?? 1
        return Finding(
            .renderSaturation,
            message: String(
                format: "the output is %@ saturated than the %@ (chroma ×%.2f, hues %.1f° apart on average; no neutral"
                    + " tones to judge a cast on)", ratio < 1 ? "less" : "more", reference, ratio, hue),
            evidence: Evidence(
                expected: String(format: "hues < %g° apart in a scene without neutral tones", t.castHueAgreement),
                actual: String(format: "hues %.1f° apart, chroma ×%.2f; ", hue, ratio) + scores))
    }

    /// The orientation that undoes `o` (6 and 8 undo each other; the others undo themselves).
    public static func inverse(_ o: Int) -> Int { o == 6 ? 8 : o == 8 ? 6 : o }

    /// What orientation `o` does to stored pixels to show them: "turned 90° clockwise" for 6, and so on.
    public static func transformName(_ o: Int) -> String {
        switch o {
        case 2: "mirrored left–right"
        case 3: "turned 180°"
        case 4: "mirrored top–bottom"
        case 5: "transposed"
        case 6: "turned 90° clockwise"
        case 7: "transversed"
        case 8: "turned 90° counter-clockwise"
        default: "as stored"
        }
    }
}
