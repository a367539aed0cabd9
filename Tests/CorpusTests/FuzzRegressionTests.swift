import Foundation
import FuzzKit
import TestSupport
import Testing

/// Every input `make fuzz` found breaking a parser is kept in Tests/FuzzRegressions/TARGET and replayed through the
/// same target: each holds every invariant now (a broken one traps, which fails the run loudly).
@Test(arguments: FuzzTarget.allCases)
func fuzzRegressionsHoldEveryInvariant(_ target: FuzzTarget) throws {
    let dir = Repo.root.appendingPathComponent("Tests/FuzzRegressions/\(target.rawValue)")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    for name in files {
        target.run([UInt8](try Data(contentsOf: dir.appendingPathComponent(name))))
    }
    if [.heif, .tiff, .opcodes].contains(target) { #expect(!files.isEmpty, "\(target): its reproducers are gone") }
}
