import CorpusKit
import Findings
import Foundation
import HEIF
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

/// Audits `output` (and `source`) written to a temporary folder, with full decoding.
func auditBytes(source: [UInt8]?, output: [UInt8]?, policy: Policy = .builtIn, decode: Bool = true) throws -> FileResult
{
    try auditBytesWithThumbnails(source: source, output: output, policy: policy, decode: decode).result
}

/// ``auditBytes(source:output:policy:decode:)`` with the thumbnails the audit made.
func auditBytesWithThumbnails(
    source: [UInt8]?, output: [UInt8]?, policy: Policy = .builtIn, decode: Bool = true
) throws -> (result: FileResult, thumbnails: Thumbnails) {
    let dir = Repo.temporaryDirectory("audit-case")
    defer { try? FileManager.default.removeItem(at: dir) }
    let s = try source.map { try Constructed.write($0, "src.heic", in: dir) }
    let o = try output.map { try Constructed.write($0, "out.heic", in: dir) }
    let job = AuditJob(
        name: "out.heic", source: s, output: o, sourceDisplay: s.map { _ in "src.heic" }, outputDisplay: "out.heic")
    return FileAuditor(options: AuditOptions(policy: policy, decode: decode, thumbnails: true), decoders: .inProcess)
        .auditWithThumbnails(job)
}

/// The eight bytes every PNG starts with.
let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

func codes(_ r: FileResult, _ severities: Set<Severity> = [.error, .warning]) -> Set<String> {
    Set(r.findings.filter { severities.contains($0.severity) }.map(\.code.rawValue))
}

@Test func completeFileIsClean() throws {
    let good = try Constructed.heic()
    let (r, thumbnails) = try auditBytesWithThumbnails(source: good, output: good)
    #expect(codes(r).isEmpty, "unexpected: \(r.findings)")
    #expect(r.gainMaps.map(\.kind) == ["apple", "iso"])
    #expect(r.gainMaps.allSatisfy { $0.isComplete })
    #expect(r.decode.map(\.status) == [.ok, .ok])
    #expect(r.decode.first?.width == 64)
    #expect(thumbnails.primary?.starts(with: pngSignature) == true)
    #expect(thumbnails.gainMap?.starts(with: pngSignature) == true)
    #expect(r.verdict(failOn: .error) == .pass)
}

@Test func gainMapDroppedIsCaught() throws {
    var o = Constructed.Options()
    o.appleGainMap = false
    o.isoGainMap = false
    let r = try auditBytes(source: try Constructed.heic(), output: try Constructed.heic(o))
    #expect(codes(r).contains("gainmap.missing"))
    #expect(r.findings.first { $0.code == .gainmapMissing }?.severity == .error)
    #expect(r.gainMaps.isEmpty)
    // Without a source there is nothing to miss, unless the policy requires a gain map.
    #expect(!codes(try auditBytes(source: nil, output: try Constructed.heic(o))).contains("gainmap.missing"))
    var strict = Policy.builtIn
    strict.requireGainMap = true
    #expect(
        codes(try auditBytes(source: nil, output: try Constructed.heic(o), policy: strict)).contains("gainmap.missing"))
}

@Test func appleAuxWithoutItsXMPIsCaught() throws {
    var o = Constructed.Options()
    o.appleXMP = false
    let r = try auditBytes(source: nil, output: try Constructed.heic(o))
    #expect(codes(r).contains("gainmap.apple.xmp-missing"))
    let apple = r.gainMaps.first { $0.kind == "apple" }
    #expect(apple?.metadata == .fail)
    #expect(apple?.description == .pass && apple?.data == .pass)
    #expect(r.gainMaps.first { $0.kind == "iso" }?.isComplete == true)
}

@Test func tmapWithoutColrIsCaught() throws {
    var o = Constructed.Options()
    o.tmapColr = false
    let r = try auditBytes(source: nil, output: try Constructed.heic(o))
    #expect(codes(r).contains("gainmap.tmap.colr-missing"))
    #expect(r.gainMaps.first { $0.kind == "iso" }?.colourSpace == .fail)
}

