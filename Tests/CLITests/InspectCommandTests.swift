import Foundation
import HEIF
import TestSupport
import Testing

/// `readback inspect` end to end, in-process, on files made with HEIFBuilder.
private func writeTemp(_ bytes: [UInt8], _ name: String) throws -> (dir: URL, path: String) {
    let dir = Repo.temporaryDirectory("inspect")
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return (dir, url.path)
}

private func sampleFile(hidePrimary: Bool = false) -> [UInt8] {
    var b = HEIFBuilder()
    let id = b.addCodedImage(
        properties: [(.ispe(width: 64, height: 48), false), (.irot(quarterTurns: 3), true)], data: [0, 0, 0, 1, 0x26])
    b.setPrimary(id)
    b.addExif(tiff: [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0], describing: [id])
    if hidePrimary { b.updateItem(id) { $0.hidden = true } }
    return b.build()
}

@Test func inspectCleanFileExitsZeroWithSummary() throws {
    let (dir, path) = try writeTemp(sampleFile(), "a.heic")
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = runCLI(["inspect", path])
    #expect(r.code == .clean)
    #expect(r.err.isEmpty)
    #expect(r.out.contains("primary: item 1 hvc1 64×48"))
    #expect(r.out.contains("orientation 6"))
    #expect(r.out.contains("Exif item 2:"))
    #expect(r.out.hasSuffix("findings: none\n"))
}

@Test func inspectErrorFindingsExitOneAndJSONIsVersioned() throws {
    let (dir, path) = try writeTemp(sampleFile(hidePrimary: true), "b.heic")
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = runCLI(["inspect", "--json", "--boxes", path])
    #expect(r.code == .findings)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    #expect(json["schemaVersion"] as? Int == 2)
    let findings = try #require(json["findings"] as? [[String: Any]])
    #expect(findings.contains { $0["code"] as? String == "container.pitm.hidden" })
    #expect((json["boxes"] as? [[String: Any]])?.map { $0["type"] as? String } == ["ftyp", "meta", "mdat"])
    // Stable key order: the same input gives the same bytes.
    #expect(runCLI(["inspect", "--json", "--boxes", path]).out == r.out)
}

@Test func inspectUnreadableOrMissingFileIsExitTwo() {
    let r = runCLI(["inspect", "/nonexistent/x.heic"])
    #expect(r.code == .usageOrIO)
    #expect(r.err == "readback inspect: /nonexistent/x.heic: no such file\n")
    let u = runCLI(["inspect"])
    #expect(u.code == .usageOrIO)
    #expect(u.err.hasPrefix("readback inspect: missing FILE\n"))
}
