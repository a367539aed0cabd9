import Digest
import Foundation
import Store
import TestSupport
import Testing

@testable import Batch

@Test func discoveryFindsRawFilesRecursivelyAndMirrorsPaths() throws {
    let lib = try Library(files: [
        "a.DNG", "x/b.cr2", "x/y/c.Nef", "notes.txt", ".readback/z.dng", "x/.Trash-0/files/t.dng",
    ])
    defer { lib.remove() }
    try FileManager.default.createSymbolicLink(atPath: lib.path("link.dng"), withDestinationPath: lib.path("a.DNG"))
    let outRoot = lib.out.path
    let r = try Discovery.discover([lib.src.path], outputRoot: outRoot)
    let root = try #require(FileOps.realPath(lib.src.path))
    #expect(r.files.map(\.relativePath) == ["a.DNG", "x/b.cr2", "x/y/c.Nef"])
    #expect(r.files.map(\.outputPath) == ["a.heic", "x/b.heic", "x/y/c.heic"].map { outRoot + "/" + $0 })
    #expect(r.files.allSatisfy { $0.root == root })
    #expect(r.skippedSymlinks == [root + "/link.dng"])
    // A file argument: its root is its folder. A missing argument is a problem, not a crash.
    let single = try Discovery.discover([lib.path("x/b.cr2"), lib.path("nope.dng")], outputRoot: outRoot)
    #expect(single.files.map(\.outputPath) == [outRoot + "/b.heic"])
    #expect(single.files.first?.root == root + "/x")
    #expect(single.argumentProblems.map(\.description) == [lib.path("nope.dng") + ": no such file or folder"])
    #expect(single.argumentProblems.first?.missing == true)
    // Two sources that map to one output: the second is refused.
    let lib2 = try Library(files: ["p.dng", "p.CR2"])
    defer { lib2.remove() }
    let clash = try Discovery.discover([lib2.src.path], outputRoot: outRoot)
    #expect(clash.files.count == 1)
    #expect(clash.problems.count == 1)
    #expect(clash.problems.first?.contains("would overwrite the output of") == true)
}

@Test func convertsEveryFileAtomicallyAndKeepsOriginalsWithoutTheFlag() async throws {
    let lib = try Library(files: ["a.dng", "x/b.cr2", "x/y/c.nef"])
    defer { lib.remove() }
    let conv = CopyConverter()
    let cap = Captured()
    let s = await lib.run(lib.config(), converter: conv, captured: cap)
    #expect(s.fatalError == nil)
    #expect(s.exitStatus == .clean)
    #expect(s.clean == 3 && s.removed == 0)
    for (src, out) in [("a.dng", "a.heic"), ("x/b.cr2", "x/b.heic"), ("x/y/c.nef", "x/y/c.heic")] {
        #expect(lib.exists(src), "original \(src) must stay without --remove-originals")
        #expect(FileManager.default.contentsEqual(atPath: lib.path(src), andPath: lib.output(out)))
    }
    #expect(lib.tempFiles().isEmpty)
    // Plain progress: one line per item with verdict, ratio and time.
    let lines = cap.out.split(separator: "\n").filter { $0.hasPrefix("clean") }
    #expect(lines.count == 3)
    #expect(lines.contains { $0.contains("x/b.cr2 → x/b.heic  1.00×") })
    // The store says verified for all, with hashes and outcomes.
    let db = try Database(
        path: lib.out.appendingPathComponent(".readback/state.db").path, migrations: Schema.migrations)
    let rows = try db.query("SELECT state, hash FROM items JOIN outcomes ON item_id = items.id ORDER BY source_path")
    #expect(rows.map { $0.string("state") } == ["verified", "verified", "verified"])
    #expect(try rows.first?.string("hash") == SHA256.hex(ofFileAt: lib.path("a.dng")))
}

