import Converter
import Foundation
import HEIF
import HeifCodec
import RawDecoder
import TestSupport
import Testing

/// Every RAW in the shared corpus: the one real DNG decodes, every stub/truncated file is a one-line error.
@Test func realWorldRawDecoderSeparatesRealDataFromStubs() throws {
    let raws = try RealWorldCorpus.files([
        "dng", "cr2", "cr3", "crw", "nef", "arw", "raf", "orf", "rw2", "pef", "mrw", "iiq", "x3f",
    ])
    #expect(raws.count >= 20, "expected the 20 corpus RAWs, found \(raws.count)")
    for url in raws {
        do {
            let (meta, img) = try LibRawDecoder.decode(url, options: RawDecodeOptions(halfSize: true))
            #expect(url.lastPathComponent == "photoprism_canon_eos_6d.dng", "\(url.lastPathComponent) decoded: \(meta)")
            #expect(img.width > 0 && img.height > 0)
        } catch let e as RawDecodeError {
            print("REJECT \(e)")
            #expect(url.lastPathComponent != "photoprism_canon_eos_6d.dng", "\(e)")
            #expect(!e.description.contains("\n"))
            #expect(e.description.hasPrefix(url.lastPathComponent + ": "))
        }
    }
}

/// Runs a tool, returns (exit code, combined output).
private func tool(_ name: String, _ args: [String]) -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [name] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    do { try p.run() } catch { return (-1, "cannot run \(name): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The real DNG converts, opens with libheif 1.15, and its metadata survives (exiftool is the oracle).
@Test func realWorldCanonDNGConvertsWithMetadata() throws {
    let src = try RealWorldCorpus.root().appendingPathComponent("raw/photoprism_canon_eos_6d.dng")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-real-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let converted = try HEICConverter.convert(source: src)
    let (res, out) = (converted.result, try writeOutput(converted.bytes, for: src, in: dir))
    print("TIMINGS \(res.timings)")
    print(
        String(
            format: "REAL %@ %dx%d in %d B → out %d B, ratio %.3f, total %.2f s, %@; losses %@",
            res.source, res.width, res.height, res.inputBytes, res.outputBytes, res.sizeRatio,
            res.timings["total"] ?? -1, res.hdr.reason, res.knownLosses.description))
    #expect(res.width > 0 && res.height > 0)
    let (c, info) = tool("heif-info", [out.path])
    #expect(c == 0, "\(info)")
    let png = dir.appendingPathComponent("x.png")
    let (c2, t2) = tool("heif-convert", [out.path, png.path])
    #expect(c2 == 0, "\(t2)")
    let d = try HeifDecoder.decodePrimary(file: out)
    #expect(d.width == res.width && d.height == res.height)

    // Metadata: exiftool on source and output.
    let keys = [
        "Make", "Model", "LensModel", "DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal", "ExposureTime",
        "FNumber", "ISO", "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude",
    ]
    func read(_ u: URL) throws -> [String: String] {
        let (code, text) = tool("exiftool", ["-j", "-n"] + keys.map { "-" + $0 } + ["-Orientation", u.path])
        #expect(code == 0, "\(text)")
        let arr = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        return (arr?.first ?? [:]).mapValues { "\($0)" }
    }
    let a = try read(src)
    let b = try read(out)
    for k in keys where a[k] != nil {
        #expect(a[k] == b[k], "\(k): source \(a[k] ?? "-") output \(b[k] ?? "-")")
    }
    #expect(a["Make"] != nil && a["Model"] != nil)
    #expect(b["Orientation"] == "1")
}

/// Every metadata-only or truncated RAW gives a one-line error and leaves nothing in the destination.
@Test func realWorldStubRAWsFailCleanly() throws {
    let raws = try RealWorldCorpus.files([
        "dng", "cr2", "cr3", "crw", "nef", "arw", "raf", "orf", "rw2", "pef", "mrw", "iiq", "x3f",
    ])
    .filter { $0.lastPathComponent != "photoprism_canon_eos_6d.dng" }
    #expect(raws.count >= 19)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-stubs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for url in raws {
        do {
            try writeOutput(try HEICConverter.convert(source: url).bytes, for: url, in: dir)
            Issue.record("\(url.lastPathComponent) converted, but it has no real pixel data")
        } catch let e as ConvertError {
            #expect(e.description.hasPrefix(url.lastPathComponent + ": ") && !e.description.contains("\n"), "\(e)")
        }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
}
