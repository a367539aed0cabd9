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
            let codes = Array(Set(failing.map(\.code.rawValue))).sorted().joined(separator: " ")
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

    /// True for a UTF-8 byte ``esc(_:)`` may rewrite: markup, a control character other than tab and line feeds,
    /// or the lead byte of U+FFFE and U+FFFF.
    static func mayChange(_ b: UInt8) -> Bool {
        if b < 0x20 { return b != 0x0A && b != 0x09 && b != 0x0D }
        return b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27 || b == 0xEF
    }

    /// XML-escapes text and drops characters XML 1.0 cannot carry.
    static func esc(_ s: String) -> String {
        // Most text has nothing to escape or drop: one pass over the UTF-8 bytes returns it as it is (U+FFFE and
        // U+FFFF are EF BF BE / EF BF BF, so a text without 0xEF holds neither).
        if !s.utf8.contains(where: mayChange) { return s }
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
