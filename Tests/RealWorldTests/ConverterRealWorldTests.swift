import Audit
import Converter
import Digest
import Foundation
import HEIF
import HeifCodec
import RawDecoder
import TestSupport
import Testing

/// What converting one real-world RAW must give, from Expectations/raw.tsv, keyed by the file's sha256.
struct RawExpectation {
    enum Outcome: Equatable {
        /// Converts; the output's upright size.
        case converts(width: Int, height: Int)
        /// Fails with a one-line error containing this reason.
        case fails(String)
    }
    var name: String
    var outcome: Outcome
    var note: String

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Expectations/raw.tsv")

    /// sha256 → expectation.
    static func load() throws -> [String: RawExpectation] {
        var out: [String: RawExpectation] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 5 else { throw RealWorldCorpus.Missing(what: "raw.tsv: malformed line '\(line)'") }
            let size = c[3].split(separator: "x").compactMap { Int($0) }
            switch c[2] {
            case "converts" where size.count == 2:
                out[c[0]] = RawExpectation(name: c[1], outcome: .converts(width: size[0], height: size[1]), note: c[4])
            case "fails":
                out[c[0]] = RawExpectation(name: c[1], outcome: .fails(c[3]), note: c[4])
            default:
                throw RealWorldCorpus.Missing(what: "raw.tsv: unknown outcome in '\(line)'")
            }
        }
        return out
    }

    /// Every RAW of the corpus with its expectation; a RAW without one is a failure (record it in raw.tsv).
    static func corpus() throws -> [(url: URL, expected: RawExpectation)] {
        let expectations = try load()
        var out: [(URL, RawExpectation)] = []
        for url in try RealWorldCorpus.files([
            "dng", "cr2", "cr3", "crw", "nef", "arw", "raf", "orf", "rw2", "pef", "mrw", "iiq", "x3f",
        ]) {
            let sha = try SHA256.hex(fileAt: url)
            guard let e = expectations[sha] else {
                Issue.record("\(url.lastPathComponent) (sha256 \(sha)) has no line in Expectations/raw.tsv")
                continue
            }
            out.append((url, e))
        }
        return out
    }
}

/// Every RAW in the shared corpus decodes exactly when its expectation says it converts; every other one is a
/// one-line error naming the file.
@Test func realWorldRawDecoderSeparatesRealDataFromStubs() throws {
    let raws = try RawExpectation.corpus()
    #expect(raws.count >= 25, "expected the 25 corpus RAWs, found \(raws.count)")
    // The Canon 6D, the Magic Lantern chart, the Adobe SDK sample and the two Nikon D5000 frames.
    #expect(raws.filter { if case .converts = $0.expected.outcome { true } else { false } }.count == 5)
    for (url, e) in raws {
        do {
            let (meta, img) = try LibRawDecoder.decode(url, options: RawDecodeOptions(halfSize: true))
            guard case .converts = e.outcome else {
                Issue.record("\(url.lastPathComponent) decoded, but raw.tsv expects \(e.outcome): \(meta)")
                continue
            }
            #expect(img.width > 0 && img.height > 0)
        } catch let err as RawDecodeError {
            print("REJECT \(err)")
            if case .converts = e.outcome { Issue.record("\(url.lastPathComponent): \(err)") }
            #expect(!err.description.contains("\n"))
            #expect(err.description.hasPrefix(url.lastPathComponent + ": "))
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

/// Every real DNG converts at its expected size, opens with libheif 1.15 (heif-info, heif-convert), its metadata
/// survives (exiftool is the oracle), and the conversion is `clean` at the defaults.
@Test func realWorldFullPixelRAWsConvertWithMetadata() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-real-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var converted = 0
    for (src, e) in try RawExpectation.corpus() {
        guard case .converts(let w, let h) = e.outcome else { continue }
        converted += 1
        try checkConversion(src, width: w, height: h, in: dir)
    }
    // The Canon 6D, the Magic Lantern chart, the Adobe SDK sample and the two Nikon D5000 frames.
    #expect(converted == 5)
}

private func checkConversion(_ src: URL, width: Int, height: Int, in dir: URL) throws {
    let converted = try HEICConverter.convert(source: src, decoders: .inProcess)
    let (res, out) = (converted.result, try writeOutput(converted.bytes, for: src, in: dir))
    print("TIMINGS \(res.timings)")
    print(
        String(
            format: "REAL %@ %dx%d in %d B → out %d B, ratio %.3f, total %.2f s, %@; losses %@",
            res.source, res.width, res.height, res.inputBytes, res.outputBytes, res.sizeRatio,
            res.timings["total"] ?? -1, res.hdr.reason, res.knownLosses.description))
    #expect(res.width == width && res.height == height, "\(res.source): \(res.width)x\(res.height)")
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
        #expect(a[k] == b[k], "\(res.source) \(k): source \(a[k] ?? "-") output \(b[k] ?? "-")")
    }
    #expect(a["Make"] != nil && a["Model"] != nil)
    #expect(b["Orientation"] == "1")
    expectClean(source: src, output: out)
}

/// The output is `clean` as `readback convert` judges it (the own-output policy, graded by the `convert` profile's
/// verdict lines); when it is not, the findings that keep the original or fail it are the reasons printed. The output
/// takes the source's modification time first, as `readback convert` gives it (its file-facts step, tested by Batch).
private func expectClean(source: URL, output: URL) {
    if let t = try? FileManager.default.attributesOfItem(atPath: source.path)[.modificationDate] {
        try? FileManager.default.setAttributes([.modificationDate: t], ofItemAtPath: output.path)
    }
    let auditor = FileAuditor(
        options: AuditOptions(policy: .readbackOutputs, decode: true, thumbnails: false, jobs: 1), decoders: .inProcess)
    let findings = auditor.audit(AuditJob(name: output.lastPathComponent, source: source, output: output)).findings
    let reasons = findings.filter { Policy.convert.conversionAction(for: $0) != .pass }
    print("VERDICT \(source.lastPathComponent): \(reasons.isEmpty ? "clean" : "not clean")")
    for f in findings { print("  \(f.severity.rawValue) \(f.code): \(f.message)") }
    #expect(reasons.isEmpty, "\(source.lastPathComponent): \(reasons.map { "\($0.code): \($0.message)" })")
}

/// Every metadata-only or truncated RAW gives a one-line error with its expected reason and leaves nothing in the
/// destination.
@Test func realWorldStubRAWsFailCleanly() throws {
    let raws = try RawExpectation.corpus().compactMap { r -> (URL, String)? in
        if case .fails(let why) = r.expected.outcome { return (r.url, why) }
        return nil
    }
    #expect(raws.count >= 20)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-stubs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for (url, why) in raws {
        do {
            try writeOutput(try HEICConverter.convert(source: url, decoders: .inProcess).bytes, for: url, in: dir)
            Issue.record("\(url.lastPathComponent) converted, but it has no real pixel data")
        } catch let e as ConvertError {
            #expect(e.description.hasPrefix(url.lastPathComponent + ": ") && !e.description.contains("\n"), "\(e)")
            #expect(e.description.contains(why), "\(e) does not say '\(why)'")
            // A file whose make and model name a camera is never called "not RAW" (LibRaw's own words for -2).
            #expect(!e.description.contains("not RAW"), "\(e)")
            // `readback inspect` names the camera and gives the same reason.
            let inspected = try RawInspection.inspect(url.path, decoders: .inProcess)
            #expect(e.description == url.lastPathComponent + ": " + (inspected.refusal ?? "-"), "\(inspected)")
        }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
}
