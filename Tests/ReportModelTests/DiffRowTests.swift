import Foundation
import ReportModel
import Testing

/// A report row holds the diff's own class (one enum for the diff and the report) but writes the report's strings:
/// a same-value rewrite is kept, a rounding changed, an expected change `expected`; they read back the same.
@Test func diffRowsKeepTheReportStrings() throws {
    let rows = [
        DiffRow(field: "A:a", status: .reencoded, source: "1", output: "1.0"),
        DiffRow(field: "A:b", status: .rounded, source: "1.04", output: "1.0"),
        DiffRow(field: "A:c", status: .expectedChange, source: "6", output: "1", note: "pixels rotated"),
        DiffRow(field: "A:d", status: .knownLoss, source: "x", output: nil),
    ]
    #expect(rows.map(\.status) == [.kept, .changed, .expectedChange, .knownLoss])
    let enc = JSONEncoder()
    enc.outputFormatting = [.sortedKeys]
    let text = String(decoding: try enc.encode(rows), as: UTF8.self)
    #expect(text.contains(#""status":"kept""#) && text.contains(#""status":"changed""#))
    #expect(text.contains(#""status":"expected""#) && text.contains(#""status":"known-loss""#))
    #expect(!text.contains("reencoded") && !text.contains("expected-change") && !text.contains("null"))
    #expect(try JSONDecoder().decode([DiffRow].self, from: Data(text.utf8)) == rows)
    #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(DiffRow.self, from: Data(#"{"field":"A:a","status":"vanished"}"#.utf8))
    }
}
