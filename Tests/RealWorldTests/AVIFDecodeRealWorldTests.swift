import AVIFCodec
import Foundation
import HEIF
import HeifCodec
import ReportModel
import Testing

@testable import Audit

/// The corpus's AVIFs decode through libavif (dav1d) in the audit, and libavif's pixels are libheif's: the same
/// upright size and coded depth, and nearly the same samples (the two convert YUV to RGB on their own).
struct AVIFDecodeRealWorldTests {
    @Test func auditDecodesEveryCorpusAVIFThroughLibavifAsLibheifDoes() throws {
        let files = try RealWorldCorpus.files(["avif"])
        #expect(files.count >= 20)
        var relaxed: [String] = []
        for f in files {
            let name = f.lastPathComponent
            let bytes = try [UInt8](Data(contentsOf: f))
            let heif = try HeifDecoder.decodePrimary(bytes, format: .rgb8)
            let report = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
                AuditJob(name: name, source: nil, output: f))
            let row = try #require(report.decode.first { $0.target == .primary }, "\(name): \(report.decode)")
            #expect(row.decoder == "libavif \(AVIFDecoder.shortVersion)", "\(name): \(row)")
            #expect(row.status == .ok && row.width == heif.width && row.height == heif.height, "\(name): \(row)")
            #expect(row.bitDepth == heif.codedBitDepth, "\(name): \(row)")
            #expect(!report.findings.contains { $0.code.rawValue.hasPrefix("decode.") }, "\(name): \(report.findings)")
            if row.message != nil { relaxed.append("\(name): \(row.message!)") }

            // The pixels the render check reads: libavif's, turned upright by the primary's irot/imir.
            let file = HEIFFile(bytes: bytes)
            let o = file.primaryItemID.map { file.orientation(of: $0).exif } ?? 1
            let a = try Checks.libavifDecode(bytes, orientation: o, rgb: true, decoders: .inProcess).get()
            let img = try #require(a.image)
            #expect(img.width == heif.width && img.height == heif.height, "\(name)")
            let diff = zip(img.samples, heif.samples).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            let mean = Double(diff) / Double(max(img.samples.count, 1))
            #expect(
                mean < 2.5,
                "\(name): libavif and libheif pixels differ by \(mean) codes on average; libheif \(heif.bitDepth)-bit \(heif.channels) ch \(Array(heif.samples.prefix(9))) libavif \(Array(img.samples.prefix(9)))"
            )
        }
        // libvips writes no pixi property: libavif's strict checks refuse the file (as avifdec --info does by
        // default); the audit decodes it with them off, as `avifdec --no-strict` and libheif do, and says so.
        #expect(relaxed.count == 1, "\(relaxed)")
        #expect(relaxed.allSatisfy { $0.hasPrefix("libvips_avif-orientation-6.avif:") && $0.contains("pixi") })
    }

    /// libavif's pixels are what the render check compares: libavif's seine AVIF against its own Ultra HDR JPEG (the
    /// same picture) renders alike, with no render finding and no skip.
    @Test func renderCheckComparesLibavifPixelsWithTheJPEGSource() throws {
        let root = try RealWorldCorpus.root()
        let report = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(
                name: "seine", source: root.appendingPathComponent("jpeg/libavif_seine_sdr_gainmap_srgb.jpg"),
                output: root.appendingPathComponent("avif/libavif_seine_sdr_gainmap_srgb.avif")))
        let row = try #require(report.decode.first { $0.target == .primary })
        #expect(row.decoder == "libavif \(AVIFDecoder.shortVersion)" && row.status == .ok, "\(row)")
        #expect(
            !report.findings.contains {
                $0.code.rawValue.hasPrefix("render.") || $0.code.rawValue.hasPrefix("decode.")
            },
            "\(report.findings)")
    }
}
