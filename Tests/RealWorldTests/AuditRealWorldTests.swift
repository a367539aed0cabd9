import Audit
import Foundation
import ReportModel
import Testing

/// The real-world audit suite: every HEIC/HEIF/HIF/AVIF of the corpus is audited without a source (`--outputs`
/// mode, full decoding), and each file's verdict is compared with the expectation committed under
/// Tests/RealWorldTests/Expectations/audit.tsv, keyed by the file's sha256.
///
/// A verdict is: the sorted finding codes of severity error or warning (with `@offset` for `container.truncated`,
/// so a truncation is pinned to its place), and each gain map as `kind:DMDC` (description, metadata, data, colour
/// space; P pass, F fail, A absent). Any difference fails; a file without an expectation fails.
///
/// Re-record after a deliberate change with
///   RECORD_EXPECTATIONS=1 make test-real
/// (the recording run fails on purpose), then review the diff of audit.tsv line by line against the docs.
enum AuditExpectations {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Expectations/audit.tsv")

    struct Line: Equatable {
        var sha256: String
        var name: String
        var findings: String
        var gainMaps: String
    }

    static func verdict(_ r: FileResult) -> Line {
        var codes = Set<String>()
        for f in r.findings where f.severity == .error || f.severity == .warning {
            if f.code == .containerTruncated, let o = f.evidence?.offset {
                codes.insert("\(f.code)@\(o)")
            } else {
                codes.insert(f.code.rawValue)
            }
        }
        let gm = r.gainMaps.map { g in
            "\(g.kind):"
                + [g.description, g.metadata, g.data, g.colourSpace].map { $0.rawValue.prefix(1).uppercased() }.joined()
        }
        return Line(
            sha256: r.sha256 ?? "-", name: r.name,
            findings: codes.isEmpty ? "-" : codes.sorted().joined(separator: ","),
            gainMaps: gm.isEmpty ? "-" : gm.joined(separator: ","))
    }

    static func render(_ lines: [Line]) -> String {
        var s =
            "# sha256\tfile (for humans)\terror/warning codes\tgain maps kind:description,metadata,data,colour (P/F/A)\n"
        for l in lines.sorted(by: { $0.name < $1.name }) {
            s += "\(l.sha256)\t\(l.name)\t\(l.findings)\t\(l.gainMaps)\n"
        }
        return s
    }

    static func parse(_ text: String) -> [String: Line] {
        var out: [String: Line] = [:]
        for raw in text.split(separator: "\n") where !raw.hasPrefix("#") {
            let c = raw.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 4 else { continue }
            out[c[0]] = Line(sha256: c[0], name: c[1], findings: c[2], gainMaps: c[3])
        }
        return out
    }
}

@Test func auditVerdictsMatchTheCommittedExpectations() throws {
    let root = try RealWorldCorpus.root()
    let pairing = try Pairing.outputsOnly(root)
    #expect(pairing.jobs.count >= 50, "expected the corpus's HEIF files, found \(pairing.jobs.count)")
    let report = Auditor.run(
        pairing, options: AuditOptions(decode: true, jobs: 2), mode: .outputsOnly, roots: ["outputs": root.path],
        tool: ToolInfo(version: "test"), libraries: [], decoders: .inProcess)
    let actual = report.files.map(AuditExpectations.verdict)
    if ProcessInfo.processInfo.environment["RECORD_EXPECTATIONS"] != nil {
        try FileManager.default.createDirectory(
            at: AuditExpectations.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AuditExpectations.render(actual).write(to: AuditExpectations.file, atomically: true, encoding: .utf8)
        Issue.record(
            "re-recorded \(AuditExpectations.file.lastPathComponent); review it, unset RECORD_EXPECTATIONS and run again"
        )
        return
    }
    let expected = AuditExpectations.parse(try String(contentsOf: AuditExpectations.file, encoding: .utf8))
    for a in actual {
        guard let e = expected[a.sha256] else {
            Issue.record(
                "\(a.name) (sha256 \(a.sha256)) has no expectation; its verdict is \(a.findings) | \(a.gainMaps)")
            continue
        }
        #expect(a.findings == e.findings, "\(a.name): findings")
        #expect(a.gainMaps == e.gainMaps, "\(a.name): gain maps")
    }
}

/// Spot checks written by hand from the corpus manifest and docs/formats, independent of the recorded file.
@Test func auditSpotChecksOnKnownFiles() throws {
    let root = try RealWorldCorpus.root()
    func audit(_ rel: String) -> FileResult {
        let u = root.appendingPathComponent(rel)
        return FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(name: rel, source: nil, output: u))
    }
    // iPhone 16 (iOS 26): the gain-map grid is both Apple's aux and the ISO tmap's input; both complete, and it
    // decodes although libheif 1.15 refuses the file as a whole (docs/platform.md).
    let iphone16 = audit("heic/libvips_pr5132_iphone16_apple-heic-gainmap.heic")
    #expect(iphone16.gainMaps.map(\.kind) == ["apple", "iso"])
    #expect(iphone16.gainMaps.allSatisfy { $0.isComplete })
    #expect(iphone16.decode.first?.status == .ok)
    #expect(iphone16.decode.first?.width == 5712)
    #expect(iphone16.verdict(failOn: .error) == .pass)
    // A truncated file: a container error with its offset (the mdat at 607 declares one byte more than remains).
    let truncated = audit("heic/pillowheif_truncated.heic")
    #expect(truncated.findings.contains { $0.code == .containerTruncated && $0.evidence?.offset == 607 })
    #expect(truncated.verdict(failOn: .error) == .fail)
    // libavif's zero-gamma tmap: the metadata part fails.
    let gamma = audit("avif/libavif_seine_sdr_gainmap_gammazero.avif")
    #expect(gamma.gainMaps.first?.metadata == .fail)
    #expect(gamma.findings.contains { $0.code == .gainmapTmapGammaZero })
    // An iPhone 13 Pro (iOS 17) file: Apple aux only, complete.
    let ios17 = audit("heic/applehdrheic_hdr-sample_iPhone13Pro_iOS17.heic")
    #expect(ios17.gainMaps.map(\.kind) == ["apple"])
    #expect(ios17.gainMaps.first?.isComplete == true)
}
