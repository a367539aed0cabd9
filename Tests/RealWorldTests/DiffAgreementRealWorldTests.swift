import Audit
import Findings
import Foundation
import TestSupport
import Testing

/// Diff and verdict agree over real files: the calibration's pairs that rewrite metadata only (an untouched copy, exiftool's
/// rebuild, GPS stripped, DateTimeOriginal shifted, irot cleared, Exif Orientation reset; ``CalibrationPlan``), and
/// for every source `exiftool -MakerNotes:all= -o OUT SRC`. For each pair, each field's diff class
/// (the table of `readback diff`, the report's rows) and its findings agree (``DiffAgreement``); the MakerNote
/// removed from an iPhone HEIC is class known-loss with finding metadata.known-loss, as a new user meets it.
/// The encoders' pairs (heif-enc, vips, ImageMagick) are the calibration's, not repeated here.
@Test func diffClassesAndFindingsAgreeOnRealWorldPairs() throws {
    for t in ["heif-info", "exiftool"] {
        try #require(Tool.exists(t), "\(t) is not installed (make test-real installs it)")
    }
    let plan = try CalibrationPlan(corpus: try RealWorldCorpus.root())
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readback-agreement-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let metadataOnly = plan.pairs.filter {
        ["copy", "exiftool", "lossy"].contains($0.tool) && $0.transformation != "rotate-pixels"
    }
    var pairs: [(name: String, source: CalibrationPlan.Source, output: URL)] = []
    for (p, r) in zip(
        metadataOnly, CalibrationBuild.parallel(metadataOnly) { p in Result { try CalibrationBuild.build(p, in: dir) } }
    ) {
        switch r {
        case .success(let u): pairs.append((p.id, p.source, u))
        case .failure(let e): Issue.record("\(p.source.relative) \(p.tool)/\(p.transformation) not built: \(e)")
        }
    }
    // Every source: exiftool's MakerNotes group is named by vendor (`Apple:*`), so the plan's hasMakerNote misses
    // the iPhones; the diff says whether the source had one.
    for s in plan.sources {
        let out = dir.appendingPathComponent("\(s.sha256.prefix(12))-exiftool-makernote-strip.heic")
        try Tool.run("exiftool", ["-q", "-q", "-MakerNotes:all=", "-o", out.path, s.url.path])
        pairs.append((out.lastPathComponent, s, out))
    }
    #expect(pairs.count >= 20, "expected the calibration's metadata-only pairs, found \(pairs.count)")
    let policy = Policy.builtIn
    let judged = CalibrationBuild.parallel(pairs) { p in
        PairJudgement.judge(source: p.source.url, output: p.output, policy: policy, decode: true, decoders: .inProcess)
    }
    var iPhoneStrips = 0
    for (p, r) in zip(pairs, judged) {
        var rows: [String: FieldClass] = [:]
        for e in r.diff?.entries ?? [] where policy.matters(e.key.description) { rows[e.key.description] = e.diffClass }
        #expect(r.diff != nil, "\(p.source.relative) \(p.name): \(r.findings)")
        #expect(DiffAgreement.disagreements(rows: rows, findings: r.findings) == [], "\(p.source.relative) \(p.name)")
        guard p.name.hasSuffix("makernote-strip.heic"), (p.source.exif["IFD0:Make"] as? String) == "Apple",
            r.diff?.sourceMakerNote != nil
        else {
            continue
        }
        iPhoneStrips += 1
        #expect(
            rows["MakerNotes:MakerNote"] == .knownLoss,
            "\(p.source.relative): \(rows["MakerNotes:MakerNote"].map(\.rawValue) ?? "no row")")
        let codes = r.findings.filter { $0.evidence?.field == "MakerNotes:MakerNote" }.map(\.code)
        #expect(codes == [.metadataKnownLoss], "\(p.source.relative)")
    }
    #expect(iPhoneStrips >= 1, "the corpus's iPhone HEICs carry a MakerNote")
}
