import Converter
import Foundation
import TestSupport
import Testing

@testable import Batch

/// Discovery finds exactly the files the converter reads as RAW: one list (`HEICConverter.rawExtensions`), so the
/// Leaf `.mos` and the generic `.raw` are found like any other, in any case.
@Test func discoveryFindsEveryExtensionTheConverterReadsAsRaw() throws {
    let names = HEICConverter.rawExtensions.sorted().map { "f-\($0).\($0)" } + ["g.MOS", "h.Raw", "notes.txt"]
    let lib = try Library(files: names)
    defer { lib.remove() }
    let found = try Discovery.discover([lib.src.path], outputRoot: lib.out.path).files.map(\.relativePath)
    #expect(found == names.filter { $0 != "notes.txt" }.sorted(), "\(found)")
    #expect(found.contains("f-mos.mos") && found.contains("f-raw.raw") && found.contains("g.MOS"))
}

/// The engine counts each finished item by the planned item its task hands back: a clean item's removal candidate
/// is that item's id, whatever path the outcome names, and thousands of items need no search of the work list.
@Test func theEngineKeepsEachPlannedItemItRan() {
    var summary = BatchSummary()
    var candidates: [Int64] = []
    var expected: [Int64] = []
    for i in 0..<3000 {
        let f = SourceFile(
            path: "/src/\(i).dng", root: "/src", relativePath: "\(i).dng", outputPath: "/out/\(i).heic", size: 10,
            mtimeNs: 1)
        let item = BatchEngine.Planned(file: f, id: Int64(10_000 + i), why: "new")
        let verdict: ItemOutcome.Verdict = i % 3 == 0 ? .kept : (i % 7 == 0 ? .failed : .clean)
        if verdict == .clean { expected.append(item.id) }
        // The outcome's source is not the planned path: only the handed-back item can give the id.
        let o = ItemOutcome(
            source: "/elsewhere/\(i).dng", relativeSource: nil, output: f.outputPath, relativeOutput: nil,
            verdict: verdict, sourceBytes: 10, outputBytes: 4)
        BatchEngine.tally(item, o, removal: true, summary: &summary, removalCandidates: &candidates)
    }
    #expect(candidates == expected)
    #expect(summary.clean == expected.count && summary.clean + summary.kept + summary.failed == 3000)
    #expect(summary.sourceBytes == 30_000 && summary.outputBytes == 12_000)
    var noPermit: [Int64] = []
    let f = SourceFile(path: "/a.dng", root: "/", relativePath: "a.dng", outputPath: "/a.heic", size: 1, mtimeNs: 1)
    BatchEngine.tally(
        BatchEngine.Planned(file: f, id: 1, why: "new"),
        ItemOutcome(source: f.path, relativeSource: nil, output: nil, relativeOutput: nil, verdict: .clean),
        removal: false, summary: &summary, removalCandidates: &noPermit)
    #expect(noPermit.isEmpty)
}

/// The one verdict gives the item's state: typed in the outcome, stored under the names the store has always had
/// (its CHECK constraint accepts them), read back typed, and `--json` prints the same strings as before.
@Test func eachVerdictRoundTripsThroughTheLedgerAsItsState() async throws {
    let dir = Repo.temporaryDirectory("ledger-state")
    defer { try? FileManager.default.removeItem(at: dir) }
    let ledger = try Ledger(
        path: dir.appendingPathComponent("state.db").path,
        progress: ProgressReporter(style: .quiet, out: { _ in }, clock: { 0 }))
    try await ledger.beginBatch(outputRoot: dir.path, options: "test", removal: nil)
    let stored: [ItemOutcome.Verdict: (state: ItemState, name: String)] = [
        .clean: (.verified, "verified"), .kept: (.kept, "kept"), .failed: (.failed, "failed"),
        .removed: (.removed, "removed"),
    ]
    #expect(Set(stored.keys) == Set(ItemOutcome.Verdict.allCases))
    for (i, verdict) in ItemOutcome.Verdict.allCases.enumerated() {
        let f = SourceFile(
            path: "/src/\(i).dng", root: "/src", relativePath: "\(i).dng", outputPath: "/out/\(i).heic", size: 1,
            mtimeNs: 1)
        let id = try await ledger.enqueue(f)
        let o = ItemOutcome(
            source: f.path, relativeSource: f.relativePath, output: f.outputPath, relativeOutput: nil,
            verdict: verdict)
        let want = try #require(stored[verdict])
        #expect(o.state == want.state && want.state.rawValue == want.name)
        try await ledger.finish(id: id, outcome: o, auditSummary: nil)
        let record = try await ledger.item(sourcePath: f.path)
        #expect(record?.state == want.state, "\(verdict)")
        let json = String(decoding: try JSONEncoder().encode(o), as: UTF8.self)
        #expect(json.contains(#""state":"\#(want.name)""#) && json.contains(#""verdict":"\#(verdict.rawValue)""#))
        #expect(try JSONDecoder().decode(ItemOutcome.self, from: Data(json.utf8)) == o)
    }
    #expect(VerificationResult.kept(reasons: ["r"], summary: "s").verdict == .kept)
    #expect(VerificationResult.clean(summary: "s").verdict == .clean)
    #expect(VerificationResult.failed(reason: "r").verdict == .failed)
}

/// One clock: Batch times an item's own stages on the converter's `Stopwatch`, which takes the converter's laps
/// without overwriting a lap of its own and goes on timing from the merge.
@Test func stopwatchTakesLapsTimedElsewhereAndGoesOn() {
    var w = Stopwatch()
    w.lap("decode")
    let own = w.laps["decode"] ?? -1
    w.merge(["decode": 99, "encode": 2])
    #expect(w.laps["encode"] == 2 && w.laps["decode"] == own)
    w.lap("hash")
    let hash = w.laps["hash"] ?? -1
    #expect(hash >= 0 && w.elapsed >= hash)
    w.total()
    #expect((w.laps["total"] ?? 0) >= hash)
}
