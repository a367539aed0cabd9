import AuditHistory
import Findings
import Foundation
import ReportModel
import Sharding
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

// MARK: - Reading and writing report.json a file at a time

@Test func streamReadsEveryEntryThenTheHeader() throws {
    let dir = Repo.temporaryDirectory("stream")
    defer { try? FileManager.default.removeItem(at: dir) }
    for r in [FixedReport.make(), ShardReports.report(40), ShardReports.report(0)] {
        let url = dir.appendingPathComponent("report.json")
        try Data(r.jsonText().utf8).write(to: url)
        let s = try ReportStream(path: url.path)
        var read: [FileResult] = []
        while let f = try s.nextFile() { read.append(f) }
        #expect(read == r.files)
        #expect(s.fileIndex == r.files.count)
        var header = r
        header.files = []
        #expect(try s.header() == header)
        // Skipping instead of decoding gives the same header.
        let skipping = try ReportStream(path: url.path)
        #expect(try skipping.skipFile() == !r.files.isEmpty)
        #expect(try skipping.header() == header)
        #expect(try ReportStream(path: url.path).header() == header)
    }
}

@Test func streamRefusesWhatIsNotAWholeReport() throws {
    let dir = Repo.temporaryDirectory("stream-bad")
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = ShardReports.report(5).jsonText()
    let cases = [
        String(text.prefix(text.count / 2)),  // cut off inside files
        String(text.dropLast(3)),  // cut off at the end
        "[]", "{\"run\": {}}",  // no object, no files
        text.replacingOccurrences(
            of: "\"schemaVersion\" : \(AuditReport.currentSchemaVersion)", with: "\"schemaVersion\" : 99"),
        text.replacingOccurrences(of: "\"files\" : [\n    {", with: "\"files\" : [\n    7, {"),
    ]
    for (i, bad) in cases.enumerated() {
        let url = dir.appendingPathComponent("bad\(i).json")
        try Data(bad.utf8).write(to: url)
        #expect(throws: ReportStream.Failure.self, "case \(i)") {
            let s = try ReportStream(path: url.path)
            while try s.nextFile() != nil {}
            _ = try s.header()
        }
    }
    #expect(throws: ReportStream.Failure.self) { try ReportStream(path: dir.appendingPathComponent("none").path) }
}

/// The streaming writer's text is byte for byte what `jsonText()` writes for the same report.
@Test func spooledJSONIsExactlyTheReportsText() throws {
    let dir = Repo.temporaryDirectory("spool")
    defer { try? FileManager.default.removeItem(at: dir) }
    var withBaseline = ShardReports.report(30)
    withBaseline.baseline = BaselineComparison(
        path: "old/report.json", regressions: [.init(file: "a/x", kind: "new-error", subject: "c.d")],
        improvements: [])
    for r in [FixedReport.make(), ShardReports.report(0), ShardReports.report(1), withBaseline] {
        let spool = try ReportJSONSpool(scratch: dir.appendingPathComponent("scratch"))
        for f in r.files { try spool.append(f) }
        let out = dir.appendingPathComponent("report.json")
        try spool.finish(header: r, into: out)
        #expect(try String(contentsOf: out, encoding: .utf8) == r.jsonText())
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("scratch").path))
    }
}

// MARK: - Merging

