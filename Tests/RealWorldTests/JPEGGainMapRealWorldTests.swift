import AVIFCodec
import Audit
import Findings
import Foundation
import GainMap
import HeifCodec
import TestSupport
import Testing

/// The corpus's JPEG gain maps read as complete, in the expected forms, with values an independent reader (exiftool)
/// agrees with.
struct JPEGGainMapRealWorldTests {
    /// Corpus file → the forms the reader must find.
    static let files: [(String, [GainMapForm])] = [
        ("jpeg/vearutop_s01_Pixel6Pro_ultrahdr.jpg", [.ultraHDR]),
        ("jpeg/vearutop_small_uhdr_CanonR8_ACR.jpg", [.iso21496, .ultraHDR]),
        ("jpeg/libavif_apple_gainmap_old.jpg", [.appleAux]),
        ("jpeg/libavif_apple_gainmap_new.jpg", [.appleAux]),
        ("jpeg/libavif_seine_sdr_gainmap_srgb.jpg", [.ultraHDR]),
        ("jpeg/libavif_paris_exif_xmp_gainmap_littleendian.jpg", [.ultraHDR]),
        ("jpeg/libavif_paris_exif_xmp_gainmap_bigendian.jpg", [.ultraHDR]),
        ("jpeg/libvips_ultra-hdr.jpg", [.ultraHDR]),
    ]

    /// exiftool's reading of a file (`-n -j`), optionally of its MPF image 2 alone.
    static func exiftool(_ url: URL, gainMap: Bool) throws -> [String: Any] {
        var data: Data
        if gainMap {
            let r = try TestSupport.Tool.run("/usr/bin/exiftool", ["-b", "-MPImage2", url.path])
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent(
                "readback-gm-\(UUID().uuidString).jpg")
            try r.out.write(to: tmp)
            defer { try? FileManager.default.removeItem(at: tmp) }
            data = try TestSupport.Tool.run("/usr/bin/exiftool", ["-n", "-j", "-XMP:all", "-ImageWidth", tmp.path]).out
        } else {
            data = try TestSupport.Tool.run("/usr/bin/exiftool", ["-n", "-j", "-MPF:all", "-MakerNotes:all", url.path])
                .out
        }
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        return list?.first ?? [:]
    }

