import Digest
import Foundation
import TestSupport
import Testing

@testable import CorpusKit

/// Regenerating the corpus (DNGs, truth, the committed good HEIC's mutations, MANIFEST) gives the committed bytes:
/// generation is deterministic and the committed corpus is current.
@Test func regeneratingGivesTheCommittedCorpus() throws {
    let tmp = Repo.temporaryDirectory("corpus-regen")
    defer { try? FileManager.default.removeItem(at: tmp) }
    let committedGood = try readBytes(corpusRoot.appendingPathComponent("heic/good.heic"))
    // The committed good.heic already carries Exif/XMP, so completing it changes nothing.
    let rows = try Corpus.generate(into: tmp, goodHEIC: committedGood)
    #expect(rows.count >= Corpus.tiny.count + 2 + 1 + Mutator.codes.count)
    let manifest = try readBytes(tmp.appendingPathComponent("MANIFEST"))
    #expect(
        manifest == (try readBytes(corpusRoot.appendingPathComponent("MANIFEST"))), "MANIFEST differs: run make corpus")
    for r in rows where r.sha256 != "-" {
        let fresh = try readBytes(tmp.appendingPathComponent(r.file))
        let committed = try readBytes(corpusRoot.appendingPathComponent(r.file))
        #expect(fresh == committed, "\(r.file) differs from the committed file: run make corpus")
        #expect(SHA256.hex(committed) == r.sha256)
    }
    let mutations = try readBytes(tmp.appendingPathComponent("heic/mutations/MUTATIONS"))
    #expect(mutations == (try readBytes(corpusRoot.appendingPathComponent("heic/mutations/MUTATIONS"))))
}

/// Same recipe, same bytes, twice in one process; a different seed changes the bytes (noise, MakerNote).
@Test func sameSeedSameBytes() {
    let r = Corpus.tiny[0]
    #expect(r.dngBytes() == r.dngBytes())
    var other = r
    other.spec.seed += 1
    #expect(other.dngBytes() != r.dngBytes())
}

/// The MANIFEST lists every committed file with its sha256, and documents every finding code.
@Test func manifestDescribesTheCorpus() throws {
    let text = try String(contentsOf: corpusRoot.appendingPathComponent("MANIFEST"), encoding: .utf8)
    let rows = Corpus.parseManifest(text)
    for r in Corpus.tiny { #expect(rows.contains { $0.file == r.file }, "\(r.file) missing from MANIFEST") }
    for code in Mutator.codes {
        #expect(text.contains("#   \(code)\t"), "finding code \(code) not documented")
        #expect(rows.contains { $0.expectedAudit == code }, "no mutation row for \(code)")
    }
    for r in rows where r.sha256 != "-" {
        let b = try readBytes(corpusRoot.appendingPathComponent(r.file))
        #expect(SHA256.hex(b) == r.sha256, "\(r.file)")
    }
    let total = rows.filter { $0.sha256 != "-" }.reduce(0) { acc, r in
        acc
            + ((try? FileManager.default.attributesOfItem(atPath: corpusRoot.appendingPathComponent(r.file).path)[.size]
                as? Int) ?? 0)
    }
    #expect(total < 3_000_000, "committed corpus is \(total) bytes")
}
