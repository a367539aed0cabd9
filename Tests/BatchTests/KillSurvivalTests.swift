import CorpusKit
import Foundation
import TestSupport
import Testing

/// A batch killed 50 times at random moments (SIGKILL: a laptop out of battery, an OOM kill, a preempted job, an
/// impatient kill -9), then run once more, converts every file: a kill says nothing about the file in flight, so
/// none is counted against, none is failed, and no original is lost (`--remove-originals trash`).
@Test func fiftyKillsThenOneRunConvertEveryFile() throws {
    let binary = Repo.root.appendingPathComponent(".build/debug/readback").path
    #expect(FileManager.default.isExecutableFile(atPath: binary), "build readback first (swift build): \(binary)")
    guard FileManager.default.isExecutableFile(atPath: binary) else { return }
    let dir = Repo.temporaryDirectory("readback-fifty-kills")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    let names = (0..<24).map { String(format: "f%02d.dng", $0) }
    for (i, name) in names.enumerated() {
        var o = TestDNG.Options()
        (o.width, o.height) = (640 + 32 * (i % 5), 480)
        let bytes = Data(TestDNG.make(o) { x, y in (Double((x + i) % 23) / 50 + 0.1, Double(y % 13) / 40 + 0.1, 0.2) })
        try bytes.write(to: src.appendingPathComponent(name))
    }
    func start(_ extra: [String]) throws -> (Process, URL) {
        let log = dir.appendingPathComponent("log-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["convert", src.path, "--out", out.path, "--jobs", "2", "--remove-originals", "trash"] + extra
        p.environment = [
            "PATH": "/usr/bin:/bin", "HOME": dir.path, "XDG_DATA_HOME": dir.appendingPathComponent("data").path,
            "SWIFT_BACKTRACE": "enable=no",
        ]
        let h = try FileHandle(forWritingTo: log)
        p.standardOutput = h
        p.standardError = h
        try p.run()
        try h.close()
        return (p, log)
    }
    var rng = SplitMix64(seed: 50)
    var killed = 0
    for _ in 0..<50 {
        let (p, _) = try start([])
        usleep(UInt32(30_000 + rng.next() % 700_000))
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            killed += 1
        }
        p.waitUntilExit()
    }
    #expect(killed >= 40, "only \(killed) of 50 runs were still running when killed")
    let (last, log) = try start(["--json"])
    last.waitUntilExit()
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    #expect(last.terminationStatus == 0, "\(text.suffix(2000))")
    let summary = text.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }.first { $0["event"] as? String == "summary" }
    #expect(summary?["failed"] as? Int == 0, "\(String(describing: summary))")
    let heldBack = (summary?["notRetried"] as? [Any]) ?? []
    #expect(heldBack.isEmpty, "\(String(describing: summary))")
    // Every file converted; every original either still there or in the trash: none lost.
    let trash = dir.appendingPathComponent("data/Trash/files")
    for name in names {
        let stem = (name as NSString).deletingPathExtension
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(stem).heic").path), "\(name)")
        let kept = FileManager.default.fileExists(atPath: src.appendingPathComponent(name).path)
        let trashed = FileManager.default.fileExists(atPath: trash.appendingPathComponent(name).path)
        #expect(kept != trashed, "\(name): kept \(kept), trashed \(trashed)")
        #expect(trashed, "\(name): a clean conversion's original stays after the last run")
    }
}
