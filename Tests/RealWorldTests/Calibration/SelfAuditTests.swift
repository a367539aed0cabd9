import Audit
import Findings
import Foundation
import ReportModel
import Testing

/// Every untouched file of the corpus against itself, `readback audit F F`: HEIF-family files get every check; JPEG,
/// RAW and other files get `output.not-heif` (a warning) and the pair judgement of their metadata and orientation. No
/// file may get an error, except the deliberately broken ones; and not even those may get an error that compares the
/// pair (a file cannot lose anything against itself).
@Test func selfAuditOfEveryUntouchedFileHasNoError() throws {
    let root = try RealWorldCorpus.root()
    let manifest = BrokenFiles(corpus: root)
    let all = try RealWorldCorpus.files([
        "heic", "heif", "hif", "avif", "jpg", "jpeg", "dng", "cr2", "cr3", "crw", "nef", "arw", "raf", "rw2", "orf",
        "mrw", "iiq", "x3f", "exv",
    ])
    #expect(all.count >= 90, "expected the shared corpus (~100 files), found \(all.count)")
    let results = CalibrationBuild.parallel(all) { f -> [Finding] in
        FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(name: f.lastPathComponent, source: f, output: f)
        )
        .findings
    }
    for (f, findings) in zip(all, results) {
        let rel = String(f.path.dropFirst(root.path.count + 1))
        let errors = findings.filter { $0.severity == .error }
        let comparing = errors.filter { BrokenFiles.comparesThePair($0.code.rawValue) }
        #expect(comparing.isEmpty, "\(rel) against itself: \(comparing.map(\.description))")
        if manifest.isBroken(rel, f) { continue }
        #expect(errors.isEmpty, "\(rel) against itself: \(errors.map(\.description))")
    }
}

/// The deliberately broken files, from data: the corpus manifest's own words (no decoder opens the file, or its
/// notes say it is truncated, corrupt, fuzzed, invalid or to be ignored by readers), and for a file the manifest does
/// not list, an error exiftool reports for it.
struct BrokenFiles {
    private var rows: [String: (decoders: String, notes: String)] = [:]

    init(corpus: URL) {
        guard let text = try? String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        guard let head = lines.first?.map(String.init), let path = head.firstIndex(of: "relpath"),
            let dec = head.firstIndex(where: { $0.hasPrefix("decodes") }), let notes = head.firstIndex(of: "notable")
        else { return }
        for c in lines.dropFirst() where c.count > max(path, dec, notes) {
            rows[String(c[path])] = (String(c[dec]), String(c[notes]))
        }
    }

    static let brokenWords = ["truncat", "corrupt", "overrun", "fuzz", "invalid", "ignore", "stub", "poc"]

    func isBroken(_ relative: String, _ url: URL) -> Bool {
        if let r = rows[relative] {
            let decodes = r.decoders.lowercased()
            let notes = r.notes.lowercased()
            return (!decodes.contains("yes") && !decodes.hasPrefix("n/a"))
                || Self.brokenWords.contains { notes.contains($0) }
        }
        let exif = try? Tool.exiftool(["-ExifTool:Error"], [url.path])
        return exif?[url.path]?["Error"] != nil
    }

    /// Codes that compare a source with an output (a file cannot earn one against itself).
    static func comparesThePair(_ code: String) -> Bool {
        code.hasPrefix("metadata.") && code != "metadata.unreadable" || code.hasPrefix("orientation.")
            || code == "gainmap.missing" || code == "signalling.nclx-missing"
            || ["render.orientation", "render.cast", "render.exposure"].contains(code)
    }
}
