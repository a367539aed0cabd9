import Digest
import Foundation
import TestSupport
import Testing

@testable import CorpusKit

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
