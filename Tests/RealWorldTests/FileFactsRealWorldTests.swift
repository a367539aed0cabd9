import Audit
import FileFacts
import Foundation
import MetadataIO
import Testing

/// Develop settings on real files, found by content (any `crs:` or `darktable:` property), never by name:
/// - the corpus's one RAW with Camera Raw settings in its own XMP (a Lightroom-exported DNG, every setting at its
///   default, the parametric curve's split points and a legacy curve name among them) must not read as edited, or its
///   original would be kept for edits it does not hold;
/// - rendered files exported with real edits (AVIF, HEIC and JPEG with non-zero exposure, a crop, retouching) hold
///   settings that were applied when they were rendered: the audit does not hold them against a pair.
@Test func developSettingsOnRealFilesAreReadRight() throws {
    let files = try RealWorldCorpus.files([
        "dng", "cr2", "cr3", "nef", "arw", "raf", "orf", "rw2", "heic", "hif", "avif", "jpg",
    ])
    var raws = 0
    var rendered = 0
    for url in files {
        guard let entries = MetadataReader.xmpEntries(url, decoders: .inProcess) else { continue }
        let develop = entries.filter { $0.key.hasPrefix("Xmp.crs.") || $0.key.hasPrefix("Xmp.darktable.") }
        guard !develop.isEmpty else { continue }
        let edits = Sidecar.developEdits(develop, sourceOrientation: nil)
        if url.pathExtension.lowercased() == "dng" {
            raws += 1
            #expect(edits.isEmpty, "\(url.lastPathComponent): an untouched DNG read as edited: \(edits)")
        } else if !edits.isEmpty {
            rendered += 1
            let j = try #require(FileFactsCheck.judge(source: url, output: url, decoders: .inProcess))
            #expect(
                !j.findings.contains { $0.code.rawValue.hasPrefix("sidecar.") },
                "\(url.lastPathComponent): applied edits of a rendered file held against it")
        }
    }
    #expect(raws >= 1, "expected a RAW with Camera Raw settings in its own XMP")
    #expect(rendered >= 5, "expected rendered files exported with edits, found \(rendered)")
}
