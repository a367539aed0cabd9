import Foundation
import Sharding
import Store
import TestSupport
import Testing

@testable import Batch

/// The files of the shard libraries: nested folders, non-ASCII names, two of them in one folder.
private let shardFiles = (0..<30).map { i in
    ["", "2024/été/", "Ünïcode ✓/", "deep/a/b/"][i % 4] + "IMG_\(String(format: "%03d", i)).dng"
}

extension Library {
    /// The configuration of shard `k` of `n`.
    func config(shard k: Int, of n: Int, removal: String? = nil) throws -> BatchConfiguration {
        var c = config(removal: removal)
        c.shard = try Shard(index: k, count: n)
        return c
    }

    /// The source paths (relative to src) the shard's store holds.
    func storedSources(shard k: Int, of n: Int) async throws -> Set<String> {
        let db = out.appendingPathComponent(".readback/shard-\(k)-of-\(n)/state.db").path
        let rows = try Database(path: db, migrations: Schema.migrations, exclusive: true).query(
            "SELECT source_path FROM items")
        let root = try #require(FileOps.realPath(src.path))
        return Set(rows.compactMap { $0.string("source_path").map { String($0.dropFirst(root.count + 1)) } })
    }
}

/// Three shards running at the same time into one output folder convert every file exactly once, each file by the
/// shard the rule gives it, each shard in its own store; a rerun of any shard has nothing to do.
@Test func threeShardsAtOnceConvertEveryFileExactlyOnce() async throws {
    let lib = try Library(files: shardFiles)
    defer { lib.remove() }
    let converters = (0..<3).map { _ in CopyConverter() }
    let configs = try (0..<3).map { try lib.config(shard: $0, of: 3) }
    async let s0 = lib.run(configs[0], converter: converters[0])
    async let s1 = lib.run(configs[1], converter: converters[1])
    async let s2 = lib.run(configs[2], converter: converters[2])
    let summaries = await [s0, s1, s2]
    #expect(summaries.allSatisfy { $0.exitStatus == .clean && $0.failed == 0 }, "\(summaries)")
    #expect(summaries.map(\.clean).reduce(0, +) == shardFiles.count)
    for k in 0..<3 {
        let mine = shardFiles.filter { Shard.index(of: $0, count: 3) == k }
        #expect(!mine.isEmpty)
        #expect(converters[k].calls.sorted() == mine.map { ($0 as NSString).lastPathComponent }.sorted())
        #expect(try await lib.storedSources(shard: k, of: 3) == Set(mine))
    }
    for f in shardFiles {
        #expect(
            FileManager.default.contents(atPath: lib.output(f.replacingOccurrences(of: ".dng", with: ".heic")))
                == FileManager.default.contents(atPath: lib.path(f)))
    }
    #expect(!FileManager.default.fileExists(atPath: lib.out.appendingPathComponent(".readback/state.db").path))
    #expect(lib.tempFiles().isEmpty)
    for k in 0..<3 {
        let again = CopyConverter()
        let s = await lib.run(configs[k], converter: again)
        #expect(s.nothingToDo && again.calls.isEmpty)
    }
    // A dry run of a shard plans that shard only.
    var dry = try lib.config(shard: 1, of: 3)
    dry.dryRun = true
    let cap = Captured()
    _ = await lib.run(dry, converter: CopyConverter(), captured: cap)
    let skipped = cap.out.split(separator: "\n").filter { $0.hasPrefix("would skip") }
    #expect(skipped.count == shardFiles.filter { Shard.index(of: $0, count: 3) == 1 }.count)
}

/// A rerun of one shard redoes that shard's unfinished work only; another shard's missing output waits for that
/// shard's own rerun.
@Test func aShardRerunResumesOnlyThatShard() async throws {
    let lib = try Library(files: shardFiles)
    defer { lib.remove() }
    for k in 0..<3 { await lib.run(try lib.config(shard: k, of: 3), converter: CopyConverter()) }
    let of0 = try #require(shardFiles.first { Shard.index(of: $0, count: 3) == 0 })
    let of1 = try #require(shardFiles.first { Shard.index(of: $0, count: 3) == 1 })
    for f in [of0, of1] {
        try FileManager.default.removeItem(atPath: lib.output(f.replacingOccurrences(of: ".dng", with: ".heic")))
    }
    let c0 = CopyConverter()
    let s0 = await lib.run(try lib.config(shard: 0, of: 3), converter: c0)
    #expect(c0.calls == [(of0 as NSString).lastPathComponent])
    #expect(s0.clean == 1 && s0.skipped == shardFiles.filter { Shard.index(of: $0, count: 3) == 0 }.count - 1)
    #expect(!FileManager.default.fileExists(atPath: lib.output(of1.replacingOccurrences(of: ".dng", with: ".heic"))))
    let c1 = CopyConverter()
    _ = await lib.run(try lib.config(shard: 1, of: 3), converter: c1)
    #expect(c1.calls == [(of1 as NSString).lastPathComponent])
}

