import Audit
import Findings
import Foundation
import ReportModel
import Testing

/// The audit calibrated on real tools' outputs, inside `make test-real`: outputs are built at test time
/// from the corpus's phone and camera HEIF files (``CalibrationPlan``, ``CalibrationBuild``), each pair's truth is
/// computed with other readers (``CalibrationTruth``), and the audit must agree with it:
/// - every untouched copy has no error;
/// - every real loss is caught with its code (GPS, capture time, make/model: `metadata.lost`/`metadata.changed` on
///   that field; gain map: `gainmap.missing`; orientation shown: `orientation.changed`; reader models made to
///   disagree: `orientation.inconsistent`);
/// - no error lands on one of those topics where the truth says nothing was lost.
///
/// The truth is committed in Expectations/calibration-truth.tsv, keyed by the source's sha256, the tool and the
/// transformation (not by the output's bytes: they depend on the tools' versions). A computed truth that differs
/// from the committed one fails, as does a pair without one; re-record with `RECORD_EXPECTATIONS=1 make test-real`
/// and review the diff.
@Test func auditAgreesWithTheTruthOnToolRewrittenOutputs() throws {
    for t in ["heif-convert", "heif-enc", "heif-info", "exiftool", "vips", "convert"] {
        try #require(Tool.exists(t), "\(t) is not installed (make test-real installs it)")
    }
    let corpus = try RealWorldCorpus.root()
    let plan = try CalibrationPlan(corpus: corpus)
    #expect(plan.sources.count >= 5, "expected the corpus's phone and camera HEIF files")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readback-calibration-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }

    let started = Date()
    func phase(_ name: String) {
        print(String(format: "calibration: %@ after %.0f s", name, Date().timeIntervalSince(started)))
    }
    let built = CalibrationBuild.parallel(plan.pairs) { p in Result { try CalibrationBuild.build(p, in: dir) } }
    var pairs: [(CalibrationPlan.Pair, URL)] = []
    for (p, r) in zip(plan.pairs, built) {
        switch r {
        case .success(let u): pairs.append((p, u))
        case .failure(let e): Issue.record("\(p.source.relative) \(p.tool)/\(p.transformation) not built: \(e)")
        }
    }
    phase("\(pairs.count) outputs built")
    let truths = try CalibrationRun.truths(pairs, sources: plan.sources, scratch: dir)
    phase("truth computed")
    try CalibrationRun.checkCommitted(pairs: pairs.map(\.0), truths: truths)
    // The calibration measures the content verdicts (metadata, orientation, gain map, signalling) against the truth
    // of each rewrite. The outputs are fresh files in a scratch folder, so their file facts (mtime, mode against the
    // corpus's as provisioned) say where the suite ran, not what the tool did: the file.* codes are off here and
    // are measured on a real filesystem by FileFactsTests and FileFactsBatchTests.
    var policy = Policy.builtIn
    policy.severities.append((pattern: "file.*", severity: nil))
    let options = AuditOptions(policy: policy, decode: true)
    let results = CalibrationBuild.parallel(Array(zip(pairs, truths))) { item in
        let ((p, out), _) = item
        return FileAuditor(options: options, decoders: .inProcess).audit(
            AuditJob(name: p.id, source: p.source.url, output: out))
    }
    phase("audited")
    var tally = CalibrationRun.Tally()
    for (((p, _), truth), r) in zip(zip(pairs, truths), results) {
        tally.add(pair: p, truth: truth, findings: r.findings)
    }
    print(tally.table)
}

/// The pieces of the calibration run: truth for every pair, the committed table, and the tally of the audit against
/// the truth.
enum CalibrationRun {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Expectations/calibration-truth.tsv")

    static func truths(_ pairs: [(CalibrationPlan.Pair, URL)], sources: [CalibrationPlan.Source], scratch: URL) throws
        -> [Truth]
    {
        let exif = try Tool.exiftool(CalibrationTruth.exiftoolArgs, sources.map(\.url.path) + pairs.map(\.1.path))
        let sourceFacts = CalibrationBuild.parallel(sources) {
            CalibrationTruth.facts($0.url, exif: exif[$0.url.path] ?? [:], scratch: scratch)
        }
        let bySource = Dictionary(zip(sources.map(\.url.path), sourceFacts), uniquingKeysWith: { a, _ in a })
        // An output whose primary is byte for byte the source's (same coded data, same properties) shows the same
        // picture: the box reader says so without decoding it again.
        return CalibrationBuild.parallel(pairs) { p, out in
            let s = bySource[p.source.url.path]!
            let o = CalibrationTruth.facts(out, exif: exif[out.path] ?? [:], scratch: scratch, sameDisplayAs: s)
            return CalibrationTruth.judge(source: s, output: o)
        }
    }

