import CorpusKit
import Foundation
import Store
import TestSupport
import Testing

@testable import Batch

/// A file whose attempts end with the whole process gone is remembered: the built binary is SIGKILLed twice while
/// the marked file is being converted (the kill lands once the store shows that run's attempt started), the third
/// run leaves it alone as failed with the reason and converts the others, and `--retry-failed` tries it again.
/// Originals are removed with `--remove-originals delete`, never the marked file's. A SIGTERM first is not counted.
@Test func aFileKilledTwiceMidAttemptIsFailedAndHeldBack() throws {
    let binary = Repo.root.appendingPathComponent(".build/debug/readback").path
    #expect(FileManager.default.isExecutableFile(atPath: binary), "build readback first (swift build): \(binary)")
    guard FileManager.default.isExecutableFile(atPath: binary) else { return }
    let dir = Repo.temporaryDirectory("readback-poison")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    // The marked file is large enough that its conversion outlasts the store poll by far.
    for (name, w, h) in [("a-marked.dng", 1600, 1200), ("b.dng", 96, 64), ("c.dng", 112, 64)] {
        var o = TestDNG.Options()
        o.width = w
        o.height = h
        let bytes = Data(TestDNG.make(o) { x, y in (Double(x % 17) / 40 + 0.1, Double(y % 11) / 30 + 0.1, 0.2) })
        try bytes.write(to: src.appendingPathComponent(name))
    }
    let marked = FileOps.canonicalPath(src.path) + "/a-marked.dng"
    let dbPath = out.appendingPathComponent(".readback/state.db").path

    func markedRow() throws -> Row? {
        guard FileManager.default.fileExists(atPath: dbPath) else { return nil }
        let db = try Database(path: dbPath, migrations: Schema.migrations)
        defer { db.close() }
        return try db.query("SELECT * FROM items WHERE source_path LIKE ?", ["%/a-marked.dng"]).first
    }

    /// Runs `readback convert`; with `killMidAttempt`, SIGKILLs it once the marked file's new attempt has started.
    func run(_ extra: [String], killMidAttempt: Bool, signal: Int32 = SIGKILL) throws -> (
        status: Int32, killed: Bool, text: String
    ) {
        let attemptsBefore = try markedRow()?.int("attempts") ?? 0
        let log = dir.appendingPathComponent("log.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments =
            ["convert", src.path, "--out", out.path, "--jobs", "1", "--remove-originals", "delete"] + extra
        p.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no"]
        let h = try FileHandle(forWritingTo: log)
        p.standardOutput = h
        p.standardError = h
        try p.run()
        if killMidAttempt {
            while p.isRunning {
                if let r = try? markedRow(), r.string("state") == "converting",
                    (r.int("attempts") ?? 0) > attemptsBefore
                {
                    kill(p.processIdentifier, signal)
                    break
                }
                usleep(1_000)
            }
        }
        p.waitUntilExit()
        try h.close()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (p.terminationStatus, p.terminationReason == .uncaughtSignal, text)
    }

    // An interrupt (SIGTERM) mid-attempt is not a crash: its handler releases the file, uncounted.
    let interrupted = try run([], killMidAttempt: true, signal: SIGTERM)
    #expect(interrupted.status == 143, "\(interrupted.text.suffix(800))")
    let released = try #require(try markedRow())
    #expect(released.string("state") == "pending" && released.int("process_ends") == 0, "\(released)")

    for round in 1...2 {
        let r = try run([], killMidAttempt: true)
        #expect(r.killed, "run \(round) ended before the marked file's attempt was seen: \(r.text.suffix(800))")
        if !r.killed { return }
    }

    // Third run: the marked file is failed with the reason, held back, and its original stays; the others convert.
    let third = try run(["--json"], killMidAttempt: false)
    #expect(third.status == 1, "third run: \(third.text.suffix(1500))")
    let row = try #require(try markedRow())
    #expect(row.string("state") == "failed")
    #expect(row.int("process_ends") == 2)
    #expect(row.int("attempts") == 3, "the marked file was tried again on the third run")
    #expect(row.string("error")?.contains("the process ended during this file's attempt") == true, "\(row)")
    #expect(FileManager.default.fileExists(atPath: marked), "the marked file's original was removed")
    #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("a-marked.heic").path))
    for name in ["b", "c"] {
        #expect(!FileManager.default.fileExists(atPath: src.appendingPathComponent("\(name).dng").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(name).heic").path))
    }
    let events = third.text.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let markedEvent = events.first { $0["event"] as? String == "item" && $0["source"] as? String == marked }
    #expect((markedEvent?["error"] as? String)?.contains("not tried again") == true, "\(third.text.suffix(1500))")
    let summary = events.first { $0["event"] as? String == "summary" }
    let held = summary?["notRetried"] as? [[String: Any]]
    #expect(
        held?.count == 1 && (held?.first?["reason"] as? String)?.contains("kill") == true,
        "\(String(describing: summary))")

    // Fourth run, human output: listed in the summary, still untouched.
    let fourth = try run([], killMidAttempt: false)
    #expect(fourth.status == 1)
    #expect(fourth.text.contains("failed, not tried again: \(marked)"), "\(fourth.text.suffix(1500))")
    #expect(try markedRow()?.int("attempts") == 3)

    // --retry-failed tries it again; it converts clean this time and its original goes like the others'.
    let retried = try run(["--retry-failed"], killMidAttempt: false)
    #expect(retried.status == 0, "\(retried.text.suffix(1500))")
    let after = try #require(try markedRow())
    #expect(after.string("state") == "removed" && after.int("attempts") == 4 && after.int("process_ends") == 0)
    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("a-marked.heic").path))
}

