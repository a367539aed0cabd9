import Foundation
import TestSupport
import Testing

@testable import Batch

/// Runs the built `readback` binary; returns exit status, stdout, stderr.
func runReadback(_ args: [String], cwd: URL? = nil) throws -> (status: Int32, out: String, err: String) {
    let binary = Repo.root.appendingPathComponent(".build/debug/readback")
    let p = Process()
    p.executableURL = binary
    p.arguments = args
    if let cwd { p.currentDirectoryURL = cwd }
    p.environment = [
        "PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path, "SWIFT_BACKTRACE": "enable=no",
    ]
    let o = Pipe()
    let e = Pipe()
    p.standardOutput = o
    p.standardError = e
    try p.run()
    let out = o.fileHandleForReading.readDataToEndOfFile()
    let err = e.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

@Test func convertUsageErrorsExitTwoWithOneLine() throws {
    let noOut = try runReadback(["convert", "x.dng"])
    #expect(noOut.status == 2)
    #expect(
        noOut.err.hasPrefix(
            "readback convert: --out DIR is required\nUsage: readback convert SRC... --out DIR [options]"))
    let badRemoval = try runReadback(["convert", "x.dng", "--out", "o", "--remove-originals", "yes"])
    #expect(badRemoval.status == 2)
    #expect(badRemoval.err.hasPrefix("readback convert: --remove-originals takes one of trash|delete, not 'yes'"))
    let noSrc = try runReadback(["convert", "--out", "o"])
    #expect(noSrc.err.hasPrefix("readback convert: give at least one SRC file or folder"))
    let badJobs = try runReadback(["convert", "a.dng", "--out", "o", "--jobs", "0"])
    #expect(badJobs.err.hasPrefix("readback convert: --jobs takes a whole number from 1 to 64, not '0'"))
}

@Test func convertRealDNGsEndToEndWithJSONAndResume() throws {
    let dir = Repo.temporaryDirectory("readback-batch")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src/Trip")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    for (i, name) in ["A.DNG", "b.dng"].enumerated() {
        var o = TestDNG.Options()
        o.width = 128
        o.height = 96
        try Data(TestDNG.make(o) { x, y in (Double(x % 13) / 30 + Double(i) / 10, Double(y % 7) / 20, 0.15) })
            .write(to: src.appendingPathComponent(name))
    }
    let r = try runReadback(["convert", "src", "--out", "out", "--json", "--jobs", "2"], cwd: dir)
    #expect(r.status == 0, "\(r.err)")
    let lines = r.out.split(separator: "\n")
    let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(objects.count == lines.count)
    let items = objects.filter { $0["event"] as? String == "item" }
    #expect(items.count == 2)
    #expect(items.allSatisfy { $0["verdict"] as? String == "clean" })
    // Where the time went: the converter's stages and Batch's own, each a non-negative number of seconds, together
    // no more than the item's wall time.
    for item in items {
        let stages = try #require(item["stages"] as? [String: Double], "\(item)")
        for k in ["decode", "render", "encode", "metadata", "assemble", "write", "hash", "publish", "audit"] {
            #expect(stages[k].map { $0 >= 0 } == true, "stage \(k) in \(stages)")
        }
        let seconds = try #require(item["seconds"] as? Double)
        #expect(stages.values.reduce(0, +) <= seconds + 0.02, "\(stages) vs \(seconds) s")
    }
    let summary = try #require(objects.last)
    #expect(summary["event"] as? String == "summary" && summary["clean"] as? Int == 2)
    // Mirrored paths, real HEIC files (ftyp at offset 4).
    for name in ["Trip/A.heic", "Trip/b.heic"] {
        let bytes = try Data(contentsOf: dir.appendingPathComponent("out/" + name))
        #expect(bytes.count > 100 && String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp")
    }
    // Originals stay without the flag; a second run has nothing to do.
    #expect(FileManager.default.fileExists(atPath: src.appendingPathComponent("A.DNG").path))
    let again = try runReadback(["convert", "src", "--out", "out"], cwd: dir)
    #expect(again.status == 0)
    #expect(again.out.hasPrefix("nothing to do: all 2 file(s) are already converted and unchanged"))
}

/// A folder whose RAWs are symlinks converts nothing (Readback never follows a symlink: it may remove originals),
/// and says so instead of "all 0 file(s) are already converted".
@Test func symlinkedRAWsAreNamedNotSilentlySkipped() throws {
    let dir = Repo.temporaryDirectory("readback-links")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
        atPath: src.appendingPathComponent("link.dng").path,
        withDestinationPath: Repo.root.appendingPathComponent("Corpus/dng/chart-rggb-12bit-o1.dng").path)
    let r = try runReadback(["convert", "src", "--out", "out"], cwd: dir)
    #expect(r.status == 0)
    #expect(r.out.hasPrefix("nothing to do: no RAW file was found in the sources"), "\(r.out)")
    #expect(r.err.contains("1 symlink to RAW files left alone, e.g. "), "\(r.err)")
    #expect(r.err.contains("link.dng: Readback never follows symlinks"), "\(r.err)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/link.heic").path))
}

@Test func anInterruptedRunLeavesNoTempFileAndResumes() throws {
    let dir = Repo.temporaryDirectory("readback-batch")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    for i in 0..<6 {
        var o = TestDNG.Options()
        o.width = 128
        o.height = 96
        try Data(TestDNG.make(o) { x, y in (Double((x + i) % 13) / 30, Double(y % 7) / 20, 0.15) })
            .write(to: src.appendingPathComponent("IMG_\(i).dng"))
    }
    let p = Process()
    p.executableURL = Repo.root.appendingPathComponent(".build/debug/readback")
    p.arguments = ["convert", "src", "--out", "out", "--jobs", "1", "--remove-originals", "delete"]
    p.currentDirectoryURL = dir
    p.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no"]
    let o = Pipe()
    let e = Pipe()
    p.standardOutput = o
    p.standardError = e
    try p.run()
    // Interrupt once the first file is done (the run is then mid-way).
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains("clean") {
        let chunk = o.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen += chunk
    }
    kill(p.processIdentifier, SIGINT)
    _ = o.fileHandleForReading.readDataToEndOfFile()
    let err = String(decoding: e.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    if p.terminationStatus == 130 {
        #expect(err.contains("interrupted;") && err.contains("no original touched"))
        let names = try FileManager.default.contentsOfDirectory(atPath: src.path)
        #expect(names.count == 6, "an interrupted run removed an original")
    } else {
        // The signal came after the run had finished on its own.
        #expect(p.terminationStatus == 0, "unexpected exit \(p.terminationStatus): \(err)")
    }
    let temps =
        FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }
        .filter { ($0 as NSString).lastPathComponent.hasPrefix(".readback-tmp-") } ?? []
    #expect(temps.isEmpty)
    let resumed = try runReadback(["convert", "src", "--out", "out", "--remove-originals", "delete"], cwd: dir)
    #expect(resumed.status == 0, "\(resumed.err)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: src.path).isEmpty)
    #expect(
        try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).filter {
            $0.hasSuffix(".heic")
        }.count == 6)
}
