import Foundation
import GainMap
import HEIF
import Testing

@Test func gainMapRealWorldDump() throws {
    for url in try RealWorldCorpus.files(["heic", "heif", "hif", "avif"]) {
        guard let file = try? HEIFFile(contentsOf: url.path) else { continue }
        let ins = GainMapInspector.inspect(file)
        guard ins.hasGainMap || !ins.findings.isEmpty else { continue }
        print("== \(url.lastPathComponent) \(ins.findings)")
        for r in ins.reports {
            print("  base \(r.baseItemID) gm \(r.gainMapItemID.map(String.init) ?? "-") tmap \(r.toneMapItemID.map(String.init) ?? "-") \(r.forms.map(\.rawValue))")
            for p in r.parts {
                print("    \(p.part.rawValue): \(p.verdict.rawValue) \(p.findings.map { "\($0.code.rawValue)@\($0.offset ?? -1): \($0.message)" }) | \(p.evidence.joined(separator: "; "))")
            }
        }
    }
}