@Test func resumeSkipsFinishedWorkAndRedoesOnlyWhatChanged() async throws {
    let lib = try Library(files: ["a.dng", "b.dng", "c.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    await lib.run(lib.config(), converter: conv)
    #expect(conv.calls.count == 3)

    let cap = Captured()
    let again = await lib.run(lib.config(), converter: conv, captured: cap)
    #expect(again.nothingToDo)
    #expect(again.exitStatus == .clean)
    #expect(conv.calls.count == 3)
    #expect(cap.out.contains("nothing to do: all 3 file(s) are already converted and unchanged"))

    // New mtime, same bytes: hashed, found unchanged, not redone.
    try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: lib.path("a.dng"))
    #expect(await lib.run(lib.config(), converter: conv).nothingToDo)
    #expect(conv.calls.count == 3)

    // New content: only that file is redone.
    try Data(repeating: 9, count: 1234).write(to: lib.src.appendingPathComponent("b.dng"))
    let third = await lib.run(lib.config(), converter: conv)
    #expect(conv.calls.count == 4 && conv.calls.last == "b.dng")
    #expect(third.clean == 1 && third.skipped == 2)
    #expect(FileManager.default.contentsEqual(atPath: lib.path("b.dng"), andPath: lib.output("b.heic")))
}

@Test func interruptedItemsAreRedoneAndLeftoverTempFilesRemoved() async throws {
    let lib = try Library(files: ["a.dng", "b.dng", "c.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    await lib.run(lib.config(), converter: conv)
    // Simulate a kill: b was mid-conversion, c written but not verified, a temp file lies in the output folder.
    let dbPath = lib.out.appendingPathComponent(".readback/state.db").path
    do {
        let db = try Database(path: dbPath, migrations: Schema.migrations)
        try db.run("UPDATE items SET state = 'converting' WHERE source_path LIKE '%/b.dng'")
        try db.run("UPDATE items SET state = 'written' WHERE source_path LIKE '%/c.dng'")
    }
    let leftover = lib.out.appendingPathComponent(".readback-tmp-1234-b.heic")
    try Data([1, 2, 3]).write(to: leftover)
    let s = await lib.run(lib.config(), converter: conv)
    #expect(s.leftoverTempFilesRemoved == 1)
    #expect(!FileManager.default.fileExists(atPath: leftover.path))
    #expect(conv.calls.suffix(2).sorted() == ["b.dng", "c.dng"])
    #expect(s.clean == 2 && s.skipped == 1)
    let db = try Database(path: dbPath, migrations: Schema.migrations)
    #expect(try db.query("SELECT COUNT(*) AS n FROM items WHERE state = 'verified'").first?.int("n") == 3)
}

@Test func removalHappensOnlyForVerifiedItemsAfterAllWorkDrained() async throws {
    let lib = try Library(files: ["a.dng", "b-partial.dng", "c-badverify.dng", "d-convfail.dng", "e.dng", "f.dng"])
    defer { lib.remove() }
    let watched = ["a.dng", "e.dng", "f.dng"].map(lib.path)
    let conv = CopyConverter(watch: watched)
    let cap = Captured()
    let s = await lib.run(lib.config(removal: "delete", jobs: 1), converter: conv, captured: cap)
    #expect(!conv.sawMissingOriginal, "an original was removed before all work drained")
    #expect(conv.calls.count == 6)
    #expect(s.clean == 3 && s.kept == 1 && s.failed == 2 && s.removed == 3)
    #expect(s.exitStatus == .findings)
    for f in ["a.dng", "e.dng", "f.dng"] {
        #expect(!lib.exists(f))
        #expect(FileManager.default.fileExists(atPath: lib.output((f as NSString).deletingPathExtension + ".heic")))
    }
    // Partial result: original kept, with the reason, output present.
    #expect(lib.exists("b-partial.dng"))
    #expect(
        cap.out.contains("kept    b-partial.dng → b-partial.heic")
            && cap.out.contains("original kept: gain map not carried"))
    // Failed verification: original kept, no broken output under the final name.
    #expect(lib.exists("c-badverify.dng"))
    #expect(!FileManager.default.fileExists(atPath: lib.output("c-badverify.heic")))
    #expect(lib.exists("d-convfail.dng"))
    #expect(cap.out.contains("LibRaw: unsupported file format"))
    let db = try Database(
        path: lib.out.appendingPathComponent(".readback/state.db").path, migrations: Schema.migrations)
    let states = try db.query("SELECT source_path, state, error FROM items ORDER BY source_path")
    #expect(states.map { $0.string("state") } == ["removed", "kept", "failed", "failed", "removed", "removed"])
    #expect(states[1].string("error") == "original kept: gain map not carried")
    #expect(lib.tempFiles().isEmpty)
}

@Test func withoutThePermitNothingIsRemovedAndALaterRunWithItFinishesRemoval() async throws {
    let lib = try Library(files: ["a.dng", "b.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    #expect(await lib.run(lib.config(), converter: conv).removed == 0)
    #expect(await lib.run(lib.config(), converter: conv).removed == 0)
    #expect(lib.exists("a.dng") && lib.exists("b.dng"))
    #expect(RemovalPermit(parsingFlagValue: "yes") == nil)
    #expect(RemovalPermit(parsingFlagValue: "") == nil)
    // Verified earlier, removed now, without converting again.
    let s = await lib.run(lib.config(removal: "delete"), converter: conv)
    #expect(conv.calls.count == 2)
    #expect(s.removed == 2)
    #expect(!lib.exists("a.dng") && !lib.exists("b.dng"))
    // And after that there is nothing left to do.
    #expect(await lib.run(lib.config(removal: "delete"), converter: conv).nothingToDo)
}

@Test func removalRechecksTheSourceAndKeepsAChangedOriginal() async throws {
    let lib = try Library(files: ["a.dng", "b.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    await lib.run(lib.config(), converter: conv)
    // Same size and the same mtime to the nanosecond, different bytes: only the hash can tell.
    let path = lib.path("a.dng")
    var st = stat()
    #expect(lstat(path, &st) == 0)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes[10] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: path))
    var times = [st.st_atim, st.st_mtim]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    let cap = Captured()
    let s = await lib.run(lib.config(removal: "delete"), converter: conv, captured: cap)
    #expect(conv.calls.count == 2, "unchanged size and mtime: not reconverted")
    #expect(lib.exists("a.dng"), "an original whose bytes changed after verification must stay")
    #expect(!lib.exists("b.dng"))
    #expect(s.removed == 1 && s.removalRefused == 1 && s.exitStatus == .findings)
    #expect(cap.out.contains("original kept: source content changed since it was converted"))
}

@Test func trashFollowsTheFreedesktopSpec() async throws {
    let lib = try Library(files: ["sub/My Photo.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    let cap = Captured()
    let s = await lib.run(lib.config(removal: "trash"), converter: conv, captured: cap)
    #expect(s.removed == 1)
    #expect(!lib.exists("sub/My Photo.dng"))
    let trashed = lib.xdg.appendingPathComponent("Trash/files/My Photo.dng")
    #expect(FileManager.default.fileExists(atPath: trashed.path))
    let info = try String(
        contentsOf: lib.xdg.appendingPathComponent("Trash/info/My Photo.dng.trashinfo"), encoding: .utf8)
    let lines = info.split(separator: "\n")
    #expect(lines.first == "[Trash Info]")
    let real = try #require(FileOps.realPath(lib.src.path))
    #expect(lines.contains { $0 == "Path=" + real.replacingOccurrences(of: " ", with: "%20") + "/sub/My%20Photo.dng" })
    #expect(lines.contains { $0.hasPrefix("DeletionDate=") && $0.count == "DeletionDate=2024-01-01T00:00:00".count })
    #expect(cap.out.contains("removed b") == false)
    #expect(cap.out.contains("(trash: \(lib.xdg.path)"))
}

@Test func diskFullStopsTheRunRemovesNothingAndLeavesNoHalfFile() async throws {
    let lib = try Library(files: ["a.dng", "b-diskfull.dng", "c.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    let cap = Captured()
    let s = await lib.run(lib.config(removal: "delete", jobs: 1), converter: conv, captured: cap)
    #expect(s.exitStatus == .usageOrIO)
    #expect(s.removed == 0)
    let fatal = try #require(s.fatalError)
    #expect(fatal.contains("No space left on device"))
    #expect(fatal.contains("no original was removed"))
    #expect(cap.err.contains { $0.contains("No space left on device") })
    #expect(lib.exists("a.dng") && lib.exists("b-diskfull.dng") && lib.exists("c.dng"))
    #expect(!FileManager.default.fileExists(atPath: lib.output("b-diskfull.heic")))
    #expect(lib.tempFiles().isEmpty)
    // The run stopped: c was never started.
    #expect(!conv.calls.contains("c.dng"))
}

@Test func aSecondRunOnTheSameStoreIsRefused() async throws {
    let lib = try Library(files: ["a.dng"])
    defer { lib.remove() }
    try FileManager.default.createDirectory(
        at: lib.out.appendingPathComponent(".readback"), withIntermediateDirectories: true)
    let held = try FileLock(path: lib.out.appendingPathComponent(".readback/state.db.lock").path)
    let conv = CopyConverter()
    let cap = Captured()
    let s = await lib.run(lib.config(), converter: conv, captured: cap)
    #expect(s.exitStatus == .usageOrIO)
    #expect(s.fatalError?.contains("another 'readback convert' is already running on this store") == true)
    #expect(conv.calls.isEmpty)
    withExtendedLifetime(held) {}
}

@Test func symlinkedSourcesAreNeverConvertedOrRemoved() async throws {
    let lib = try Library(files: ["a.dng"])
    defer { lib.remove() }
    let outside = lib.dir.appendingPathComponent("elsewhere/real.dng")
    try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(repeating: 5, count: 500).write(to: outside)
    try FileManager.default.createSymbolicLink(atPath: lib.path("link.dng"), withDestinationPath: outside.path)
    let conv = CopyConverter()
    let s = await lib.run(lib.config(removal: "delete"), converter: conv)
    #expect(conv.calls == ["a.dng"])
    #expect(s.removed == 1)
    #expect(FileManager.default.fileExists(atPath: outside.path))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: lib.path("link.dng"))) == outside.path)
}

@Test func removeOriginalRefusesPathsOutsideTheRootAndSymlinks() throws {
    let lib = try Library(files: ["a.dng", "inner/b.dng"])
    defer { lib.remove() }
    let permit = try #require(RemovalPermit(parsingFlagValue: "delete"))
    let root = try #require(FileOps.realPath(lib.src.appendingPathComponent("inner").path))
    let a = try #require(FileOps.realPath(lib.path("a.dng")))
    #expect(throws: BatchError.self) { try removeOriginal(path: a, root: root, permit: permit, environment: [:]) }
    #expect(lib.exists("a.dng"))
    try FileManager.default.createSymbolicLink(atPath: lib.path("inner/l.dng"), withDestinationPath: a)
    #expect(throws: BatchError.self) {
        try removeOriginal(path: root + "/l.dng", root: root, permit: permit, environment: [:])
    }
    #expect(lib.exists("a.dng"))
    _ = try removeOriginal(path: root + "/b.dng", root: root, permit: permit, environment: [:])
    #expect(!lib.exists("inner/b.dng"))
}

@Test func dryRunTouchesNothingAndEstimates() async throws {
    let lib = try Library(files: ["a.dng", "b.dng"])
    defer { lib.remove() }
    let conv = CopyConverter()
    let cap = Captured()
    let s = await lib.run(lib.config(removal: "delete", dryRun: true), converter: conv, captured: cap)
    #expect(s.dryRun && s.exitStatus == .clean)
    #expect(!FileManager.default.fileExists(atPath: lib.out.path))
    #expect(lib.exists("a.dng") && lib.exists("b.dng"))
    #expect(cap.out.contains("would convert  a.dng → a.heic"))
    #expect(cap.out.contains("would remove   b.dng (delete, once verified)"))
    #expect(cap.out.contains("dry run: 2 to convert"))
    #expect(cap.out.contains("outputs ≈ 1.00× the RAW size"))
    #expect(conv.calls.count == 2)  // the sample, converted in a scratch folder
}

@Test func jsonProgressPrintsOneObjectPerItem() async throws {
    let lib = try Library(files: ["a.dng", "b-partial.dng"])
    defer { lib.remove() }
    let cap = Captured()
    await lib.run(lib.config(style: .json), converter: CopyConverter(), captured: cap)
    let objects = try cap.out.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.count == 2)
    let verdicts = objects.compactMap { $0["verdict"] as? String }.sorted()
    #expect(verdicts == ["clean", "kept"])
    #expect(objects.allSatisfy { ($0["ratio"] as? Double) == 1.0 && $0["event"] as? String == "item" })
}

@Test func progressLineAndJobsDefaults() {
    #expect(
        ProgressReporter.bar(done: 3, total: 10, failed: 1, elapsed: 6)
            == "[3/10] 0.50 files/s  ETA 0:14  1 failed or kept")
    #expect(ProgressReporter.bar(done: 0, total: 10, failed: 0, elapsed: 0) == "[0/10]")
    #expect(BatchEngine.defaultJobs(cores: 8, availableMemory: 4_000_000_000) == 4)
    #expect(BatchEngine.defaultJobs(cores: 8, availableMemory: 2_500_000_000) == 2)
    #expect(BatchEngine.defaultJobs(cores: 2, availableMemory: 64_000_000_000) == 2)
    #expect(BatchEngine.defaultJobs(cores: 4, availableMemory: 100_000_000) == 1)
    #expect(BatchEngine.defaultJobs(cores: 3, availableMemory: nil) == 3)
    #expect(BatchEngine.availableMemory(meminfo: "MemTotal: 100 kB\nMemAvailable:    2048 kB\n") == 2_097_152)
    #expect(BatchEngine.availableMemory(meminfo: "garbage") == nil)
}

@Test func ttyProgressRedrawsAtMostFiveTimesASecond() {
    final class Sink: @unchecked Sendable { var text = "" }
    let sink = Sink()
    var now = 100.0
    let p = ProgressReporter(style: .tty, out: { sink.text += $0 }, clock: { now })
    p.begin(total: 4)
    let o = ItemOutcome(
        source: "/s/a.dng", relativeSource: "a.dng", output: "/o/a.heic", relativeOutput: "a.heic",
        verdict: .clean, sourceBytes: 100, outputBytes: 50, seconds: 1)
    p.item(o)  // same instant: bar not redrawn
    p.item(o)
    now += 0.25
    p.item(o)  // a quarter second later: redrawn
    let bars = sink.text.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("[") }
    #expect(bars.map { String($0.prefix { $0 != " " }) } == ["[0/4]", "[3/4]"])
    #expect(sink.text.contains("clean   a.dng → a.heic  0.50×  1.0 s\n"))
}

@Test func anInjectedFailingWriterLeavesNoFileAndReportsENOSPC() throws {
    let dir = Repo.temporaryDirectory("readback-batch")
    defer { try? FileManager.default.removeItem(at: dir) }
    let target = dir.appendingPathComponent(".readback-tmp-0a1b2c3d-0000-0000-0000-000000000000-x.heic").path
    var written = 0
    do {
        try FileOps.writeNewFile([UInt8](repeating: 7, count: 10_000), to: target) { fd, p, n in
            // The disk fills after 4 KiB.
            if written >= 4096 {
                errno = ENOSPC
                return -1
            }
            let k = Glibc.write(fd, p, min(n, 4096 - written))
            written += k
            return k
        }
        Issue.record("a failing write did not throw")
    } catch let e as BatchError {
        #expect(e == .io(path: target, operation: "write", errno: ENOSPC))
        #expect(e.isFatalForBatch)
        #expect(e.description == dir.path + "/x.heic (while writing): write failed: No space left on device")
    }
    #expect(written == 4096)
    #expect(!FileManager.default.fileExists(atPath: target))
    // Refuses to overwrite: the temp name must be new.
    try Data([1]).write(to: URL(fileURLWithPath: target))
    #expect(throws: BatchError.io(path: target, operation: "create", errno: EEXIST)) {
        try FileOps.writeNewFile([1, 2], to: target)
    }
}

@Test func aMissingSourceIsAnIOErrorBeforeAnythingIsCreated() async throws {
    let lib = try Library(files: ["a.dng"])
    defer { lib.remove() }
    var config = lib.config()
    config.sources = [lib.src.path, lib.path("gone.dng")]
    let cap = Captured()
    let conv = CopyConverter()
    let s = await lib.run(config, converter: conv, captured: cap)
    #expect(s.exitStatus == .usageOrIO)
    #expect(s.fatalError == lib.path("gone.dng") + ": find source failed: No such file or directory")
    #expect(!FileManager.default.fileExists(atPath: lib.out.path))
    #expect(conv.calls.isEmpty)
}

@Test func fileArgumentsRemovedEarlierAreAcceptedAndSymlinkArgumentsRefused() async throws {
    let lib = try Library(files: ["a.dng", "b-partial.dng"])
    defer { lib.remove() }
    var config = lib.config(removal: "delete")
    config.sources = [lib.path("a.dng"), lib.path("b-partial.dng")]
    let conv = CopyConverter()
    let first = await lib.run(config, converter: conv)
    #expect(first.removed == 1 && first.kept == 1)
    #expect(!lib.exists("a.dng"))
    // The same command again: a.dng is gone because this store removed it; nothing else to do.
    let cap = Captured()
    let again = await lib.run(config, converter: conv, captured: cap)
    #expect(again.exitStatus == .clean && again.nothingToDo)
    #expect(cap.out.contains("already converted and removed by an earlier run"))
    #expect(cap.out.contains("1 of them kept their original"))
    // A SRC that is a symlink is refused before anything happens.
    let link = lib.dir.appendingPathComponent("link-to-src").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: lib.src.path)
    config.sources = [link]
    let refused = await lib.run(config, converter: conv)
    #expect(refused.exitStatus == .usageOrIO)
    #expect(refused.fatalError?.contains("is a symlink; Readback never follows symlinks") == true)
    #expect(conv.calls.count == 2)
}

@Test func trashReusesItsOwnOrphanInfoAndNeverOverwritesAnotherEntry() throws {
    let lib = try Library(files: ["a.dng", "other/a.dng"])
    defer { lib.remove() }
    let env = ["XDG_DATA_HOME": lib.xdg.path, "HOME": lib.dir.path]
    let trash = lib.xdg.appendingPathComponent("Trash")
    try FileManager.default.createDirectory(
        at: trash.appendingPathComponent("files"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: trash.appendingPathComponent("info"), withIntermediateDirectories: true)
    let a = try #require(FileOps.realPath(lib.path("a.dng")))
    // A run killed after writing a.dng.trashinfo but before the rename.
    try "[Trash Info]\nPath=\(Trash.percentEncode(a))\nDeletionDate=2026-01-01T00:00:00\n"
        .write(to: trash.appendingPathComponent("info/a.dng.trashinfo"), atomically: false, encoding: .utf8)
    #expect(try Trash.move(a, environment: env) == trash.appendingPathComponent("files/a.dng").path)
    // Another file of the same name: a new entry, the first one untouched.
    let other = try #require(FileOps.realPath(lib.path("other/a.dng")))
    #expect(try Trash.move(other, environment: env) == trash.appendingPathComponent("files/a.2.dng").path)
    let info1 = try String(contentsOf: trash.appendingPathComponent("info/a.dng.trashinfo"), encoding: .utf8)
    let info2 = try String(contentsOf: trash.appendingPathComponent("info/a.2.dng.trashinfo"), encoding: .utf8)
    #expect(info1.contains("Path=\(Trash.percentEncode(a))\n"))
    #expect(info2.contains("Path=\(Trash.percentEncode(other))\n"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: trash.appendingPathComponent("info").path).count == 2)
    // Killed between creating the info file and writing it: an empty orphan (over a minute old), reused too.
    let lib2 = try Library(files: ["c.dng"])
    defer { lib2.remove() }
    let c = try #require(FileOps.realPath(lib2.path("c.dng")))
    #expect(
        FileManager.default.createFile(atPath: trash.appendingPathComponent("info/c.dng.trashinfo").path, contents: nil)
    )
    try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(-3600)],
        ofItemAtPath: trash.appendingPathComponent("info/c.dng.trashinfo").path)
    #expect(try Trash.move(c, environment: env) == trash.appendingPathComponent("files/c.dng").path)
    let info3 = try String(contentsOf: trash.appendingPathComponent("info/c.dng.trashinfo"), encoding: .utf8)
    #expect(info3.hasPrefix("[Trash Info]\nPath=\(Trash.percentEncode(c))\n"))
}

/// `--dry-run` plans with the same rule as a run: every file it says it would convert is the file a run converts,
/// and it never says "would skip" for a file a run redoes. Here one output changed size since it was verified and
/// another was replaced by a symlink (not a regular file): a run redoes both, so the dry run must say so.
@Test func dryRunPlansExactlyWhatARunDoes() async throws {
    let lib = try Library(files: ["a.dng", "b.dng", "c.dng"])
    defer { lib.remove() }
    await lib.run(lib.config(), converter: CopyConverter())
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: lib.output("a.heic")))
    let moved = lib.dir.appendingPathComponent("c-moved.heic").path
    try FileManager.default.moveItem(atPath: lib.output("c.heic"), toPath: moved)
    try FileManager.default.createSymbolicLink(atPath: lib.output("c.heic"), withDestinationPath: moved)

    let cap = Captured()
    let dry = await lib.run(lib.config(dryRun: true), converter: CopyConverter(), captured: cap)
    #expect(cap.out.contains("would convert  a.dng → a.heic"))
    #expect(cap.out.contains("would convert  c.dng → c.heic"))
    #expect(cap.out.contains("would skip     b.dng (already converted, unchanged)"))
    #expect(dry.skipped == 1)

    let real = CopyConverter()
    let s = await lib.run(lib.config(), converter: real)
    #expect(real.calls.sorted() == ["a.dng", "c.dng"])
    #expect(s.skipped == dry.skipped)
}