/// `--remove-originals` per shard: a shard removes only its own verified originals, in one step after its own
/// files are done; every other original stays until its shard runs. Both removal modes.
@Test(arguments: ["delete", "trash"])
func removalIsPerShardWithTheSameInvariants(_ mode: String) async throws {
    let lib = try Library(files: shardFiles)
    defer { lib.remove() }
    let owned = (0..<3).map { k in shardFiles.filter { Shard.index(of: $0, count: 3) == k } }
    let watch = CopyConverter(watch: shardFiles.map(lib.path))
    let s0 = await lib.run(try lib.config(shard: 0, of: 3, removal: mode), converter: watch)
    #expect(s0.exitStatus == .clean && s0.removed == owned[0].count)
    #expect(!watch.sawMissingOriginal, "an original went before the shard's files were all done")
    for f in owned[0] { #expect(!lib.exists(f)) }
    for f in owned[1] + owned[2] { #expect(lib.exists(f), "\(f) removed by another shard") }
    // Shard 1 converts without removal, then a rerun with removal removes without converting again.
    _ = await lib.run(try lib.config(shard: 1, of: 3), converter: CopyConverter())
    for f in owned[1] { #expect(lib.exists(f)) }
    let again = CopyConverter()
    let s1 = await lib.run(try lib.config(shard: 1, of: 3, removal: mode), converter: again)
    #expect(again.calls.isEmpty && s1.removed == owned[1].count, "\(s1)")
    _ = await lib.run(try lib.config(shard: 2, of: 3, removal: mode), converter: CopyConverter())
    for f in shardFiles {
        #expect(!lib.exists(f))
        #expect(FileManager.default.fileExists(atPath: lib.output(f.replacingOccurrences(of: ".dng", with: ".heic"))))
    }
    if mode == "trash" {
        let trashed = try FileManager.default.contentsOfDirectory(
            atPath: lib.xdg.appendingPathComponent("Trash/files").path)
        #expect(trashed.count == shardFiles.count)  // same names in different folders: IMG_000.dng, IMG_000.2.dng …
    }
}

/// A shard removes the temp files a killed run of its own left, never those of another shard still writing into
/// the same folder.
@Test func aShardRemovesOnlyItsOwnLeftoverTempFiles() async throws {
    let lib = try Library(files: shardFiles)
    defer { lib.remove() }
    let of0 = try #require(shardFiles.first { Shard.index(of: $0, count: 3) == 0 })
    let of1 = try #require(shardFiles.first { Shard.index(of: $0, count: 3) == 1 })
    var temps: [String] = []
    for f in [of0, of1] {
        let final = lib.output(f.replacingOccurrences(of: ".dng", with: ".heic"))
        try FileManager.default.createDirectory(
            atPath: (final as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let t = FileOps.tempPath(for: final)
        #expect(FileManager.default.createFile(atPath: t, contents: Data("half".utf8)))
        temps.append(t)
    }
    let s0 = await lib.run(try lib.config(shard: 0, of: 3), converter: CopyConverter())
    #expect(s0.leftoverTempFilesRemoved == 1)
    #expect(!FileManager.default.fileExists(atPath: temps[0]))
    #expect(FileManager.default.fileExists(atPath: temps[1]), "shard 0 removed shard 1's temp file")
    let s1 = await lib.run(try lib.config(shard: 1, of: 3), converter: CopyConverter())
    #expect(s1.leftoverTempFilesRemoved == 1)
    #expect(lib.tempFiles().isEmpty)
}

/// A SRC that does not exist is the business of the shard its name falls into (it may be a file that shard
/// converted and removed): that shard refuses it, the others go on.
@Test func aMissingSourceArgumentConcernsOnlyItsShard() async throws {
    let lib = try Library(files: ["x/a.dng", "x/b.dng"])
    defer { lib.remove() }
    let gone = lib.dir.appendingPathComponent("gone.dng").path
    let owner = Shard.index(of: "gone.dng", count: 3)
    for k in 0..<3 {
        var c = try lib.config(shard: k, of: 3)
        c.sources = [lib.src.path, gone]
        let s = await lib.run(c, converter: CopyConverter())
        #expect(s.exitStatus == (k == owner ? .usageOrIO : .clean), "shard \(k)")
    }
}

/// A shard's store is opened in SQLite's exclusive locking mode: no shared-memory index (`-shm`, which needs one
/// host's memory map and breaks on NFS) and no second connection while it is open.
@Test func aShardStoreIsExclusiveAndHasNoSharedMemoryIndex() throws {
    let dir = Repo.temporaryDirectory("readback-shard-store")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("s.db").path
    let a = try Database(path: path, migrations: ["CREATE TABLE t (v)"], exclusive: true)
    try a.run("INSERT INTO t VALUES (1)")
    #expect(try a.query("PRAGMA locking_mode").first?.string("locking_mode") == "exclusive")
    #expect(try a.query("PRAGMA journal_mode").first?.string("journal_mode") == "wal")
    #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    #expect(throws: SQLiteError.self) {
        let b = try Database(path: path, busyTimeoutMilliseconds: 10)
        _ = try b.query("SELECT count(*) FROM t")
    }
    // The ordinary store keeps its shared-memory index (and readers alongside).
    let plain = dir.appendingPathComponent("p.db").path
    let c = try Database(path: plain, migrations: ["CREATE TABLE t (v)"])
    try c.run("INSERT INTO t VALUES (1)")
    #expect(FileManager.default.fileExists(atPath: plain + "-shm"))
}

/// The real thing: three `readback convert --shard K/3` processes started at once on one folder of real DNGs, into
/// one output folder. Every file is converted by exactly one of them (the one the rule names), every output is
/// there and audited clean, no temp file is left, and a rerun of each shard has nothing to do.
@Test func threeShardProcessesAtOnceConvertAFolderExactlyOnce() throws {
    let binary = Repo.root.appendingPathComponent(".build/debug/readback").path
    #expect(FileManager.default.isExecutableFile(atPath: binary), "build readback first (swift build): \(binary)")
    guard FileManager.default.isExecutableFile(atPath: binary) else { return }
    let dir = Repo.temporaryDirectory("readback-shard-store")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    var names: [String] = []
    for i in 0..<12 {
        var o = TestDNG.Options()
        o.width = 64 + 16 * (i % 3)
        o.height = 48
        let name = ["", "2024/été/", "sub/"][i % 3] + "IMG_\(i).dng"
        let url = src.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(TestDNG.make(o) { x, y in (Double((x + i) % 13) / 30 + 0.1, Double(y % 7) / 20 + 0.1, 0.2) })
            .write(to: url)
        names.append(name)
    }
    func start(_ k: Int) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["convert", src.path, "--out", out.path, "--shard", "\(k)/3", "--json", "--jobs", "1"]
        p.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        return (p, pipe)
    }
    let running = try (0..<3).map(start)
    var converted: [String: Int] = [:]
    for (k, (p, pipe)) in running.enumerated() {
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "shard \(k): \(text.suffix(600))")
        for line in text.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                o["event"] as? String == "item", let rel = o["relativeSource"] as? String
            else { continue }
            #expect(o["verdict"] as? String == "clean", "\(line)")
            #expect(Shard.index(of: rel, count: 3) == k, "\(rel) converted by shard \(k)")
            converted[rel, default: 0] += 1
        }
    }
    #expect(converted == Dictionary(uniqueKeysWithValues: names.map { ($0, 1) }))
    for n in names {
        #expect(
            FileManager.default.fileExists(
                atPath: out.appendingPathComponent(n.replacingOccurrences(of: ".dng", with: ".heic")).path))
    }
    let leftovers = FileManager.default.enumerator(atPath: out.path)?.compactMap { $0 as? String }
        .filter { ($0 as NSString).lastPathComponent.hasPrefix(".readback-tmp-") }
    #expect(leftovers == [])
    for k in 0..<3 {
        let (p, pipe) = try start(k)
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0 && text.contains("\"nothingToDo\":true"), "rerun of shard \(k): \(text)")
    }
}