@Test func gainMapDataMissingFromIlocIsCaught() throws {
    let broken = try Constructed.withoutGainMapLocation(try Constructed.heic())
    let r = try auditBytes(source: nil, output: broken)
    #expect(codes(r).contains("gainmap.data-missing"))
    #expect(r.gainMaps.allSatisfy { $0.data == .fail })
    #expect(r.verdict(failOn: .error) == .fail)
}

@Test func nclxMissingOnAnHDROutputIsCaught() throws {
    var o = Constructed.Options()
    o.tenBit = true
    o.primaryColr = false
    o.appleGainMap = false
    o.isoGainMap = false
    // 10 bits without colr is not HDR (no PQ/HLG, no clli/mdcv): neither HEIF nor MIAF requires a colr.
    let tenBit = try Constructed.heic(o)
    #expect(!codes(try auditBytes(source: nil, output: tenBit)).contains("signalling.nclx-missing"))
    // With a content light level it is HDR, and its transfer is undescribed.
    var b = HEIFBuilder(file: HEIFFile(bytes: tenBit))
    let p = try #require(HEIFFile(bytes: tenBit).primaryItemID)
    let props = b.entries.first { $0.item.id == p }!.properties
    b.setProperties(
        of: p, props.map { ($0.property, essential: $0.essential) } + [(.clli(maxCLL: 1000, maxPALL: 400), false)])
    let hdr = b.build()
    #expect(codes(try auditBytes(source: nil, output: hdr)).contains("signalling.nclx-missing"))
    // The same file with its nclx is clean.
    o.primaryColr = true
    #expect(!codes(try auditBytes(source: nil, output: try Constructed.heic(o))).contains("signalling.nclx-missing"))
}

@Test func bitDepthMismatchIsCaught() throws {
    var o = Constructed.Options()
    o.pixi = 10
    let r = try auditBytes(source: nil, output: try Constructed.heic(o))
    let f = r.findings.first { $0.code == .signallingBitDepthMismatch }
    #expect(f?.evidence?.expected == "8")
    #expect(f?.evidence?.actual == "10")
}

@Test func truncatedMdatIsCaughtWithItsOffset() throws {
    let good = try Constructed.heic()
    let f = HEIFFile(bytes: good)
    let mdat = try #require(f.boxes.first { $0.type == "mdat" })
    let cut = Array(good.prefix(good.count - 200))
    let r = try auditBytes(source: nil, output: cut)
    let t = r.findings.filter { $0.code == .containerTruncated }
    #expect(!t.isEmpty)
    #expect(t.contains { $0.evidence?.offset == mdat.offset })
    #expect(t.allSatisfy { $0.severity == .error })
}

@Test func outputMissingForASourceIsCaught() throws {
    let r = try auditBytes(source: try Constructed.heic(), output: nil)
    #expect(codes(r) == ["output.missing"])
}

@Test func noDecodeSkipsPixels() throws {
    let (r, thumbnails) = try auditBytesWithThumbnails(source: nil, output: try Constructed.heic(), decode: false)
    #expect(r.decode.isEmpty)
    #expect(thumbnails.isEmpty)
    #expect(r.gainMaps.count == 2)
}

@Test func hostileBytesNeverCrash() throws {
    var rng = SystemRandomNumberGenerator()
    let good = try Constructed.heic()
    for _ in 0..<20 {
        var b = good
        for _ in 0..<8 { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
        let r = try auditBytes(source: nil, output: b, decode: false)
        #expect(r.name == "out.heic")
    }
    let r = try auditBytes(source: nil, output: [0, 0, 0, 8, 0x66, 0x74, 0x79])
    #expect(r.verdict(failOn: .error) == .fail)
}

@Test func orientationAppliedTwiceIsCaught() throws {
    // Source: 64×48 stored, Exif Orientation 6 (shown 48×64).
    var src = Constructed.Options()
    src.exif = TinyTIFF.make(orientation: 6)
    src.appleGainMap = false
    src.isoGainMap = false
    src.width = 64
    src.height = 48
    // Output: the pixels turned (48×64 stored) and Exif Orientation 6 kept: viewers turn it again.
    var out = src
    out.width = 48
    out.height = 64
    // A HEIF reader ignores the source's Exif 6 and shows it 64×48; the output is shown 48×64: the orientation a
    // HEIF reader shows changed. (No irot, so no double-rotation pairing.)
    let r = try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(out))
    #expect(r.findings.contains { $0.code == .orientationChanged && $0.severity == .error })
    // Pixels turned and Orientation reset to 1: fine.
    out.exif = TinyTIFF.make(orientation: 1)
    #expect(
        !codes(try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(out))).contains(
            "orientation.double-rotation"))
    // Pixels as stored in the source with Orientation 6 kept: fine.
    #expect(
        !codes(try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(src))).contains(
            "orientation.double-rotation"))
}

