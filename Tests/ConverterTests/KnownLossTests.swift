import Audit
import CorpusKit
import Findings
import Foundation
import TestSupport
import Testing

/// Known losses fit reality: Readback's converter keeps the MakerNote that the built-in policy calls a known loss, so its
/// outputs carry no per-file `metadata.known-loss-not-happened` under the built-in policy; a policy that asks for
/// the finding (`severity metadata.known-loss-not-happened info`) gets it, about the MakerNote.
@Test func readbackOutputsCarryNoKnownLossNoiseUnlessAPolicyAsks() throws {
    let dir = Repo.temporaryDirectory("known-loss-noise")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recipe = try #require(Corpus.tiny.first { $0.file == "dng/chart-rggb-12bit-o1.dng" })
    let src = dir.appendingPathComponent("chart-rggb-12bit-o1.dng")
    try Data(recipe.dngBytes()).write(to: src)
    let (_, out) = try convertToFile(src, in: dir)
    func audit(_ policy: Policy) -> [Finding] {
        FileAuditor(options: AuditOptions(policy: policy, decode: false), decoders: .inProcess).audit(
            AuditJob(name: out.lastPathComponent, source: src, output: out)
        ).findings
    }
    let code = "metadata.known-loss-not-happened"
    let builtIn = audit(.builtIn)
    #expect(!builtIn.contains { $0.code.rawValue == code }, "\(builtIn.map(\.description))")
    #expect(!builtIn.contains { $0.code.rawValue.hasPrefix("metadata.known-loss") })
    let asking = try Policy.parse("severity \(code) info", name: "ask.policy")
    let asked = audit(asking).filter { $0.code.rawValue == code }
    #expect(asked.map(\.severity) == [.info])
    #expect(asked.first?.evidence?.field?.contains("MakerNote") == true, "\(asked.map(\.description))")
}
