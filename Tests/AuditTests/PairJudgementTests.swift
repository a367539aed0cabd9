import Audit
import Findings
import Foundation
import TestSupport
import Testing

/// `readback diff` and `readback audit` judge a pair through the same ``PairJudgement``: for every pair below, the
/// metadata and orientation findings of the audit are exactly the diff's (code, severity, field).
@Test func diffAndAuditGiveTheSameJudgement() throws {
    var src = Constructed.Options()
    src.exif = TinyTIFF.make(orientation: 6)
    src.width = 64
    src.height = 48
    var turned = src
    turned.width = 48
    turned.height = 64
    var noGPS = src
    noGPS.exif = TinyTIFF.make(orientation: 6, gps: nil)
    var shifted = src
    shifted.exif = TinyTIFF.make(orientation: 6, dateTimeOriginal: "2024:05:06 08:08:09")
    let dir = Repo.temporaryDirectory("pair-judgement")
    defer { try? FileManager.default.removeItem(at: dir) }
    let s = try Constructed.write(try Constructed.heic(src), "src.heic", in: dir)
    for (name, o) in [("same", src), ("turned", turned), ("nogps", noGPS), ("shifted", shifted)] {
        let out = try Constructed.write(try Constructed.heic(o), "\(name).heic", in: dir)
        func key(_ f: Finding) -> String { "\(f.code) \(f.severity) \(f.evidence?.field ?? "")" }
        func judged(_ f: Finding) -> Bool {
            f.code.rawValue.hasPrefix("metadata.") || f.code.rawValue.hasPrefix("orientation.")
        }
        let diff = Policy.builtIn.apply(PairJudgement.judge(source: s, output: out, decoders: .inProcess).findings)
            .filter(judged)
        let audit = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(name: name, source: s, output: out)
        ).findings.filter(judged)
        #expect(diff.map(key).sorted() == audit.map(key).sorted(), "\(name)")
        let errors = Set(audit.filter { $0.severity == .error }.map { $0.code.rawValue })
        switch name {
        case "same": #expect(errors.isEmpty, "\(audit)")
        case "turned": #expect(errors == ["orientation.changed"], "\(audit)")
        default: #expect(errors == [name == "nogps" ? "metadata.lost" : "metadata.changed"], "\(audit)")
        }
    }
}

/// An output of another family (a JPEG) is said to be one, once, as a warning; its metadata is still judged against
/// the source. Bytes no reader recognises stay with the container checks.
@Test func anOutputThatIsNotHEIFIsJudgedOnItsMetadataOnly() throws {
    func jpeg(_ tiff: [UInt8]) -> [UInt8] {
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let len = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF)] + body + [0xFF, 0xD9]
    }
    let dir = Repo.temporaryDirectory("not-heif")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = try Constructed.write(jpeg(TinyTIFF.make(orientation: 6)), "a.jpg", in: dir)
    let noGPS = try Constructed.write(jpeg(TinyTIFF.make(orientation: 6, gps: nil)), "b.jpg", in: dir)
    let junk = try Constructed.write([UInt8](repeating: 0x5A, count: 64), "c.heic", in: dir)
    func audit(_ s: URL, _ o: URL) -> [Finding] {
        FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(name: o.lastPathComponent, source: s, output: o)
        )
        .findings
    }
    let itself = audit(src, src)
    #expect(itself.filter { $0.severity == .error }.isEmpty, "\(itself)")
    #expect(itself.filter { $0.code == .outputNotHeif }.map(\.severity) == [.warning])
    let lost = audit(src, noGPS)
    #expect(lost.contains { $0.code == .metadataLost && $0.severity == .error })
    #expect(audit(src, junk).contains { $0.code == .containerFtypMissing })
}
