import CorpusKit
import Findings
import Foundation
import HEIF
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// The committed conformance cases (`Corpus/heic/conformance/`, `ConformanceCases`): each file once misjudged,
/// audited against itself with full decoding, must get the verdict its MANIFEST row gives: no error, the codes
/// named there (warnings at most) and nothing else at warning level, and the primary's orientation.
enum ConformanceManifest {
    static let rows: [ManifestEntry] = {
        let url = Repo.root.appendingPathComponent("Corpus/MANIFEST")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return Corpus.parseManifest(text).filter { $0.file.hasPrefix(ConformanceCases.folder + "/") }
    }()
}

@Test func theCorpusHoldsEveryConformanceCase() {
    let names = Set(ConformanceManifest.rows.map { ($0.file as NSString).lastPathComponent })
    #expect(
        names == [
            "avc-primary.heic", "group-properties.heic", "iden-chain-rotations.heic", "iden-primary.heic",
            "sequence-only.heic", "ten-bit-no-colr.heic", "unknown-essential.heic",
        ])
}

@Test(arguments: ConformanceManifest.rows.map(\.file))
func aConformanceCaseAuditedAgainstItselfGetsItsVerdict(_ file: String) throws {
    let row = try #require(ConformanceManifest.rows.first { $0.file == file })
    let bytes = [UInt8](try Data(contentsOf: Repo.root.appendingPathComponent("Corpus/" + file)))
    let r = try auditBytes(source: bytes, output: bytes)
    let parts = row.expectedAudit.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(parts.first == "no error")
    let errors = r.findings.filter { $0.severity == .error }
    #expect(errors.isEmpty, "\(file): \(errors.map { "\($0.code): \($0.message)" })")
    let expected = Set(parts.dropFirst().filter { $0.contains(".") && !$0.hasPrefix("orientation ") })
    #expect(codes(r) == expected, "\(file): \(r.findings.map { "\($0.code): \($0.message)" })")
    let orientation = parts.first { $0.hasPrefix("orientation ") }.flatMap { Int($0.dropFirst(12)) } ?? 1
    let f = HEIFFile(bytes: bytes)
    if let p = f.primaryItemID { #expect(f.orientation(of: p).exif == orientation, "\(file)") }
}

/// The same files without their fixes' reason: an unknown essential property is named on the item that has it,
/// and the item is not decoded (no decode result at all), while the file without it decodes.
@Test func anUnknownEssentialPropertyKeepsTheItemFromBeingJudgedByItsPixels() throws {
    let url = Repo.root.appendingPathComponent("Corpus/" + ConformanceCases.folder + "/unknown-essential.heic")
    let bytes = [UInt8](try Data(contentsOf: url))
    let r = try auditBytes(source: nil, output: bytes)
    let f = r.findings.first { $0.code == .containerUnsupportedEssential }
    #expect(f?.message.contains("'pred'") == true)
    #expect(r.decode.isEmpty)
    // The same file with the property not essential: understood as descriptive, decoded and judged.
    let file = HEIFFile(bytes: bytes)
    let p = try #require(file.primaryItemID)
    var b = HEIFBuilder(file: file)
    b.setProperties(of: p, file.properties(of: p).map { ($0.property, essential: $0.property.type != "pred") })
    let relaxed = try auditBytes(source: nil, output: b.build())
    #expect(!codes(relaxed).contains(FindingCode.containerUnsupportedEssential.rawValue))
    #expect(relaxed.decode.first?.status == .ok)
}
