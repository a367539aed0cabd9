import Findings
import Foundation
import HEIF
import MetadataIO

extension Checks {
    /// The pair's metadata and orientation against the source, through the judgement `readback diff` shows too
    /// (``PairJudgement``): values compared under each tag's rule (`metadata.lost` / `changed` / `rounded` /
    /// `reencoded`), known losses by the audit policy, the MakerNote by content where exiv2 parses it, and the
    /// orientation by reader model (`orientation.changed` / `inconsistent` / `double-rotation` / `unverified`),
    /// confirmed from pixels when decoding.
    /// - Parameters:
    ///   - source: the source as read.
    ///   - output: the output as the metadata reader reads it.
    ///   - outputHEIF: the output's container, nil for a file of another family.
    static func metadata(source: InputFile, output: InputFile, outputHEIF: HEIFFile?, options: AuditOptions)
        -> PairJudgement.Result
    {
        PairJudgement.judge(
            PairJudgement.Side(file: source, heif: heif(of: source)),
            PairJudgement.Side(file: output, heif: outputHEIF),
            policy: options.policy, decode: options.decode)
    }
}