/// One attempt that ended with the process gone is retried (the limit is 2 in a row), with the stage named; the
/// second makes the file failed and held back until its source changes or `--retry-failed` is given.
@Test func oneEndedAttemptIsRetriedAndStageIsNamed() async throws {
    let dir = Repo.temporaryDirectory("readback-poison-ledger")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("state.db").path
    let ledger = try Ledger(path: path, progress: ProgressReporter(style: .quiet, out: { _ in }, clock: { 0 }))
    try await ledger.beginBatch(outputRoot: dir.path, options: "", removal: nil)
    let file = SourceFile(
        path: dir.path + "/x.dng", root: dir.path, relativePath: "x.dng", outputPath: dir.path + "/x.heic", size: 5,
        mtimeNs: 7)
    let id = try await ledger.enqueue(file)
    try await ledger.markConverting(id: id, size: 5, mtimeNs: 7)
    try await ledger.markWritten(id: id, hash: "h")
    try await ledger.recordAttemptsEndedByExit()
    var rec = try #require(try await ledger.item(sourcePath: file.path))
    #expect(rec.state == .pending && rec.processEnds == 1)
    #expect(rec.error?.hasSuffix("during its read-back audit") == true, "\(String(describing: rec.error))")
    #expect(try await Planner.decide(file, rec) == .redo(why: "interrupted"))
    // A second ended attempt: failed and held back; a changed source or --retry-failed is tried again.
    _ = try await ledger.enqueue(file)
    try await ledger.markConverting(id: id, size: 5, mtimeNs: 7)
    try await ledger.recordAttemptsEndedByExit()
    rec = try #require(try await ledger.item(sourcePath: file.path))
    #expect(rec.state == .failed && rec.processEnds == 2)
    guard case .notRetried(let reason) = try await Planner.decide(file, rec) else {
        Issue.record("a failed file with 2 ended attempts was planned again")
        return
    }
    #expect(reason.hasSuffix("during its conversion"))
    #expect(try await Planner.decide(file, rec, retryFailed: true) != .skip(newMtimeNs: nil))
    var changed = file
    changed.size = 6
    #expect(try await Planner.decide(changed, rec) == .redo(why: "source changed"))
    // Re-enqueued for a changed source, the count starts again.
    _ = try await ledger.enqueue(changed)
    #expect(try await ledger.item(sourcePath: file.path)?.processEnds == 0)
}