/// Three shard reports of one run merge into exactly the unsharded report: the same files in the same order, the
/// same summary, and the same report.html and junit.xml text (thumbnails included, renumbered).
@Test func threeShardsMergeIntoTheUnshardedReport() throws {
    let dir = Repo.temporaryDirectory("merge")
    defer { try? FileManager.default.removeItem(at: dir) }
    let full = ShardReports.report(60)
    let shards = try ShardReports.split(full, count: 3, extraKeys: ["a/IMG_0001.jpg"])
    #expect(shards.allSatisfy { !$0.files.isEmpty })
    #expect(shards.map(\.files.count).reduce(0, +) == 60)
    let folders = try ShardReports.write(shards, under: dir)
    // A thumbnail per file whose index in its shard is even, its bytes naming the file.
    for (k, shard) in shards.enumerated() {
        let thumbs = ThumbnailFolder(reportDirectory: URL(fileURLWithPath: folders[k]))
        for i in stride(from: 0, to: shard.files.count, by: 2) {
            thumbs.write(Thumbnails(primary: Data(shard.files[i].name.utf8)), index: i)
        }
    }
    let set = try ShardSet(folders: folders.reversed())
    #expect(set.members.map(\.shard.index) == [0, 1, 2])
    let out = dir.appendingPathComponent("merged")
    let header = try ShardMerge.merge(set, into: out, options: .init())

    let merged = try AuditReport.decode(Data(contentsOf: out.appendingPathComponent("report.json")))
    #expect(merged.files == full.files)
    #expect(merged.summary == full.summary)
    #expect(merged.unmatchedOutputs == full.unmatchedOutputs)
    #expect(merged.run.mergedShards == 3)
    #expect(merged.run.shard == nil)
    #expect(merged.run.sourceList == shards[0].run.sourceList)
    #expect(merged.run.jobs == 3)
    #expect(header.summary == merged.summary)
    // The same text as one unsharded audit's reports (the run differs only where report.json shows it).
    let reference = dir.appendingPathComponent("reference")
    try ReportFiles.write(full, to: reference)
    let fullThumbs = ThumbnailFolder(reportDirectory: reference)
    for (i, f) in full.files.enumerated() {
        let k = Shard.index(of: ShardReports.key(f), count: 3)
        let inShard = shards[k].files.firstIndex(of: f)!
        if inShard % 2 == 0 { fullThumbs.write(Thumbnails(primary: Data(f.name.utf8)), index: i) }
    }
    try ReportFiles.write(full, to: reference)
    for name in ["report.html", "junit.xml"] {
        let a = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
        let b = try String(contentsOf: reference.appendingPathComponent(name), encoding: .utf8)
        #expect(a == b, "\(name) differs from the unsharded one")
    }
    let thumbNames = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("thumbs").path)
    #expect(Set(thumbNames) == Set(try FileManager.default.contentsOfDirectory(atPath: fullThumbs.url.path)))
    for n in thumbNames {
        #expect(
            FileManager.default.contents(atPath: out.appendingPathComponent("thumbs/\(n)").path)
                == FileManager.default.contents(atPath: fullThumbs.url.appendingPathComponent(n).path))
    }
    // No scratch file is left.
    let left = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
    #expect(left == ["junit.xml", "report.html", "report.json", "thumbs"])
}

/// The merge gates the merged result: verdicts recomputed against its own --fail-on, and a baseline compared
/// file by file exactly as `Baseline.compare` does, whether the baseline is streamed (sorted) or tabled.
@Test func mergeAppliesTheGateAndTheBaselineToTheMergedResult() throws {
    let dir = Repo.temporaryDirectory("merge-gate")
    defer { try? FileManager.default.removeItem(at: dir) }
    let full = ShardReports.report(45)
    let folders = try ShardReports.write(try ShardReports.split(full, count: 4), under: dir)
    let set = try ShardSet(folders: folders)

    let strict = try ShardMerge.merge(set, into: dir.appendingPathComponent("m1"), options: .init(failOn: .info))
    var expected = full
    expected.run.failOn = .info
    expected.recomputeSummary()
    #expect(strict.summary == expected.summary)
    #expect(strict.summary.failed == 45)
    #expect(strict.gateFails)

    // A baseline where some files were better and some worse.
    // The file that lost a field had kept it, with no error; a clean file had an error; one file is new.
    var old = full
    let lost = try #require(old.files.firstIndex { $0.findings.contains { $0.code == .metadataLost } })
    old.files[lost].findings = []
    old.files[lost].metadata = old.files[lost].metadata.map {
        var r = $0
        r.status = .kept
        return r
    }
    let clean = try #require(old.files.firstIndex { $0.verdict == .pass })
    old.files[clean].findings.append(Finding(code: .decodePrimaryFailed, severity: .error, message: "x"))
    old.files.remove(at: try #require(old.files.indices.first { $0 != lost && $0 != clean }))
    old.recomputeSummary()
    var shuffled = old
    shuffled.files.reverse()
    for (label, baseline) in [("sorted", old), ("unsorted", shuffled)] {
        let url = dir.appendingPathComponent("\(label).json")
        try Data(baseline.jsonText().utf8).write(to: url)
        let header = try ShardMerge.merge(
            set, into: dir.appendingPathComponent("m-\(label)"), options: .init(baseline: (url, "old.json")))
        let want = Baseline.compare(old: baseline, current: full, path: "old.json")
        #expect(header.baseline == want, "\(label)")
        #expect(!want.regressions.isEmpty && !want.improvements.isEmpty)
        #expect(header.gateFails == !want.regressions.isEmpty)
        let written = try AuditReport.decode(
            Data(contentsOf: dir.appendingPathComponent("m-\(label)/report.json")))
        #expect(written.baseline == want)
    }
}

@Test func anIncompleteDuplicatedOrForeignSetIsRefusedNamingTheShards() throws {
    let dir = Repo.temporaryDirectory("merge-refuse")
    defer { try? FileManager.default.removeItem(at: dir) }
    let full = ShardReports.report(30)
    let f = try ShardReports.write(try ShardReports.split(full, count: 3), under: dir.appendingPathComponent("run"))
    func refusal(_ folders: [String]) -> [String] {
        do {
            _ = try ShardSet(folders: folders)
            return []
        } catch let r as ShardSet.Refusal { return r.problems } catch { return ["\(error)"] }
    }
    #expect(refusal([f[0], f[2]]) == ["missing shard(s) 1 of 3"])
    #expect(refusal([f[0]]) == ["missing shard(s) 1, 2 of 3"])
    #expect(refusal([f[0], f[1], f[2], f[1]]) == ["shard 1/3 given 2 times: \(f[1]), \(f[1])"])
    // Another N, and the same N over another source list.
    let other4 = try ShardReports.write(
        try ShardReports.split(full, count: 4), under: dir.appendingPathComponent("n4"))
    let foreignN = refusal([f[0], f[1], f[2], other4[3]])
    #expect(foreignN.count == 1)
    #expect(foreignN.first?.hasPrefix("\(other4[3]): foreign shard 3/4 of another run (N=4, 30 sources") == true)
    let otherList = try ShardReports.write(
        try ShardReports.split(full, count: 3, extraKeys: ["new.dng"]), under: dir.appendingPathComponent("list"))
    let foreignList = refusal([f[0], otherList[1], f[2]])
    #expect(foreignList.contains { $0.hasPrefix("\(otherList[1]): foreign shard 1/3 of another run (N=3, 31 sources") })
    #expect(foreignList.contains("missing shard(s) 1 of 3"))
    // An unsharded report is no shard.
    let plain = dir.appendingPathComponent("plain")
    try ReportFiles.write(full, to: plain)
    #expect(refusal([plain.path] + f).first?.hasPrefix("\(plain.path): not a shard report") == true)
    #expect(throws: ReportStream.Failure.self) { try ShardSet(folders: [dir.appendingPathComponent("nope").path]) }
    // Every refusal above came before anything was written.
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("merged").path))
}

