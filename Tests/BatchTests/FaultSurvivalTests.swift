import CorpusKit
import Foundation
import JXLCodec
import TestSupport
import Testing

/// Whole-run fault survival: one `convert` batch and one `audit` batch, each meeting a crash in every library that
/// reads a file's bytes in it (the shim of `DecoderWorkerTests`), finish with every faulty file reported under its
/// own name and stage and every other file done; and `--file-timeout` bounds all of a file's decodes together.
extension DecoderWorkerTests {
    @Test func oneBatchMeetsACrashInEveryLibrary() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        let (src, out) = (dir.appendingPathComponent("src"), dir.appendingPathComponent("out"))
        try fm.createDirectory(at: src, withIntermediateDirectories: true)
        let preload = ["LD_PRELOAD": try shim()]
        // convert: LibRaw, exiv2 and libjxl each die on one file.
        for i in 0..<3 { try dng("plain-\(i).dng", in: src, seed: i) }
        try dng("libraw.dng", in: src, seed: 3, marker: "READBACK-FAULT-CRASH")
        try dng("exiv2.dng", in: src, seed: 4, marker: "READBACK-EXIV2-CRASH")
        try jxlDNG(src.appendingPathComponent("libjxl.dng"), marker: "READBACK-JXL-CRASH")
        let r = try run(["convert", "src", "--out", "out", "--jobs", "2", "--json"], env: preload)
        #expect(r.status == 1, "\(r.out)")
        let got = items(r.out)
        #expect(got.count == 6, "every file is reported: \(r.out)")
        for i in 0..<3 { #expect(got["plain-\(i).dng"]?["verdict"] as? String == "clean", "\(r.out)") }
        for (name, stage) in [("libraw.dng", "LibRaw open"), ("exiv2.dng", "exiv2 read"), ("libjxl.dng", "JPEG XL")] {
            let e = (got[name]?["error"] as? String) ?? ""
            #expect(e.contains("decode.crashed") && e.contains(stage), "\(name): \(e)")
        }

        // audit SRC OUT: libheif and libavif die reading an output, exiv2 and libjpeg-turbo reading a source.
        let (asrc, aout) = (dir.appendingPathComponent("asrc"), dir.appendingPathComponent("aout"))
        for d in [asrc, aout] { try fm.createDirectory(at: d, withIntermediateDirectories: true) }
        for i in 0..<3 {
            try fm.copyItem(
                at: src.appendingPathComponent("plain-\(i).dng"), to: asrc.appendingPathComponent("plain-\(i).dng"))
            try fm.copyItem(
                at: out.appendingPathComponent("plain-\(i).heic"), to: aout.appendingPathComponent("plain-\(i).heic"))
        }
        let good = out.appendingPathComponent("plain-0.heic")
        try fm.copyItem(at: src.appendingPathComponent("exiv2.dng"), to: asrc.appendingPathComponent("exiv2.dng"))
        try fm.copyItem(at: good, to: aout.appendingPathComponent("exiv2.heic"))
        var jpeg = [UInt8](try Data(contentsOf: Repo.root.appendingPathComponent("Corpus/jpeg/plain.jpg")))
        jpeg += Array("READBACK-JPEG-CRASH".utf8)
        try Data(jpeg).write(to: asrc.appendingPathComponent("turbo.jpg"))
        try fm.copyItem(at: good, to: aout.appendingPathComponent("turbo.heic"))
        try fm.copyItem(at: src.appendingPathComponent("plain-1.dng"), to: asrc.appendingPathComponent("heif.dng"))
        try markedHEIC(
            out.appendingPathComponent("plain-1.heic"), marker: "READBACK-FAULT-CRASH",
            to: aout.appendingPathComponent("heif.heic"))
        try fm.copyItem(at: src.appendingPathComponent("plain-2.dng"), to: asrc.appendingPathComponent("avif.dng"))
        var avif = [UInt8](
            try Data(contentsOf: Repo.root.appendingPathComponent("Tests/HEIFTests/Fixtures/seed-avif.avif")))
        avif += Array("READBACK-AVIF-CRASH".utf8)
        try Data(avif).write(to: aout.appendingPathComponent("avif.avif"))

        let audit = try run(
            ["audit", "--sources", "asrc", "--outputs", "aout", "--report", "rep", "--jobs", "2"], env: preload)
        #expect(audit.status == 1, "\(audit.out)")
        let files = try reportFiles("rep")
        #expect(files.count == 7, "every pair is in the report: \(files.keys.sorted())")
        for (name, stage) in [
            ("exiv2.heic", "exiv2"), ("turbo.heic", "libjpeg-turbo decode"), ("heif.heic", "libheif"),
            ("avif.avif", "libavif decode"),
        ] {
            let crashed = (files[name] ?? []).filter { $0.code == "decode.crashed" }
            #expect(crashed.contains { $0.message.contains(stage) }, "\(name): \(files[name] ?? [])")
        }
        for i in 0..<3 {
            let decode = (files["plain-\(i).heic"] ?? []).filter { $0.code.hasPrefix("decode.") }
            #expect(decode.isEmpty, "plain-\(i).heic: \(decode)")
            #expect(files["plain-\(i).heic"] != nil, "plain-\(i).heic is audited")
        }
    }

