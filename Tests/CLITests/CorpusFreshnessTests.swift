import Foundation
import TestSupport
import Testing

/// `make corpus` (`readback corpus generate --out Corpus`) run into a temporary folder gives the committed `Corpus/`
/// byte for byte: every DNG, the truth files, `heic/good.heic` converted by today's Converter, its mutations and both
/// manifests. A change to the encoder, the converter's defaults or a generator that leaves the committed fixtures
/// stale fails here (`good.heic` had once gone from 11,057 to 9,412 bytes with the encoder defaults, unnoticed).
@Test func generatingTheCorpusGivesTheCommittedBytes() throws {
    let tmp = Repo.temporaryDirectory("corpus-fresh")
    defer { try? FileManager.default.removeItem(at: tmp) }
    let r = runCLI(["corpus", "generate", "--out", tmp.path])
    #expect(r.code == .clean, "\(r.err)")
    let committed = Repo.root.appendingPathComponent("Corpus")
    let fresh = try generatedFiles(under: tmp)
    // README.md is written by hand; everything else in Corpus/ is generated. Corpus/large/ is git-ignored: the ladder's
    // inputs, generated on demand (`make ladder`) and never committed.
    let kept = try generatedFiles(under: committed).filter { $0 != "README.md" && !$0.hasPrefix("large/") }
    #expect(fresh == kept, "files generated and committed differ: run make corpus")
    for file in fresh where kept.contains(file) {
        let a = try Data(contentsOf: tmp.appendingPathComponent(file))
        let b = try Data(contentsOf: committed.appendingPathComponent(file))
        let same = a == b  // a Bool, so a failure names the file instead of dumping its bytes
        #expect(same, "\(file) differs from what make corpus writes (\(a.count) vs \(b.count) bytes): run make corpus")
    }
}

/// Every regular file below `root`, as sorted relative paths.
private func generatedFiles(under root: URL) throws -> [String] {
    let base = root.standardizedFileURL.path + "/"
    guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
        return []
    }
    var out: [String] = []
    for case let url as URL in e where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
        out.append(String(url.standardizedFileURL.path.dropFirst(base.count)))
    }
    return out.sorted()
}
