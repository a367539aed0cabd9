import Findings
import Foundation
import MetadataIO

extension Checks {
    /// The pair's metadata and orientation against the source, through the judgement `readback diff` shows too
    /// (``PairJudgement``): values compared under each tag's rule (`metadata.lost` / `changed` / `rounded` /
    /// `reencoded`), known losses by the audit policy, the MakerNote by content where exiv2 parses it, and the
    /// orientation by reader model (`orientation.changed` / `inconsistent` / `double-rotation` / `unverified`),
    /// confirmed from pixels when decoding.
    static func metadata(_ ctx: inout Context) {
        guard ctx.job.source != nil, let source = ctx.source, let out = ctx.job.output else { return }
        let r = PairJudgement.judge(
            PairJudgement.Side(file: source, heif: ctx.sourceHEIF),
            PairJudgement.Side(file: ctx.outputInput(out), heif: ctx.file),
            policy: ctx.options.policy, decode: ctx.options.decode)
        ctx.diffRows = r.rows
        ctx.findings += r.findings
    }
}
