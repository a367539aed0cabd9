import Findings
import Foundation
import HEIF
import HEIFConformance
import ReportModel

// The container's conformance to HEIF, MIAF and their profiles (the rules are HEIFConformance's), judged by the pair:
// in a pair audit a problem the output has and the source did not is introduced by the conversion: an error.
// Standalone, or when the source has it too, a warning: a phone's own file must not fail a gate built for
// conversions. A policy can change both.
extension Checks {
    static func conformance(_ ctx: inout Context) {
        guard let file = ctx.file else { return }
        let problems = HEIFConformance.problems(file)
        guard !problems.isEmpty else { return }
        let pair = ctx.job.source != nil
        // A file audited against itself introduced nothing, even one whose source is not sniffed as HEIF (no ftyp).
        let shared =
            ctx.sourceBytes == ctx.output
            ? Set(problems.map(\.code)) : ctx.sourceHEIF.map { Set(HEIFConformance.problems($0).map(\.code)) } ?? []
        for p in problems {
            let introduced = pair && !shared.contains(p.code)
            let why = !pair ? "" : introduced ? " (the source did not have this problem)" : " (the source has it too)"
            ctx.add(
                p.code, introduced ? .error : .warning, p.message + why,
                Evidence(expected: p.expected, actual: p.actual, item: p.item))
        }
    }
}
