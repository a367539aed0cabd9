import Foundation
import ReportModel
import TestSupport
import Testing

@testable import ReadbackCLI

/// A folder pair like a real library: sources (HEIF files stand in for RAWs: the audit reads any source's
/// metadata) and outputs, with a truncated output, a source without output and an output without source, in
/// nested and non-ASCII folders.
private func library(_ dir: URL) throws -> (src: URL, out: URL) {
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    for i in 0..<14 {
        let rel = ["", "2024/été/", "b/", "Ünï ✓/"][i % 4] + "IMG_\(i)"
        _ = try writeHEIC(src, rel + ".heif")
        if i == 5 { continue }  // no output
        _ = try writeHEIC(out, rel + ".heic", truncateBy: i == 9 ? 100 : 0)
    }
    _ = try writeHEIC(out, "b/orphan.heic")
    return (src, out)
}

/// Three audit shards merged equal one unsharded audit, file by file, with the same gate; the merged run is in the
/// history; a merge without one shard is refused and writes nothing.
@Test func threeAuditShardsMergedEqualOneUnshardedAudit() throws {
    let dir = Repo.temporaryDirectory("cli-merge")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (src, out) = try library(dir)
    let common = ["audit", "--sources", src.path, "--outputs", out.path, "--no-history", "--quiet", "--jobs", "2"]
    let whole = runCLI(common + ["--report", dir.appendingPathComponent("whole").path])
    #expect(whole.code == .findings)
    var reports: [String] = []
    for k in 0..<3 {
        let r = dir.appendingPathComponent("r/\(k)").path
        let shard = runCLI(
            common + ["--report", r], env: ["SLURM_ARRAY_TASK_ID": "\(k)", "SLURM_ARRAY_TASK_COUNT": "3"])
        #expect(shard.code != .usageOrIO, "\(shard.err)")
        reports.append(r)
    }
    // --shard auto was not given: the Slurm variables alone change nothing.
    #expect(
        try AuditReport.decode(Data(contentsOf: URL(fileURLWithPath: reports[0] + "/report.json"))).run.shard == nil)
    reports = []
    for k in 0..<3 {
        let r = dir.appendingPathComponent("s/\(k)").path
        let shard = runCLI(
            common + ["--report", r, "--shard", "auto"],
            env: ["SLURM_ARRAY_TASK_ID": "\(k)", "SLURM_ARRAY_TASK_COUNT": "3"])
        #expect(shard.code != .usageOrIO, "\(shard.err)")
        #expect(shard.out.contains("shard \(k)/3: "))
        reports.append(r)
    }
    let db = dir.appendingPathComponent("history.db").path
    let merged = dir.appendingPathComponent("merged")
    let m = runCLI(["merge"] + reports.reversed() + ["--report", merged.path, "--history-db", db])
    #expect(m.code == whole.code, "\(m.out)\(m.err)")
    #expect(m.out.contains("merged 3 shard(s): 14 file(s) of 14 source(s) into \(merged.path)\n"))
    #expect(m.out.contains("IMG_9.heic: FAIL"))
    #expect(m.out.contains("output without source: b/orphan.heic"))
    let a = try AuditReport.decode(Data(contentsOf: merged.appendingPathComponent("report.json")))
    let b = try AuditReport.decode(Data(contentsOf: dir.appendingPathComponent("whole/report.json")))
    #expect(a.files.map(\.name) == b.files.map(\.name))
    #expect(a.files == b.files)
    #expect(a.summary == b.summary)
    #expect(a.unmatchedOutputs == b.unmatchedOutputs)
    #expect(a.run.mergedShards == 3)
    let history = runCLI(["history", "--history-db", db])
    #expect(history.out.contains("directories      14      12       2"), "\(history.out)")

    // The merge's own gate: nothing fails at --fail-on error? It does (a truncated file); at a baseline of itself, no.
    let gated = runCLI([
        "merge", reports[0], reports[1], reports[2], "--report", dir.appendingPathComponent("m2").path, "--no-history",
        "--baseline", merged.appendingPathComponent("report.json").path, "--quiet",
    ])
    #expect(gated.code == .clean, "\(gated.out)\(gated.err)")
    #expect(gated.out.contains("0 regression(s)"))

    // Two of three: refused, exit 2, the missing shard named, nothing written.
    let partial = dir.appendingPathComponent("partial")
    let p = runCLI(["merge", reports[0], reports[2], "--report", partial.path, "--no-history"])
    #expect(p.code == .usageOrIO)
    #expect(p.err == "readback merge: refused: missing shard(s) 1 of 3\nreadback merge: nothing was written\n")
    #expect(!FileManager.default.fileExists(atPath: partial.path))
    // Shard 1 twice: refused.
    let twice = runCLI(["merge", reports[0], reports[1], reports[1], reports[2], "--report", partial.path])
    #expect(twice.code == .usageOrIO)
    #expect(twice.err.contains("refused: shard 1/3 given 2 times: \(reports[1]), \(reports[1])"))
    // An unsharded report among them: refused.
    let foreign = runCLI(["merge", dir.appendingPathComponent("whole").path] + reports + ["--report", partial.path])
    #expect(foreign.code == .usageOrIO)
    #expect(foreign.err.contains("whole: not a shard report"))
}

@Test func shardAndMergeUsageErrorsAreOneLineExitTwo() throws {
    let cases: [([String], [String: String], String)] = [
        (["audit", "--outputs", "o", "--shard", "3/3"], [:], "the shard index K must satisfy 0 ≤ K < N, not 3/3"),
        (["audit", "--outputs", "o", "--shard", "x"], [:], "--shard takes K/N (for example 0/4) or auto, not 'x'"),
        (
            ["audit", "--outputs", "o", "--shard", "auto"], [:],
            "--shard auto: none of SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX/READBACK_SHARDS, "
                + "CI_NODE_INDEX/CI_NODE_TOTAL is set; give --shard K/N"
        ),
        (
            ["convert", "a.dng", "--out", "o", "--shard", "1/0"], [:],
            "the shard count N must be from 1 to 1000000, not 0"
        ),
        (["merge", "--report", "o"], [:], "give the shard report folders to merge"),
        (["merge", "r/0"], [:], "--report DIR is required"),
        (
            ["merge", "r/0", "--report", "o", "--no-history", "--history-db", "h"], [:],
            "--no-history and --history-db contradict each other"
        ),
        (["merge", "r/0", "o/", "--report", "o"], [:], "--report o is also given as a shard report folder (o/)"),
    ]
    for (args, env, message) in cases {
        let r = runCLI(args, env: env)
        #expect(r.code == .usageOrIO, "\(args)")
        #expect(r.err.hasPrefix("readback \(args[0]): \(message)\n"), "\(args): \(r.err)")
    }
    // A single pair cannot be sharded.
    let dir = Repo.temporaryDirectory("cli-shard-pair")
    defer { try? FileManager.default.removeItem(at: dir) }
    let a = try writeHEIC(dir, "a.heic")
    let pair = runCLI(["audit", a.path, a.path, "--shard", "0/2", "--no-history"])
    #expect(pair.err.hasPrefix("readback audit: --shard splits a folder or a pairs file, not one pair\n"))
}
