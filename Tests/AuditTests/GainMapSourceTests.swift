import CorpusKit
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// A JPEG carrying gain-map XMP (Adobe/Google `hdrgm`) but no gain-map image: it announces a gain map that no
/// reader finds.
private func declaredOnlyJPEG() -> [UInt8] {
    let xmp = Array(
        """
        http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"/></rdf:RDF></x:xmpmeta>
        """.utf8)
    let len = xmp.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF)] + xmp + [0xFF, 0xD9]
}

@Test func gainMapJPEGSourceWithoutGainMapOutputIsCaught() throws {
    var o = Constructed.Options()
    o.appleGainMap = false
    o.isoGainMap = false
    let dir = Repo.temporaryDirectory("audit-jpeg")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = try Constructed.write(JPEGGainMapCorpus.build(.ultraHDR), "IMG.jpg", in: dir)
    let out = try Constructed.write(try Constructed.heic(o), "IMG.heic", in: dir)
    let r = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
        AuditJob(name: "IMG.heic", source: src, output: out))
    #expect(r.findings.contains { $0.code == .gainmapMissing && $0.severity == .error })
    // A plain JPEG source (no gain-map XMP) asks for nothing.
    let plain = try Constructed.write([0xFF, 0xD8, 0xFF, 0xD9], "PLAIN.jpg", in: dir)
    let r2 = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
        AuditJob(name: "IMG.heic", source: plain, output: out))
    #expect(!r2.findings.contains { $0.code == .gainmapMissing })
    // Nor does a source that only announces one (hdrgm XMP, no MPF, no gain-map image): readers find none in it, as
    // a HEIF source's gain map counts only when readers would use it.
    let declared = try Constructed.write(declaredOnlyJPEG(), "DECLARED.jpg", in: dir)
    let r3 = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
        AuditJob(name: "IMG.heic", source: declared, output: out))
    #expect(!r3.findings.contains { $0.code == .gainmapMissing }, "\(r3.findings)")
}
