import Foundation

extension AuditReport {
    /// A report whose `schemaVersion` this build does not read.
    public struct UnsupportedSchema: Error, CustomStringConvertible, Sendable {
        public let found: Int?
        public var description: String {
            if let found {
                let v = AuditReport.readableSchemaVersions
                return
                    "report schemaVersion \(found) is not supported (this build reads \(v.lowerBound) to \(v.upperBound))"
            }
            return "not a Readback report: no schemaVersion"
        }
    }

    private struct Probe: Decodable { let schemaVersion: Int? }

    /// Decodes a report, checking `schemaVersion` before anything else. The result is always a current report:
    /// a version-1 report comes back with the current `schemaVersion` (it differs only by the thumbnails, which are
    /// dropped), and a report before version 4 with its renamed codes in their current spelling, as every code is
    /// read (`FindingCode.named`: a baseline of version 3 compares with today's run; the old names are read for one
    /// report-schema version).
    /// - Parameter data: the bytes of a `report.json`.
    /// - Returns: the report.
    /// - Throws: ``UnsupportedSchema`` for another version; `FindingCode.Unknown` for a finding code this build's
    ///   catalogue does not list (a report of a newer Readback: comparing with it would drop what this build cannot
    ///   name); or a `DecodingError`.
    public static func decode(_ data: Data) throws -> AuditReport {
        let probe = try JSONDecoder().decode(Probe.self, from: data)
        guard let v = probe.schemaVersion else { throw UnsupportedSchema(found: nil) }
        guard readableSchemaVersions.contains(v) else { throw UnsupportedSchema(found: v) }
        var report = try JSONDecoder().decode(AuditReport.self, from: data)
        report.schemaVersion = currentSchemaVersion
        return report
    }

    /// The stable JSON text: keys sorted, two-space indentation, `schemaVersion` moved to the first line so a reader
    /// (or a human) sees it first.
    /// - Returns: UTF-8 JSON ending in a newline.
    public func jsonText() -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types into JSON cannot fail except for non-finite doubles, which we never store.
        guard let data = try? e.encode(self) else { return "{}\n" }
        var bytes = [UInt8](data)
        Self.moveSchemaVersionFirst(&bytes, version: schemaVersion)
        bytes.append(0x0A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Moves the top-level line `  "schemaVersion" : N,` to just after the opening `{`, working on the bytes: a
    /// report of 100,000 files is tens of megabytes, too many to split into lines. Only a top-level member sits
    /// at two spaces of indentation (a string's line feeds are escaped), and `schemaVersion` sorts after `files`, so
    /// the search runs backwards from the end.
    static func moveSchemaVersionFirst(_ bytes: inout [UInt8], version: Int) {
        let line = Array("\n  \"schemaVersion\" : \(version),\n".utf8)
        guard bytes.first == UInt8(ascii: "{"), bytes.count > line.count else { return }
        let found: Int? = bytes.withUnsafeBufferPointer { b in
            var i = b.count - line.count
            while i > 0 {
                if b[i] == 0x0A, b[i + 1] == 0x20, b[i + 2] == 0x20, b[i + 3] == 0x22,
                    line.indices.allSatisfy({ b[i + $0] == line[$0] })
                {
                    return i
                }
                i -= 1
            }
            return nil
        }
        // Keep the line feed that ends the line: it now begins the next one.
        guard let start = found, start > 1 else { return }
        bytes.removeSubrange(start..<(start + line.count - 1))
        bytes.insert(contentsOf: line.dropLast(), at: 1)
    }
}