/// A report whose entries are not all its shard's (edited, or copied from another run) is refused during the
/// merge, and the merge leaves neither a report nor its scratch files.
@Test func anEntryInTheWrongShardIsRefused() throws {
    let dir = Repo.temporaryDirectory("merge-wrong")
    defer { try? FileManager.default.removeItem(at: dir) }
    var shards = try ShardReports.split(ShardReports.report(30), count: 3)
    let moved = shards[2].files.removeLast()
    shards[0].files.append(moved)
    shards[0].files.sort { $0.name < $1.name }
    let set = try ShardSet(folders: try ShardReports.write(shards, under: dir))
    let out = dir.appendingPathComponent("merged")
    let refused = #expect(throws: ShardSet.Refusal.self) { try ShardMerge.merge(set, into: out, options: .init()) }
    #expect(refused?.problems == ["\(dir.path)/0: \(moved.name) belongs to shard 2/3, not 0/3"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
}

/// The merged run goes into the history as the same rows as recording the whole report at once.
@Test func historyRecordsAStreamedReportLikeAWholeOne() throws {
    let dir = Repo.temporaryDirectory("merge-history")
    defer { try? FileManager.default.removeItem(at: dir) }
    let full = ShardReports.report(25)
    let url = dir.appendingPathComponent("report.json")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try Data(full.jsonText().utf8).write(to: url)
    let h = try History(inMemory: ())
    let whole = try h.record(full)
    let stream = try ReportStream(path: url.path)
    var header = full
    header.files = []
    let streamed = try h.record(header, files: { try stream.nextFile() })
    let runs = try h.recentRuns(limit: 2)
    #expect(runs[0].files == 25 && runs[1].files == 25)
    #expect(runs[0].failed == runs[1].failed && runs[0].errors == runs[1].errors)
    let a = try h.findings(run: whole)
    #expect(!a.isEmpty)
    #expect(a == (try h.findings(run: streamed)))
    // A stream that fails halfway stores nothing.
    struct Broken: Error {}
    var n = 0
    #expect(throws: Broken.self) {
        try h.record(header) {
            n += 1
            if n > 3 { throw Broken() }
            return full.files[n]
        }
    }
    #expect(try h.recentRuns(limit: 5).count == 2)
}
