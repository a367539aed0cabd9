import CorpusKit
import Foundation
import Store
import TestSupport
import Testing

@testable import Batch

/// Only an observed crash counts against a file. A SIGTERM and two SIGKILLs while the marked file is being converted
/// count nothing (the kill lands once the store shows that run's attempt started). Two runs in which Readback itself
/// dies of SIGSEGV during the marked file's conversion (the debug build's test hook) do: the next run leaves it alone
/// as failed with the reason and converts the others, and `--retry-failed` tries it again. Originals are removed with
/// `--remove-originals delete`, never the marked file's.
@Test func aFileDuringWhoseAttemptReadbackCrashedTwiceIsFailedAndHeldBack() throws {
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
    func run(_ extra: [String], killMidAttempt: Bool, signal: Int32 = SIGKILL, crashHook: String? = nil) throws -> (
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
        if let crashHook { p.environment?["READBACK_TEST_PARENT_CRASH"] = crashHook }
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

    // Killed twice mid-attempt: a kill says nothing about the file, so nothing is counted.
    for round in 1...2 {
        let r = try run([], killMidAttempt: true)
        #expect(r.killed, "run \(round) ended before the marked file's attempt was seen: \(r.text.suffix(800))")
        if !r.killed { return }
        // Left mid-attempt, uncounted; the next run's start puts it back to pending.
        let row = try #require(try markedRow())
        #expect(row.string("state") == "converting" && row.int("process_ends") == 0, "after kill \(round): \(row)")
        let marks = (try? String(contentsOfFile: dbPath + ".crash-marks", encoding: .utf8)) ?? ""
        #expect(marks.isEmpty, "a kill left crash marks: \(marks)")
    }
    // Readback itself crashes twice during the marked file's conversion: each crash counts one attempt.
    for round in 1...2 {
        let r = try run([], killMidAttempt: false, crashHook: "a-marked.dng:conversion")
        #expect(r.killed && r.status == SIGSEGV, "crash \(round): \(r.status) \(r.text.suffix(800))")
        // The handler marked the file in flight (the next run's start counts it): "ID 1 11", conversion, SIGSEGV.
        let id = try #require(try markedRow()?.int("id"))
        let marks = (try? String(contentsOfFile: dbPath + ".crash-marks", encoding: .utf8)) ?? ""
        #expect(marks == "\(id) 1 \(SIGSEGV)\n", "crash \(round): marks '\(marks)'")
        #expect(try markedRow()?.int("process_ends") == round - 1, "crash \(round)")
    }

    // Third run: the marked file is failed with the reason, held back, and its original stays; the others convert.
    let third = try run(["--json"], killMidAttempt: false)
    #expect(third.status == 1, "third run: \(third.text.suffix(1500))")
    let row = try #require(try markedRow())
    #expect(row.string("state") == "failed")
    #expect(row.int("process_ends") == 2)
    #expect(row.int("attempts") == 5, "the marked file was tried in each of the four runs before")
    #expect(row.string("error") == "Readback crashed (SIGSEGV) during this file's conversion", "\(row)")
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
        held?.count == 1 && (held?.first?["reason"] as? String)?.contains("crashed (SIGSEGV)") == true,
        "\(String(describing: summary))")

    // Fourth run, human output: listed in the summary, still untouched.
    let fourth = try run([], killMidAttempt: false)
    #expect(fourth.status == 1)
    #expect(fourth.text.contains("failed, not tried again: \(marked)"), "\(fourth.text.suffix(1500))")
    #expect(try markedRow()?.int("attempts") == 5)

    // --retry-failed tries it again; it converts clean this time and its original goes like the others'.
    let retried = try run(["--retry-failed"], killMidAttempt: false)
    #expect(retried.status == 0, "\(retried.text.suffix(1500))")
    let after = try #require(try markedRow())
    #expect(after.string("state") == "removed" && after.int("attempts") == 6 && after.int("process_ends") == 0)
    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("a-marked.heic").path))
}

