import Audit
import Foundation
import TestSupport
import Testing

/// The auditor takes an output for HEIF through the one brand sniffer (`Brands.isHEIF`, which the metadata reader
/// uses too): an output whose `ftyp` names Apple's `MiHE` and AV1's `avio` instead of `heic` and `mif1` is audited
/// as a HEIF file, not as a file of another family (`output.not-heif`).
@Test func auditorTakesMiHEAndAvioOutputsForHEIF() throws {
    var bytes = try Constructed.heic()
    // Rename the brands in place inside the ftyp box (same lengths, so no offset moves).
    let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
    for at in stride(from: 8, to: size, by: 4) where at != 12 {
        switch String(decoding: bytes[at..<(at + 4)], as: UTF8.self) {
        case "heic": bytes.replaceSubrange(at..<(at + 4), with: Array("MiHE".utf8))
        case "mif1": bytes.replaceSubrange(at..<(at + 4), with: Array("avio".utf8))
        default: break
        }
    }
    #expect(String(decoding: bytes[8..<12], as: UTF8.self) == "MiHE")
    let dir = Repo.temporaryDirectory("brand-sniffer")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = try Constructed.write(bytes, "apple.heic", in: dir)
    let findings = FileAuditor(options: AuditOptions(decode: false), decoders: .inProcess).audit(
        AuditJob(name: "apple.heic", source: nil, output: out)
    ).findings
    #expect(!findings.contains { $0.code == .outputNotHeif }, "\(findings.map(\.code))")
    // The container checks ran: they miss `mif1`.
    #expect(findings.contains { $0.code.rawValue.contains("mif1") }, "\(findings.map(\.code))")
}
