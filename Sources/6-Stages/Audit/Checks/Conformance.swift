import Findings
import Foundation
import HEIF
import HEIFConformance
import MetadataIO
import ReportModel

// The container's conformance to HEIF, MIAF and their profiles (the rules are HEIFConformance's), judged by the pair:
// in a pair audit a problem the output has and the source did not is introduced by the conversion: an error.
// Standalone, or when the source has it too, a warning: a phone's own file must not fail a gate built for
// conversions. A policy can change both.
extension Checks {
    /// - Parameters:
    ///   - file: the output's container.
    ///   - output: the output's bytes.
    ///   - source: the source as read, nil in a standalone audit.
    static func conformance(_ file: HEIFFile, output: [UInt8], source: InputFile?) -> [Finding] {
        let problems = HEIFConformance.problems(file)
        guard !problems.isEmpty else { return [] }
        let pair = source != nil
        // A file audited against itself introduced nothing, even one whose source is not sniffed as HEIF (no ftyp).
        let shared =
            source?.bytes == output
            ? Set(problems.map(\.code)) : heif(of: source).map { Set(HEIFConformance.problems($0).map(\.code)) } ?? []
        var findings: [Finding] = []
        for p in problems {
            let introduced = pair && !shared.contains(p.code)
            let why = !pair ? "" : introduced ? " (the source did not have this problem)" : " (the source has it too)"
            findings.add(
                p.code, introduced ? .error : .warning, p.message + why,
                Evidence(expected: p.expected, actual: p.actual, item: p.item))
        }
        return findings
    }
}
