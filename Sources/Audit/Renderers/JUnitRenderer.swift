import Findings
import Foundation
import ReportModel

/// Renders a report as JUnit XML: one `<testcase>` per file, one `<failure>` on each file whose findings reach the gate.
///
/// `tests` equals `summary.files` and `failures` equals `summary.failed` of the JSON report.
public enum JUnitRenderer {
    /// The XML text.
    /// - Parameter report: the report (its summary is taken as is).
    /// - Returns: a UTF-8 XML document ending in a newline.
    public static func render(_ report: AuditReport) -> String {
        var x = head(report)
        for f in report.files { x += testcase(f, gate: report.run.failOn) }
        return x + tail
    }

    /// Everything before the first `<testcase>`: the counts of `report.summary` and the run's properties.
    public static func head(_ report: AuditReport) -> String {
        let tests = report.summary.files
        let failures = report.summary.failed
        let time = String(format: "%.3f", report.run.durationSeconds)
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x +=
            "<testsuites name=\"readback audit\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
        x +=
            "  <testsuite name=\"readback audit\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\""
        x += " time=\"\(time)\" timestamp=\"\(esc(report.run.startedAt))\">\n"
        x += "    <properties>\n"
        x += "      <property name=\"schemaVersion\" value=\"\(report.schemaVersion)\"/>\n"
        x += "      <property name=\"\(esc(report.tool.name))\" value=\"\(esc(report.tool.version))\"/>\n"
        for l in report.libraries { x += "      <property name=\"\(esc(l.name))\" value=\"\(esc(l.version))\"/>\n" }
        x += "      <property name=\"failOn\" value=\"\(report.run.failOn.rawValue)\"/>\n"
        x += "    </properties>\n"
        return x
    }

    /// One file's `<testcase>`, with a `<failure>` when its findings reach `gate`.
    public static func testcase(_ f: FileResult, gate: Severity) -> String {
        var x = "    <testcase classname=\"readback.audit\" name=\"\(esc(f.name))\" time=\"0\">\n"
        let failing = f.failures(failOn: gate)
        if !failing.isEmpty {
            let codes = Array(Set(failing.map(\.code))).sorted().joined(separator: " ")
            x +=
                "      <failure type=\"\(esc(codes))\" message=\"\(failing.count) finding(s) at or above \(gate.rawValue): \(esc(codes))\">"
            x += esc(failing.map(line).joined(separator: "\n"))
            x += "</failure>\n"
        }
        let rest = f.findings.filter { !$0.severity.fails(gate: gate) }
        if !rest.isEmpty {
            x += "      <system-out>" + esc(rest.map(line).joined(separator: "\n")) + "</system-out>\n"
        }
        return x + "    </testcase>\n"
    }

    /// Everything after the last `<testcase>`.
    public static let tail = "  </testsuite>\n</testsuites>\n"

    static func line(_ f: Finding) -> String {
        var s = "[\(f.severity.rawValue)] \(f.code): \(f.message)"
        if let e = f.evidence { s += " (" + EvidenceText.describe(e) + ")" }
        return s
    }

    /// XML-escapes text and drops characters XML 1.0 cannot carry.
    static func esc(_ s: String) -> String {
        var o = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            case "'": o += "&apos;"
            case "\n", "\t", "\r": o.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || (0xFFFE...0xFFFF).contains(u.value) {
                    o += "?"
                } else {
                    o.unicodeScalars.append(u)
                }
            }
        }
        return o
    }
}

/// One-line text for evidence, shared by the renderers and the CLI.
public enum EvidenceText {
    /// `offset 1234, item 7, field GPS:GPSLatitude, expected 1, actual 6`, omitting what is absent.
    public static func describe(_ e: Evidence) -> String {
        var parts: [String] = []
        if let o = e.offset { parts.append("offset \(o)") }
        if let i = e.item { parts.append("item \(i)") }
        if let f = e.field { parts.append("field \(f)") }
        if let x = e.expected { parts.append("expected \(x)") }
        if let a = e.actual { parts.append("actual \(a)") }
        return parts.joined(separator: ", ")
    }
}
