import Foundation
import RenderCheck

/// The Markdown tables of docs/render-fidelity.md and docs/policy.md's margins, from `compare`/`failures` lines whose
/// label is `SOURCE|RENDERER`.
enum Tables {
    struct Row {
        var source: String
        var renderer: String
        var failure: String
        var reference: String
        var values: [String: Any]

        func number(_ k: String) -> Double? { values[k] as? Double }
        var findings: [String] { values["findings"] as? [String] ?? [] }
    }

    static func rows(_ jsonl: String) throws -> [Row] {
        try jsonl.split(separator: "\n").map { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "not a JSON object: \(line)")
            }
            let label = (o["label"] as? String ?? "?|?").split(separator: "|", maxSplits: 1).map(String.init)
            return Row(
                source: label.first ?? "?", renderer: label.count > 1 ? label[1] : "?",
                failure: o["failure"] as? String ?? "none", reference: o["reference"] as? String ?? "?", values: o)
        }
    }

    static func markdown(jsonl: String) throws -> String {
        let all = try rows(jsonl)
        return deltaE(all.filter { $0.failure == "none" }) + "\n" + margins(all)
    }

    static func f(_ v: Double?, _ digits: Int = 2) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "–" }

    /// Per source: ΔE00 median / p90 and exposure of each renderer against the reference; the best median in bold.
    static func deltaE(_ legit: [Row]) -> String {
        let renderers = ["readback", "dcraw_emu", "rawtherapee"]
        var s =
            "| source | reference | " + renderers.map { "\($0) ΔE00 median / p90 (exposure)" }.joined(separator: " | ")
        s += " |\n|---|---|" + renderers.map { _ in "---" }.joined(separator: "|") + "|\n"
        var sources: [String] = []
        for r in legit where !sources.contains(r.source) { sources.append(r.source) }
        for src in sources {
            let rs = legit.filter { $0.source == src }
            let best = rs.compactMap { $0.number("de00_median") }.min()
            s += "| \(src) | \(rs.first?.reference ?? "") |"
            for name in renderers {
                guard let r = rs.first(where: { $0.renderer == name }) else {
                    s += " – |"
                    continue
                }
                let med = f(r.number("de00_median"))
                let cell = "\(r.number("de00_median") == best ? "**\(med)**" : med) / \(f(r.number("de00_p90")))"
                s += " \(cell) (\(f(r.number("exposure_stops")).replacingOccurrences(of: "-", with: "−"))) |"
            }
            s += "\n"
        }
        return s
    }

    /// Each check's statistic over the legitimate renderings and over the deliberate failures meant to trip it.
    static func margins(_ all: [Row]) -> String {
        let t = RenderThresholds()
        let legit = all.filter { $0.failure == "none" }
        func range(_ rows: [Row], _ v: (Row) -> Double?) -> (Double, Double)? {
            let xs = rows.compactMap(v)
            return xs.isEmpty ? nil : (xs.min()!, xs.max()!)
        }
        func show(_ r: (Double, Double)?) -> String { r.map { "\(f($0.0)) … \(f($0.1))" } ?? "–" }
        func caught(_ failure: String, _ code: String) -> String {
            let rows = all.filter { $0.failure == failure }
            let errors = rows.filter { $0.findings.contains("\(code):error") }.count
            let warnings = rows.filter { $0.findings.contains("\(code):warning") }.count
            return "\(errors) error, \(warnings) warning of \(rows.count)"
        }
        let gain: (Row) -> Double? = { r in
            guard let b = r.number("corr_best"), let i = r.number("corr_identity") else { return nil }
            return b - i
        }
        let runnerUp: (Row) -> Double? = { r in
            guard let i = r.number("corr_identity"), let u = r.number("corr_runner_up") else { return nil }
            return (r.values["best_orientation"] as? Int) == 1 ? i - u : u - i
        }
        var s = "| check | statistic | legitimate renderings | deliberate failures | limits | caught |\n"
        s += "|---|---|---|---|---|---|\n"
        s += "| render.blank | output L* spread (p99 − p1) | \(show(range(legit) { $0.number("out_spread") })) | "
        s +=
            "\(show(range(all.filter { $0.failure == "constant" }) { $0.number("out_spread") })) | < \(f(t.blankSpread)) | "
        s += caught("constant", DeliberateFailure.constant.expectedCode) + " |\n"
        s += "| render.orientation | identity's lead over the runner-up (legit); best's gain over identity (turned) | "
        s += "\(show(range(legit, runnerUp))) | \(show(range(all.filter { $0.failure == "turned-90" }, gain))) | "
        s +=
            "gain ≥ \(f(t.orientationGain)), best ≥ \(f(t.orientationCorrelation)) | "
            + caught("turned-90", DeliberateFailure.turned90.expectedCode) + " |\n"
        s += "| render.cast | \\|Δa\\*b\\*\\| | \(show(range(legit) { $0.number("cast") })) | "
        s += "\(show(range(all.filter { $0.failure == "cast-rb-40" }) { $0.number("cast") })) | "
        s +=
            "warning ≥ \(f(t.castWarning)), error ≥ \(f(t.castError)) | "
            + caught("cast-rb-40", DeliberateFailure.castRedBlue.expectedCode) + " |\n"
        s += "| render.exposure | mid-tone shift (stops) | \(show(range(legit) { $0.number("exposure_stops") })) | "
        s += "\(show(range(all.filter { $0.failure == "under-1.5" }) { $0.number("exposure_stops") })) | "
        s += "warning outside \(f(t.exposureWarning.lowerBound)) … \(f(t.exposureWarning.upperBound)), error outside "
        s +=
            "\(f(t.exposureError.lowerBound)) … \(f(t.exposureError.upperBound)) | "
            + caught("under-1.5", DeliberateFailure.under.expectedCode) + " |\n"
        let falseErrors = legit.filter { r in r.findings.contains { $0.hasSuffix(":error") } }
        let falseWarnings = legit.filter { r in r.findings.contains { $0.hasSuffix(":warning") } }
        s += "\nLegitimate renderings: \(legit.count); with a render error: \(falseErrors.count)"
        s +=
            falseErrors.isEmpty
            ? "" : " (" + falseErrors.map { "\($0.source) \($0.renderer)" }.joined(separator: ", ") + ")"
        s += "; with a render warning: \(falseWarnings.count)"
        s +=
            falseWarnings.isEmpty
            ? ""
            : " ("
                + falseWarnings.map { "\($0.source) \($0.renderer): \($0.findings.joined(separator: " "))" }.joined(
                    separator: ", ") + ")"
        return s + ".\n"
    }
}
