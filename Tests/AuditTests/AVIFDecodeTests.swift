import AVIFCodec
import Audit
import Foundation
import TestSupport
import Testing

/// An AVIF output libheif cannot decode is tried with libavif; when neither decodes it, the finding says so with
/// both decoders' reasons ("not decoded, and why").
@Test func undecodableAVIFSaysWhyWithBothDecoders() throws {
    let seed = Repo.root.appendingPathComponent("Tests/HEIFTests/Fixtures/seed-avif.avif")
    let report = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
        AuditJob(name: "seed-avif.avif", source: nil, output: seed))
    let failed = try #require(report.findings.first { $0.code == .decodePrimaryFailed }, "\(report.findings)")
    #expect(failed.message.contains("libavif \(AVIFDecoder.shortVersion) does not decode it either"), "\(failed)")
    let libavif = try #require(
        report.decode.first { $0.decoder == "libavif \(AVIFDecoder.shortVersion)" }, "\(report.decode)")
    #expect(libavif.target == .primary && libavif.status == .failed)
    #expect(libavif.message?.contains("avifDecoderReadMemory") == true, "\(libavif)")
    #expect(report.decode.contains { $0.decoder?.hasPrefix("libheif ") == true && $0.status == .failed })
    #expect(!report.findings.contains { $0.code == .decodeLibavifRefused }, "one finding for a file none decodes")
}

/// A HEIC relabelled as AVIF (ftyp major brand `avif`, HEVC inside, as some converters write): libavif finds no AV1
/// and refuses it, libheif decodes it. The pixels are libheif's, the decode rows say which decoder gave what, and one
/// warning names libavif's reason.
@Test func avifThatOnlyLibheifDecodesIsAWarningNamingLibavifsReason() throws {
    var bytes = try [UInt8](Data(contentsOf: Repo.root.appendingPathComponent("Corpus/heic/good.heic")))
    #expect(Array(bytes[4..<12]) == Array("ftypheic".utf8))
    bytes.replaceSubrange(8..<12, with: Array("avif".utf8))
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readback-avif-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("relabelled.avif")
    try Data(bytes).write(to: url)
    let report = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
        AuditJob(name: "relabelled.avif", source: nil, output: url))
    let refused = report.findings.filter { $0.code == .decodeLibavifRefused }
    #expect(refused.count == 1, "\(report.findings)")
    #expect(refused.first?.severity == .warning)
    #expect(refused.first?.message.contains("No AV1 items found") == true, "\(refused)")
    #expect(!report.findings.contains { $0.code == .decodePrimaryFailed }, "\(report.findings)")
    let ok = try #require(report.decode.first { $0.status == .ok }, "\(report.decode)")
    #expect(ok.decoder?.hasPrefix("libheif ") == true && ok.width == 256 && ok.height == 192, "\(ok)")
    #expect(report.decode.contains { $0.decoder == "libavif \(AVIFDecoder.shortVersion)" && $0.status == .failed })
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