    /// Compares the computed truth with the committed table (or records it with RECORD_EXPECTATIONS set).
    static func checkCommitted(pairs: [CalibrationPlan.Pair], truths: [Truth]) throws {
        func key(_ sha: String, _ tool: String, _ tr: String) -> String { "\(sha)\t\(tool)\t\(tr)" }
        if ProcessInfo.processInfo.environment["RECORD_EXPECTATIONS"] != nil {
            var text =
                "# source sha256\ttool\ttransformation\tsource (for humans)\t" + Truth.columns.joined(separator: "\t")
            text += "\n"
            let rows = zip(pairs, truths).map { p, t in
                [p.source.sha256, p.tool, p.transformation, p.source.relative].joined(separator: "\t") + "\t"
                    + t.cells.joined(separator: "\t")
            }
            text += rows.sorted().joined(separator: "\n") + "\n"
            try text.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(file.lastPathComponent); review it, unset RECORD_EXPECTATIONS and run again")
            return
        }
        var committed: [String: Truth] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 4 + Truth.columns.count else { continue }
            committed[key(c[0], c[1], c[2])] = Truth(cells: Array(c[4...]))
        }
        for (p, t) in zip(pairs, truths) {
            guard let want = committed[key(p.source.sha256, p.tool, p.transformation)] else {
                Issue.record(
                    "\(p.source.relative) \(p.tool)/\(p.transformation): no committed truth; computed \(t.cells)")
                continue
            }
            #expect(t == want, "\(p.source.relative) \(p.tool)/\(p.transformation): truth changed")
        }
    }

    /// Counts and asserts: errors, losses caught, false errors, per topic.
    struct Tally {
        var pairs = 0
        var errors = 0
        var losses = 0
        var caught = 0
        var falseErrors = 0
        var rows: [String] = []

        /// The topic of an error finding, nil for one the truth does not judge.
        static func topic(_ f: Finding) -> String? {
            let field = f.evidence?.field ?? ""
            switch f.code.rawValue {
            case "orientation.changed": return "orientation"
            case "orientation.inconsistent": return "consistency"
            case "gainmap.missing": return "gain_map"
            case "metadata.lost", "metadata.changed":
                if field.hasPrefix("GPS:") || field.hasPrefix("XMP-exif:GPS") { return "gps" }
                if CalibrationTruth.timeKeys.contains(field) { return "capture_time" }
                if CalibrationTruth.makeKeys.contains(field) { return "make_model" }
                return nil
            default: return nil
            }
        }

        mutating func add(pair p: CalibrationPlan.Pair, truth: Truth, findings: [Finding]) {
            pairs += 1
            let errs = findings.filter { $0.severity == .error }
            errors += errs.count
            let name = "\(p.source.relative) \(p.tool)/\(p.transformation)"
            if p.tool == "copy" {
                #expect(errs.isEmpty, "\(name): an untouched copy has errors: \(errs.map(\.description))")
            }
            let topics = Set(errs.compactMap(Self.topic))
            for (topic, value) in zip(Truth.columns, truth.cells) {
                let lost = value == "lost" || value == "inconsistent"
                let judged = lost || ["kept", "n/a", "consistent", "source-disagrees"].contains(value)
                guard judged else { continue }
                if lost {
                    losses += 1
                    if topics.contains(topic) { caught += 1 }
                    #expect(topics.contains(topic), "\(name): the truth says \(topic) \(value); no error on it")
                } else if topics.contains(topic) {
                    falseErrors += 1
                    let which = errs.filter { Self.topic($0) == topic }.map(\.description)
                    Issue.record("\(name): error on \(topic) although the truth says \(value): \(which)")
                }
            }
            rows.append("\(name)\t\(truth.cells.joined(separator: " "))\terrors \(errs.count)")
        }

        var table: String {
            let recall = losses == 0 ? 1 : Double(caught) / Double(losses)
            return
                ([
                    "calibration: pairs \(pairs), errors \(errors), losses \(losses), caught \(caught), "
                        + String(format: "recall %.3f", recall) + ", false errors \(falseErrors)"
                ] + rows)
                .joined(separator: "\n")
        }
    }
}
