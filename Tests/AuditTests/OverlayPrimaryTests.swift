import Findings
import Foundation
import HEIF
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// A HEIF whose primary is an overlay (`iovl`): libheif 1.15 dies with SIGSEGV in its overlay code on one, so the
/// audit must never hand it over (a crash here takes the whole test process down), and must not pass it silently.
enum OverlayFixture {
    /// `Constructed.heic()` with its coded primary hidden behind an `iovl` over it and its thumbnail (or itself
    /// twice), one input at a negative offset, one clipped by the right and bottom edges, on a grey fill, with the
    /// primary's colr; or with
    /// `missingInput` an overlay whose second input names an item the file does not have.
    static func file(missingInput: Bool = false) throws -> (bytes: [UInt8], overlay: UInt32) {
        let good = HEIFFile(bytes: try Constructed.heic())
        let p = try #require(good.primaryItemID)
        let size = try #require(good.imageSize(of: p))
        let second = missingInput ? 9999 : (good.thumbnails(of: p).first ?? p)
        var b = HEIFBuilder(file: good)
        b.updateItem(p) { $0.hidden = true }
        let o = b.addOverlay(
            width: size.width, height: size.height, fill: (0x8000, 0x8000, 0x8000, 0xFFFF), inputs: [p, second],
            offsets: [(x: -8, y: -4), (x: Int32(size.width / 2), y: Int32(size.height / 2))],
            properties: good.properties(of: p).filter { $0.property.type == "colr" }.map { ($0.property, false) })
        b.setPrimary(o)
        return (b.build(), o)
    }
}

@Test func theOverlayFixtureHasAnIovlPrimaryOverCodedInputs() throws {
    let (bytes, o) = try OverlayFixture.file()
    let f = HEIFFile(bytes: bytes)
    #expect(f.primaryItemID == o)
    #expect(f.item(o)?.type == "iovl")
    #expect(f.derivedInputs(of: o).count == 2)
    #expect(f.overlayInPrimaryDerivation == o)
    // The original good file has no overlay.
    #expect(HEIFFile(bytes: try Constructed.heic()).overlayInPrimaryDerivation == nil)
}

@Test func anOverlayPrimaryIsNamedNotDecodedAndNeverPassesSilently() throws {
    let (bytes, o) = try OverlayFixture.file()
    let r = try auditBytes(source: bytes, output: bytes)
    let errors = r.findings.filter { $0.severity == .error }
    #expect(errors.isEmpty, "\(errors.map { "\($0.code): \($0.message)" })")
    let named = r.findings.filter { $0.code == .decodeUnsupported }
    #expect(named.count == 1)
    #expect(named.first?.severity == .warning)
    #expect(named.first?.message.contains("iovl, item \(o)") == true)
    #expect(named.first?.evidence?.item == o)
    let primary = r.decode.filter { $0.target == .primary }
    #expect(primary.map(\.status) == [.skipped])
    #expect(primary.first?.message?.contains("libheif 1.15 crashes") == true)
    // Not decoded without being asked to decode either: no decode row, no finding about it.
    let quick = try auditBytes(source: bytes, output: bytes, decode: false)
    #expect(quick.decode.isEmpty)
    #expect(!codes(quick).contains(FindingCode.decodeUnsupported.rawValue))
}

@Test func anOverlayWhoseInputIsMissingGetsFindingsAndNoCrash() throws {
    let (bytes, o) = try OverlayFixture.file(missingInput: true)
    let r = try auditBytes(source: nil, output: bytes)
    #expect(codes(r).contains(FindingCode.decodeUnsupported.rawValue), "\(r.findings)")
    #expect(r.findings.contains { $0.evidence?.item == o })
    #expect(r.decode.filter { $0.target == .primary }.map(\.status) == [.skipped])
}
