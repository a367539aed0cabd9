import Findings
import Foundation
import ReportModel
import Sharding

@testable import Audit
@testable import ReportWriting

/// Reports that look like real audits (findings of every severity, metadata rows, gain maps, missing outputs,
/// strings that need escaping), and their split into shard reports by the sharding rule.
enum ShardReports {
    /// A directories-mode report of `n` files, sorted by name as an audit sorts them.
    static func report(_ n: Int, failOn: Severity = .error) -> AuditReport {
        var files: [FileResult] = []
        for i in 0..<n {
            let folder = ["2024/été", "a", "b/\"quoted\" {braces}", "Ünïcode ✓", "deep/x/y"][i % 5]
            let stem = "IMG_\(String(format: "%04d", i))"
            var findings: [Finding] = [Finding(code: .metadataReencoded, severity: .info, message: "all fields kept")]
            if i % 7 == 3 {
                findings.append(
                    Finding(
                        code: .metadataLost, severity: .error, message: "GPS:GPSLatitude lost \\ <&>",
                        evidence: Evidence(expected: "48.8584", field: "GPS:GPSLatitude")))
            }
            if i % 5 == 1 { findings.append(Finding(code: .sizeRatio, severity: .warning, message: "small")) }
            if i % 11 == 2 {
                findings.append(Finding(code: .metadataKnownLoss, severity: .knownLoss, message: "MakerNote"))
            }
            let missing = i % 13 == 6
            if missing {
                findings = [Finding(code: .outputMissing, severity: .error, message: "no output was found")]
            }
            files.append(
                FileResult(
                    name: "\(folder)/\(stem)." + (missing ? "dng" : "heic"), source: "\(folder)/\(stem).dng",
                    output: missing ? nil : "\(folder)/\(stem).heic", sourceBytes: UInt64(20_000_000 + i),
                    outputBytes: missing ? nil : UInt64(2_000_000 + 7 * i),
                    sha256: missing ? nil : String(repeating: String(format: "%02x", i % 256), count: 32),
                    findings: findings,
                    metadata: missing
                        ? []
                        : [
                            DiffRow(field: "IFD0:Make", status: .kept, source: "Canon", output: "Canon"),
                            DiffRow(
                                field: "GPS:GPSLatitude", status: i % 7 == 3 ? .lost : .kept, source: "48.8584",
                                output: i % 7 == 3 ? nil : "48.8584"),
                            DiffRow(field: "XMP:Empty", status: .added, source: nil, output: ""),
                        ],
                    gainMaps: i % 3 == 0
                        ? [
                            GainMapResult(
                                kind: "iso", item: 7, description: .pass, metadata: .pass, data: .pass,
                                colourSpace: i % 9 == 0 ? .fail : .pass)
                        ] : [],
                    decode: missing ? [] : [DecodeResult(target: .primary, status: .ok, width: 64, height: 48)]))
        }
        files.sort { $0.name < $1.name }
        let run = RunParameters(
            mode: .directories, startedAt: "2026-01-02T03:04:05Z", durationSeconds: 0, failOn: failOn,
            jobs: 1, roots: ["outputs": "out", "sources": "src"])
        return AuditReport(
            tool: ToolInfo(version: "0.0.0-test"), libraries: [LibraryVersion(name: "libheif", version: "X")],
            run: run, files: files, unmatchedOutputs: ["zz/extra-1.heic", "a/extra-2.heic", "Ü/extra-3.heic"])
    }

    /// The shard key of a file entry, as the merge computes it.
    static func key(_ f: FileResult) -> String { f.source ?? f.output ?? f.name }

    /// `report` split into `count` shard reports by the rule, as `audit --shard K/N` would write them: each with
    /// its own files and unmatched outputs, `run.shard` and the whole list's fingerprint, summary recomputed. The
    /// list is every file's key plus `extraKeys` (sources that are no job: a second file with a used stem).
    static func split(_ report: AuditReport, count: Int, extraKeys: [String] = []) throws -> [AuditReport] {
        let keys = report.files.map(key) + extraKeys
        let list = SourceListFingerprint(keys)
        return try (0..<count).map { k in
            let shard = try Shard(index: k, count: count)
            var run = report.run
            run.shard = ShardRecord(index: k, count: count, sources: keys.filter(shard.contains).count)
            run.sourceList = SourceListRecord(files: list.files, sha256: list.sha256)
            return AuditReport(
                tool: report.tool, libraries: report.libraries, run: run,
                files: report.files.filter { shard.contains(key($0)) },
                unmatchedOutputs: report.unmatchedOutputs.filter(shard.contains))
        }
    }

    /// Writes each report with `ReportFiles.write` into `dir/<k>`; returns the folders.
    static func write(_ reports: [AuditReport], under dir: URL) throws -> [String] {
        try reports.enumerated().map { k, r in
            let folder = dir.appendingPathComponent("\(k)")
            try ReportFiles.write(r, to: folder)
            return folder.path
        }
    }
}