    static func numbers(_ v: Any?) -> [Double] {
        if let d = v as? Double { return [d] }
        if let i = v as? Int { return [Double(i)] }
        if let s = v as? String {
            return s.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        if let a = v as? [Any] { return a.flatMap { numbers($0) } }
        return []
    }

    @Test(arguments: files.map(\.0))
    func readsComplete(_ relpath: String) throws {
        let url = try RealWorldCorpus.root().appendingPathComponent(relpath)
        let bytes = try [UInt8](Data(contentsOf: url))
        let forms = Self.files.first { $0.0 == relpath }!.1
        let i = try #require(JPEGGainMapReader.inspect(bytes))
        let r = try #require(i.inspection.reports.first, "\(relpath): no gain map found")
        #expect(r.forms == forms, "\(relpath)")
        #expect(r.isComplete, "\(relpath): \(r.findings.map(\.description))")
        #expect(!r.findings.contains { $0.severity == .error }, "\(relpath): \(r.findings.map(\.description))")

        // MPF: the image exiftool calls MPImage2 is the one read, of the same length.
        let top = try Self.exiftool(url, gainMap: false)
        let entry = try #require(i.gainMapEntry.flatMap { i.mpf?.entries[$0] })
        #expect(Self.numbers(top["MPImageLength"]).last == Double(entry.size), "\(relpath)")
        // exiftool gives the start in the file (the stored offset plus the MPF header's position).
        #expect(Self.numbers(top["MPImageStart"]).last == Double(entry.fileOffset), "\(relpath)")

        let gm = try Self.exiftool(url, gainMap: true)
        if forms.contains(.ultraHDR) {
            let x = try #require(r.adobeXMP)
            #expect(x.gainMapMax == Self.numbers(gm["GainMapMax"]), "\(relpath)")
            #expect(x.gainMapMin == Self.numbers(gm["GainMapMin"]), "\(relpath)")
            #expect(x.gamma == Self.numbers(gm["Gamma"]), "\(relpath)")
            #expect(x.hdrCapacityMax.map { [$0] } ?? [] == Self.numbers(gm["HDRCapacityMax"]), "\(relpath)")
        }
        if forms.contains(.appleAux) {
            let a = try #require(r.appleXMP)
            #expect(a.version.map { [Double($0)] } ?? [] == Self.numbers(gm["HDRGainMapVersion"]), "\(relpath)")
            let xmpHeadroom = Self.numbers(gm["HDRGainMapHeadroom"])
            #expect(a.headroom.map { [$0] } ?? [] == xmpHeadroom, "\(relpath)")
            // The old form gives the headroom only through the primary's MakerNote (tags 0x0021/0x0030).
            if xmpHeadroom.isEmpty {
                let m = try #require(r.appleMakerNote)
                // exiftool prints the rationals to 10 significant digits.
                let eh = try #require(Self.numbers(top["HDRHeadroom"]).first)
                let eg = try #require(Self.numbers(top["HDRGain"]).first)
                #expect(abs((m.hdrHeadroom ?? -1) - eh) < 1e-8, "\(relpath)")
                #expect(abs((m.hdrGain ?? -1) - eg) < 1e-8, "\(relpath)")
            }
        }
        if forms.contains(.iso21496) {
            // Adobe Camera Raw writes both forms; their headrooms agree (the consistency part checks within 0.05).
            let m = try #require(r.isoMetadata)
            let cap = Self.numbers(gm["HDRCapacityMax"]).first ?? -1
            #expect(abs(m.alternateHdrHeadroom.doubleValue - cap) < 0.01, "\(relpath)")
            #expect(m.channels.count == Self.numbers(gm["GainMapMax"]).count, "\(relpath)")
        }
    }

    /// libavif's tests record the values of its JPEG gain maps (avifgainmaptest.cc, jpeg reading): paris has
    /// GainMapMax 3.5/3.6/3.7 and HDRCapacityMax 3.5 over a 512x384 map, seine's SDR JPEG a 400x300 map with
    /// HDRCapacityMax 1.3.
    @Test func libavifRecordedValues() throws {
        let root = try RealWorldCorpus.root()
        for (name, max, cap, w, h) in [
            ("jpeg/libavif_paris_exif_xmp_gainmap_littleendian.jpg", [3.5, 3.6, 3.7], 3.5, 512, 384),
            ("jpeg/libavif_paris_exif_xmp_gainmap_bigendian.jpg", [3.5, 3.6, 3.7], 3.5, 512, 384),
            ("jpeg/libavif_seine_sdr_gainmap_srgb.jpg", [1.277177, 1.277203, 1.277969], 1.3, 400, 300),
        ] {
            let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(name)))
            let i = try #require(JPEGGainMapReader.inspect(bytes))
            let x = try #require(i.inspection.reports.first?.adobeXMP)
            #expect(x.gainMapMax == max, "\(name)")
            #expect(x.hdrCapacityMax == cap, "\(name)")
            #expect(i.gainMapImage?.width == w && i.gainMapImage?.height == h, "\(name)")
        }
    }

    /// JPEGs without a gain map stay without one.
    @Test func plainJPEGsHaveNone() throws {
        let root = try RealWorldCorpus.root()
        for name in [
            "jpeg/libvips_rotation_6.jpg", "jpeg/exiftool_GPS.jpg", "jpeg/libavif_dog_exif_extended_xmp_icc.jpg",
        ] {
            let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(name)))
            let i = try #require(JPEGGainMapReader.inspect(bytes))
            #expect(!i.hasGainMap, "\(name)")
        }
    }

    /// libavif's seine SDR photo with its ISO gain map in AVIF and as an Ultra HDR JPEG: audited as a pair, the gain
    /// map is carried in another form (info) with the same parameters, and nothing in the gain map fails.
    @Test func avifToJPEGCarriesTheGainMap() throws {
        let root = try RealWorldCorpus.root()
        let job = AuditJob(
            name: "seine", source: root.appendingPathComponent("avif/libavif_seine_sdr_gainmap_srgb.avif"),
            output: root.appendingPathComponent("jpeg/libavif_seine_sdr_gainmap_srgb.jpg"))
        let f = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(job).findings
        let gain = f.filter { $0.code.rawValue.hasPrefix("gainmap.") }
        #expect(gain.map(\.code) == [.gainmapFormChanged], "\(gain)")
        #expect(!f.contains { $0.severity == .error }, "\(f)")
    }

    /// libavif (dav1d) and libheif read the corpus's AVIFs alike: every file libheif decodes, libavif decodes to the
    /// same size (libavif 0.11 leaves irot to the caller, so a quarter turn swaps the sides), except where libavif's
    /// strict mode refuses a file libheif accepts; those are listed here by name with libavif's reason.
    @Test func libavifAndLibheifAgreeOnTheCorpusAVIFs() throws {
        let files = try RealWorldCorpus.files(["avif"])
        #expect(files.count >= 15)
        var both = 0
        var refused: [String] = []
        for f in files {
            let bytes = try [UInt8](Data(contentsOf: f))
            guard let h = try? HeifDecoder.decodePrimary(bytes, format: .rgb8) else { continue }
            do {
                let a = try AVIFDecoder.decode(bytes)
                #expect(Set([a.width, a.height]) == Set([h.width, h.height]), "\(f.lastPathComponent)")
                #expect(a.samples.count == a.width * a.height * 3)
                both += 1
            } catch {
                refused.append("\(f.lastPathComponent): \(error)")
            }
        }
        // libvips writes no pixi property; libavif's default strict mode refuses the file, libheif reads it.
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.allSatisfy { $0.hasPrefix("libvips_avif-orientation-6.avif:") && $0.contains("pixi") })
        #expect(both >= 15, "\(both) AVIFs decoded by both")
    }
}
