import AVIFCodec
import Audit
import Foundation
import TestSupport
import Testing

/// An AVIF output libheif cannot decode is tried with libavif; when neither decodes it, the finding says so with
/// both decoders' reasons ("not decoded, and why").
@Test func undecodableAVIFSaysWhyWithBothDecoders() throws {
    let seed = Repo.root.appendingPathComponent("Tests/HEIFTests/Fixtures/seed-avif.avif")
    let report = FileAuditor(options: AuditOptions(decode: true)).audit(
        AuditJob(name: "seed-avif.avif", source: nil, output: seed))
    let failed = try #require(report.findings.first { $0.code == "decode.primary-failed" }, "\(report.findings)")
    #expect(failed.message.contains("libavif \(AVIFDecoder.shortVersion) does not decode it either"), "\(failed)")
    let libavif = try #require(report.decode.first { $0.target == "primary (libavif)" }, "\(report.decode)")
    #expect(libavif.status == "failed")
    #expect(libavif.message?.contains("avifDecoderReadMemory") == true, "\(libavif)")
}

/// libavif refuses bytes that are not an AVIF with its own reason, and never traps on a cut file.
@Test func libavifRefusesGarbageWithAReason() throws {
    let seed = try [UInt8](
        Data(contentsOf: Repo.root.appendingPathComponent("Tests/HEIFTests/Fixtures/seed-avif.avif")))
    for n in [0, 8, 32, seed.count / 2] {
        #expect(throws: AVIFError.self) { try AVIFDecoder.decode(Array(seed.prefix(n))) }
    }
    #expect(AVIFDecoder.version.hasPrefix(AVIFDecoder.shortVersion))
}
