import Findings
import Foundation
import HEIF
import ReportModel

extension Checks {
    /// Container findings from the HEIF parser (its codes are the catalogue's `container.*`); a box or an item extent
    /// that runs past the end of the file becomes `container.truncated` with its offset (ISO/IEC 14496-12 §4.2 box
    /// sizes, §8.11.3 iloc).
    static func container(_ ctx: inout Context) {
        let file = HEIFFile(bytes: ctx.output)
        ctx.file = file
        for f in file.findings {
            let evidence = Evidence(offset: f.offset.map { max(0, $0) })
            if f.code == .containerBoxTruncated || f.code == .containerIlocExtentPastEof {
                ctx.add(
                    .containerTruncated, "the file is truncated: \(f.message)",
                    Evidence(offset: evidence.offset, actual: "\(ctx.output.count) bytes in the file"))
            } else {
                ctx.findings.append(Finding(code: f.code, severity: f.severity, message: f.message, evidence: evidence))
            }
        }
    }
}
