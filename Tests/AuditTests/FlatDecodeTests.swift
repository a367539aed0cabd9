import CorpusKit
import Findings
import Foundation
import HEIF
import HeifCodec
import ReportModel
import TestSupport
import Testing

@testable import Audit

/// A 256×256 photo-like HEIC with a camera's Exif: flat grey, or a gradient.
private func photo(flat: Bool) throws -> [UInt8] {
    let (w, h) = (256, 256)
    var s = HeifEncodeSettings()
    s.preset = "ultrafast"
    let px = (0..<(w * h * 3)).map { i in flat ? UInt8(128) : UInt8((i / 3 % w + i / 3 / w) / 2) }
    let f = HEIFFile(bytes: try HeifEncoder.encode(.rgb8(width: w, height: h, samples: px), settings: s))
    var b = HEIFBuilder(file: f)
    _ = b.addExif(tiff: Corpus.exifTIFF(Corpus.tiny[0].spec), describing: [try #require(f.primaryItemID)])
    return b.build()
}

/// No garbage passes: with nothing to compare with, a photo that decodes flat is still a finding.
@Test func aFlatDecodeOfAPhotoIsAFindingWithoutAReference() throws {
    let flat = try auditBytes(source: nil, output: try photo(flat: true))
    let f = flat.findings.first { $0.code == .renderBlank }
    #expect(f?.severity == .warning, "\(flat.findings)")
    #expect(f?.message.contains("flat picture") == true)
    // The same without thumbnails (the decode keeps only the size and the plane's spread).
    let dir = Repo.temporaryDirectory("flat-decode")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = try Constructed.write(try photo(flat: true), "out.heic", in: dir)
    let job = AuditJob(name: "out.heic", source: nil, output: url, sourceDisplay: nil, outputDisplay: "out.heic")
    let r = FileAuditor(options: AuditOptions(policy: .builtIn, decode: true, thumbnails: false), decoders: .inProcess)
        .audit(job)
    #expect(r.findings.contains { $0.code == .renderBlank }, "\(r.findings)")
    // A picture with content is not.
    let gradient = try auditBytes(source: nil, output: try photo(flat: false))
    #expect(!gradient.findings.contains { $0.code == .renderBlank }, "\(gradient.findings)")
}
