import Foundation
import ReadbackCLI
import ReportModel
import TestSupport
import Testing

/// `readback cameras` lists LibRaw 0.22's camera list; a pattern finds a model, a miss exits 1.
@Test func camerasListsTodaysModelsAndFindsOne() throws {
    let all = runCLI(["cameras"])
    #expect(all.code == .clean)
    #expect(all.out.split(separator: "\n").count >= 1250)
    let r6 = runCLI(["cameras", "eos-r6"])
    #expect(r6.code == .clean)
    #expect(r6.out.split(separator: "\n").contains("Canon EOS R6"), "\(r6.out)")
    let none = runCLI(["cameras", "Hasselblad X2D II"])
    #expect(none.code == .findings && none.out.isEmpty && none.err.contains("no camera matches"), "\(none)")
    let json = runCLI(["cameras", "--json", "sony ilce-7"])
    let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
    let cameras = try #require(obj["cameras"] as? [String])
    #expect(obj["schemaVersion"] as? Int == 1 && obj["count"] as? Int == cameras.count && !cameras.isEmpty)
    #expect(cameras.allSatisfy { $0.hasPrefix("Sony ") }, "\(cameras)")
}

/// A RAW with no metadata container (a headerless sensor dump LibRaw knows by its size: AVT F-080C, 1024×768, 8-bit
/// Bayer) has nothing to lose: it converts clean, with an info finding that says so, and its original may be removed.
/// Run as the built binary, as a user runs it (the conversion starts decoder workers and writes a state database).
@Test func aHeaderlessRAWConvertsCleanAndMayBeRemoved() throws {
    let dir = Repo.temporaryDirectory("headerless-raw")
    defer { try? FileManager.default.removeItem(at: dir) }
    func run(_ args: [String]) throws -> (code: Int32, out: String, err: String) {
        try BuiltReadback.run(args, home: dir)
    }
    let src = dir.appendingPathComponent("in/dump.raw")
    try FileManager.default.createDirectory(at: src.deletingLastPathComponent(), withIntermediateDirectories: true)
    var bytes = [UInt8](repeating: 0, count: 1024 * 768)
    for y in 0..<768 {
        for x in 0..<1024 { bytes[y * 1024 + x] = UInt8(20 + (x + y) * 180 / 1792 + (x * 7 + y * 13) % 9) }
    }
    try Data(bytes).write(to: src)
    // Converted: clean.
    let out = dir.appendingPathComponent("out")
    let r = try run(["convert", src.path, "--out", out.path, "--json"])
    #expect(r.code == 0, "\(r.out)\(r.err)")
    let items = r.out.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(items.contains { $0["verdict"] as? String == "clean" }, "\(r.out)")
    let heic = out.appendingPathComponent("dump.heic")
    #expect(FileManager.default.fileExists(atPath: heic.path))
    // Audited as a pair: the info finding says there was nothing to carry, and nothing else is over the gate.
    let reports = dir.appendingPathComponent("report")
    let audit = try run(["audit", src.path, heic.path, "--report", reports.path, "--no-history"])
    #expect(audit.code == 0, "\(audit.out)\(audit.err)")
    let report = try String(contentsOf: reports.appendingPathComponent("report.json"), encoding: .utf8)
    #expect(report.contains("metadata.none") && !report.contains("metadata.unreadable"), "\(report)")
    // With removal on, the original goes: nothing vetoed it.
    let again = try run([
        "convert", src.path, "--out", dir.appendingPathComponent("out2").path, "--remove-originals", "delete",
    ])
    #expect(again.code == 0, "\(again.out)\(again.err)")
    #expect(!FileManager.default.fileExists(atPath: src.path), "the original of a clean conversion stays")
}
