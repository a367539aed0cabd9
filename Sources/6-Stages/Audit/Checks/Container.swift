import Findings
import Foundation
import HEIF
import ReportModel

extension Checks {
    /// The output parsed, and the parser's findings.
    struct ContainerOutcome {
        let file: HEIFFile
        let findings: [Finding]
    }

    /// Container findings from the HEIF parser (its codes are the catalogue's `container.*`); a box or an item extent
    /// that runs past the end of the file becomes `container.truncated` with its offset (ISO/IEC 14496-12 §4.2 box
    /// sizes, §8.11.3 iloc).
    static func container(_ output: [UInt8]) -> ContainerOutcome {
        let file = HEIFFile(bytes: output)
        var findings: [Finding] = []
        for f in file.findings {
            let evidence = Evidence(offset: f.offset.map { max(0, $0) })
            if f.code == .containerBoxTruncated || f.code == .containerIlocExtentPastEof {
                findings.add(
                    .containerTruncated, "the file is truncated: \(f.message)",
                    Evidence(offset: evidence.offset, actual: "\(output.count) bytes in the file"))
            } else {
                findings.append(Finding(code: f.code, severity: f.severity, message: f.message, evidence: evidence))
            }
        }
        return ContainerOutcome(file: file, findings: findings)
    }
}