    /// `--file-timeout` is the whole file's: under the shim, LibRaw's open and each exiv2 read of a marked DNG sleep
    /// 2 s, so with a 3 s allowance no single decode runs out, but the file's decodes together do. The plain file
    /// beside it converts clean.
    @Test func theFileTimeoutBoundsAllOfAFilesDecodes() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        try dng("plain.dng", in: src, seed: 0)
        try dng("slow.dng", in: src, seed: 1, marker: "READBACK-FAULT-SLOW")
        let r = try run(
            ["convert", "src", "--out", "out", "--jobs", "2", "--json", "--file-timeout", "3"],
            env: ["LD_PRELOAD": try shim()])
        #expect(r.status == 1, "\(r.out)")
        let got = items(r.out)
        #expect(got["plain.dng"]?["verdict"] as? String == "clean", "\(r.out)")
        let e = (got["slow.dng"]?["error"] as? String) ?? ""
        #expect(e.contains("decode.timeout") && e.contains("3 s in all"), "\(e)")
    }

    /// A DNG 1.7 whose second JPEG XL tile carries `marker` after its codestream.
    func jxlDNG(_ to: URL, marker: String) throws {
        let twin = DNGWriter.write(
            scene: Chart(width: 128, height: 64, highlightStops: 2), spec: DNGSpec(layout: .bayer(.rggb), seed: 4))
        let tiles = Counter()
        let tiling = JXLTiling(tileWidth: 64, tileHeight: 64) { s, w, h, c, bits in
            let jxl = try JXL.encode(s, width: w, height: h, channels: c, bits: bits, options: .init(effort: 1))
            return tiles.next() == 1 ? jxl + Array(marker.utf8) : jxl
        }
        try Data(DNGJXL.compress(uncompressedDNG: twin, tiling: tiling)).write(to: to)
    }

    /// The findings (code, message) of each file of `report`/report.json, by the output's file name.
    func reportFiles(_ report: String) throws -> [String: [(code: String, message: String)]] {
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: dir.appendingPathComponent("\(report)/report.json")))
                as? [String: Any])
        var byName: [String: [(code: String, message: String)]] = [:]
        for f in try #require(json["files"] as? [[String: Any]]) {
            let name = ((f["output"] as? String) ?? (f["name"] as? String) ?? "") as NSString
            byName[name.lastPathComponent] = (f["findings"] as? [[String: Any]] ?? []).map {
                (($0["code"] as? String) ?? "", ($0["message"] as? String) ?? "")
            }
        }
        return byName
    }
}