/// CorpusKit's Mutator turns one good HEIC into each silent failure, labelled with the code the auditor must raise;
/// every one is caught, with that code, against the good file as source.
@Test(arguments: Mutator.codes)
func mutatorSilentFailuresAreCaught(_ code: String) throws {
    var o = Constructed.Options()
    o.width = 64
    o.height = 48
    o.exif = TinyTIFF.make(orientation: 1)
    let good = try Constructed.heic(o)
    let m = Mutator.mutate(HEIFFile(bytes: good), code: code)
    #expect(m.applied, "\(code): \(m.note)")
    let r = try auditBytes(source: good, output: m.bytes)
    // Any severity: the added irot + Exif 6 pairing is information (only readers applying both turn twice); the
    // turn a HEIF reader now shows is the error that fails the gate.
    #expect(
        Set(r.findings.map(\.code.rawValue)).contains(code),
        "\(code) not raised; got \(r.findings.map { "\($0.code): \($0.message)" })")
    #expect(r.verdict(failOn: .error) == .fail)
}

@Test func gpsRemovedIsCaught() throws {
    var src = Constructed.Options()
    src.exif = TinyTIFF.make()
    var out = src
    out.exif = TinyTIFF.make(gps: nil)
    let r = try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(out))
    let lost = r.findings.filter { $0.code == .metadataLost }
    #expect(lost.contains { $0.evidence?.field?.hasPrefix("GPS:") == true && $0.severity == .error })
    #expect(r.metadata.contains { $0.field.hasPrefix("GPS:GPSLatitude") && $0.status == .lost })
    #expect(r.metadata.contains { $0.field == "IFD0:Make" && $0.status == .kept })
}

@Test func dateTimeOriginalChangedIsCaught() throws {
    var src = Constructed.Options()
    src.exif = TinyTIFF.make()
    var out = src
    out.exif = TinyTIFF.make(dateTimeOriginal: "2024:05:06 07:08:10")
    let r = try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(out))
    let f = r.findings.first {
        $0.code == .metadataChanged && $0.evidence?.field?.hasSuffix("DateTimeOriginal") == true
    }
    #expect(f?.severity == .error)
    #expect(f?.evidence?.expected?.contains("07:08:09") == true)
    #expect(f?.evidence?.actual?.contains("07:08:10") == true)
    // Identical metadata: nothing lost or changed.
    let same = try auditBytes(source: try Constructed.heic(src), output: try Constructed.heic(src))
    #expect(!codes(same).contains("metadata.changed") && !codes(same).contains("metadata.lost"))
}

/// An nclx the source had and the output lost is caught even when an ICC profile remains (the converter's own files
/// carry both; a tool that drops the nclx leaves HDR-aware readers without CICP).
@Test func nclxLostAgainstTheSourceIsCaughtEvenWithAnICC() throws {
    let good = try Constructed.heic()
    var b = HEIFBuilder(file: HEIFFile(bytes: good))
    let p = try #require(HEIFFile(bytes: good).primaryItemID)
    let props = b.entries.first { $0.item.id == p }!.properties.filter { $0.property.type != "colr" }
    b.setProperties(
        of: p,
        props.map { ($0.property, essential: $0.essential) } + [(.colrICC(type: "prof", profile: [0, 0, 0, 0]), false)])
    let r = try auditBytes(source: good, output: b.build())
    let f = r.findings.first { $0.code == .signallingNclxMissing }
    #expect(f?.severity == .error)
    #expect(f?.evidence?.expected == "nclx 1/13/6")
    // Without a source, an ICC describes the transfer: nothing to say.
    #expect(!codes(try auditBytes(source: nil, output: b.build())).contains("signalling.nclx-missing"))
}