/// An attempt during which Readback crashed is retried (the limit is 2 in a row), with the stage and signal named;
/// the second makes the file failed and held back until its source changes or `--retry-failed` is given. An item left
/// mid-attempt without a crash mark (killed, power loss) goes back to pending, uncounted.
@Test func oneCrashedAttemptIsRetriedAndStageIsNamed() async throws {
    let dir = Repo.temporaryDirectory("readback-poison-ledger")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("state.db").path
    let ledger = try Ledger(path: path, progress: ProgressReporter(style: .quiet, out: { _ in }, clock: { 0 }))
    try await ledger.beginBatch(outputRoot: dir.path, options: "", removal: nil)
    func file(_ name: String) -> SourceFile {
        SourceFile(
            path: dir.path + "/\(name).dng", root: dir.path, relativePath: "\(name).dng",
            outputPath: dir.path + "/\(name).heic", size: 5, mtimeNs: 7)
    }
    let (file, other) = (file("x"), file("y"))
    let id = try await ledger.enqueue(file)
    let otherID = try await ledger.enqueue(other)
    try await ledger.markConverting(id: id, size: 5, mtimeNs: 7)
    try await ledger.markWritten(id: id, hash: "h")
    try await ledger.markConverting(id: otherID, size: 5, mtimeNs: 7)
    try await ledger.recordAttemptsEndedByExit(crashed: [id: .init(stage: .readBack, signal: SIGBUS)])
    var rec = try #require(try await ledger.item(sourcePath: file.path))
    #expect(rec.state == .pending && rec.processEnds == 1)
    #expect(
        rec.error == "Readback crashed (SIGBUS) during this file's read-back audit", "\(String(describing: rec.error))")
    #expect(try await Planner.decide(file, rec) == .redo(why: "interrupted"))
    let unmarked = try #require(try await ledger.item(sourcePath: other.path))
    #expect(unmarked.state == .pending && unmarked.processEnds == 0 && unmarked.error == nil, "\(unmarked)")
    // A second crashed attempt: failed and held back; a changed source or --retry-failed is tried again.
    _ = try await ledger.enqueue(file)
    try await ledger.markConverting(id: id, size: 5, mtimeNs: 7)
    try await ledger.recordAttemptsEndedByExit(crashed: [id: .init(stage: .conversion, signal: SIGSEGV)])
    rec = try #require(try await ledger.item(sourcePath: file.path))
    #expect(rec.state == .failed && rec.processEnds == 2)
    guard case .notRetried(let reason) = try await Planner.decide(file, rec) else {
        Issue.record("a failed file with 2 crashed attempts was planned again")
        return
    }
    #expect(reason.hasSuffix("(SIGSEGV) during this file's conversion"))
    #expect(try await Planner.decide(file, rec, retryFailed: true) != .skip(newMtimeNs: nil))
    var changed = file
    changed.size = 6
    #expect(try await Planner.decide(changed, rec) == .redo(why: "source changed"))
    // Re-enqueued for a changed source, the count starts again.
    _ = try await ledger.enqueue(changed)
    #expect(try await ledger.item(sourcePath: file.path)?.processEnds == 0)
}

/// The crash marks file: the handler's lines read back, the last per item; junk lines are ignored.
@Test func crashMarksAreReadBack() throws {
    let dir = Repo.temporaryDirectory("readback-crash-marks")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("state.db.crash-marks").path
    try Data("12 1 11\n13 2 7\njunk\n12 2 6\n-4 1 11\n14 9 11\n".utf8).write(to: URL(fileURLWithPath: path))
    let marks = CrashMarks.read(path)
    #expect(marks == [12: .init(stage: .readBack, signal: 6), 13: .init(stage: .readBack, signal: 7)])
    #expect(marks[12]?.signalName == "SIGABRT" && marks[13]?.signalName == "SIGBUS")
    #expect(CrashMarks.read(dir.appendingPathComponent("absent").path).isEmpty)
}
