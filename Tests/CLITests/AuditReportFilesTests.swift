import Foundation
import ReportModel
import TestSupport
import Testing

@testable import ReadbackCLI

/// `runCLI` on a plain thread, awaited without holding a Swift concurrency thread: `readback convert` blocks its
/// calling thread until its tasks end (`BatchEngine.runBlocking`), so it must not run on the cooperative pool.
private func runCLIOnThread(_ args: [String]) async -> (code: ExitCode, out: String, err: String) {
    await withCheckedContinuation { done in
        let t = Thread { done.resume(returning: runCLI(args)) }
        t.stackSize = 8 << 20
        t.start()
    }
}

/// A real pair: a generated DNG (with highlights, so the output has a gain map) converted by `readback convert`.
private func convertedPair(_ dir: URL) async throws -> (source: URL, output: URL) {
    let source = dir.appendingPathComponent("pair.dng")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let dng = TestDNG.make(TestDNG.Options()) { x, y in
        let dx = Double(x - 180)
        let dy = Double(y - 60)
        if dx * dx + dy * dy < 25 * 25 { return (1.0, 1.0, 1.0) }
        let v = 0.05 + 0.2 * Double(y) / 191
        return (v * 1.1, v, v * 0.8 + 0.1 * Double(x) / 255)
    }
    try Data(dng).write(to: source)
    let out = dir.appendingPathComponent("heic")
    let c = await runCLIOnThread(["convert", source.path, "--out", out.path])
    #expect(c.code == .clean, "\(c.out)\(c.err)")
    return (source, out.appendingPathComponent("pair.heic"))
}

/// The `src` and `href` values of a page.
private func references(_ html: String) -> [String] {
    var refs: [String] = []
    for attr in ["src=\"", "href=\""] {
        var rest = Substring(html)
        while let r = rest.range(of: attr) {
            let tail = rest[r.upperBound...]
            guard let end = tail.firstIndex(of: "\"") else { break }
            refs.append(String(tail[..<end]))
            rest = tail[end...]
        }
    }
    return refs
}

/// report.json holds findings and facts only: the thumbnails of a real audit (here about 125 KB as base64) are
/// files beside report.html, which links them by relative path, and every link leads to a PNG.
@Test func reportJSONIsLeanAndTheHTMLLinksThumbnailFiles() async throws {
    let dir = Repo.temporaryDirectory("cli-lean-report")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (source, output) = try await convertedPair(dir)
    let rep = dir.appendingPathComponent("rep")
    let r = runCLI(["audit", source.path, output.path, "--report", rep.path, "--no-history"])
    #expect(r.code == .clean, "\(r.out)\(r.err)")
    let json = try Data(contentsOf: rep.appendingPathComponent("report.json"))
    #expect(json.count < 40_000, "report.json is \(json.count) bytes")
    #expect(!String(decoding: json, as: UTF8.self).contains("data:image"))
    let thumbs = try FileManager.default.contentsOfDirectory(atPath: rep.appendingPathComponent("thumbs").path)
    #expect(Set(thumbs) == ["0-primary.png", "0-gainmap.png"])
    let html = try String(contentsOf: rep.appendingPathComponent("report.html"), encoding: .utf8)
    let images = references(html).filter { !$0.hasPrefix("#") }
    #expect(images.sorted() == ["thumbs/0-gainmap.png", "thumbs/0-primary.png"])
    for i in images {
        let png = try Data(contentsOf: rep.appendingPathComponent(i))
        #expect(png.count > 1000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(i)")
    }
    // --html-single-file: the same images inlined, no external reference, no thumbs folder left.
    let one = dir.appendingPathComponent("one")
    let s = runCLI(["audit", source.path, output.path, "--report", one.path, "--no-history", "--html-single-file"])
    #expect(s.code == .clean, "\(s.out)\(s.err)")
    let single = try String(contentsOf: one.appendingPathComponent("report.html"), encoding: .utf8)
    let refs = references(single)
    #expect(refs.filter { $0.hasPrefix("data:image/png;base64,") }.count == 2)
    #expect(refs.allSatisfy { $0.hasPrefix("data:image/png;base64,") || $0.hasPrefix("#") }, "\(refs.prefix(5))")
    #expect(!single.contains("thumbs/"))
    #expect(!FileManager.default.fileExists(atPath: one.appendingPathComponent("thumbs").path))
    // report.json is the same either way, apart from the run's clock.
    func facts(_ d: Data) -> [Substring] {
        String(decoding: d, as: UTF8.self).split(separator: "\n").filter {
            !$0.contains("\"startedAt\"") && !$0.contains("\"durationSeconds\"")
        }
    }
    #expect(facts(try Data(contentsOf: one.appendingPathComponent("report.json"))) == facts(json))
}

/// --no-thumbnails writes none (no thumbs folder, no images), and a report folder reused without thumbnails loses
/// the earlier run's, so the page never shows a stale image.
@Test func noThumbnailsWritesNoThumbsFolder() async throws {
    let dir = Repo.temporaryDirectory("cli-no-thumbs")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (source, output) = try await convertedPair(dir)
    let rep = dir.appendingPathComponent("rep")
    #expect(runCLI(["audit", source.path, output.path, "--report", rep.path, "--no-history"]).code == .clean)
    #expect(FileManager.default.fileExists(atPath: rep.appendingPathComponent("thumbs/0-primary.png").path))
    let r = runCLI(["audit", source.path, output.path, "--report", rep.path, "--no-history", "--no-thumbnails"])
    #expect(r.code == .clean, "\(r.out)\(r.err)")
    #expect(!FileManager.default.fileExists(atPath: rep.appendingPathComponent("thumbs").path))
    let html = try String(contentsOf: rep.appendingPathComponent("report.html"), encoding: .utf8)
    #expect(!html.contains("<img"))
    #expect(FileManager.default.fileExists(atPath: rep.appendingPathComponent("report.json").path))
}

@Test(arguments: ["--no-thumbnails", "--html-single-file"])
func thumbnailFlagsNeedAReport(_ flag: String) throws {
    let dir = Repo.temporaryDirectory("cli-thumb-flags")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = dir.appendingPathComponent("x.heic")
    try Data([0]).write(to: f)
    let r = runCLI(["audit", "--outputs", dir.path, "--no-history", flag])
    #expect(r.code == .usageOrIO)
    #expect(r.err.contains("\(flag) needs --report DIR"), "\(r.err)")
}
