import Findings
import Foundation
import HEIF
import ReportModel
import TIFFLayout

extension Checks {
    /// Without a source, the output's own two reader models: `irot`/`imir` (ISO/IEC 23008-12 §6.5.10, §6.5.12),
    /// which HEIF readers apply, and an Exif Orientation (CIPA DC-008 tag 0x0112), which Exif-only readers apply,
    /// that both turn and disagree (`orientation.inconsistent`, warning: which one is right needs the source). With a
    /// source, the pair's judgement (``PairJudgement``) decides, in the metadata check.
    /// - Parameter out: the output's container, in a standalone audit.
    static func orientation(_ out: HEIFFile) -> Finding? {
        guard let p = out.primaryItemID else { return nil }
        let t = out.orientation(of: p).exif
        guard t != 1, let e = exifOrientation(out, p), e != 1, e != t else { return nil }
        return Finding(
            code: .orientationInconsistent, severity: .warning,
            message:
                "irot/imir say orientation \(t) but Exif Orientation says \(e): readers disagree on how to show the image",
            evidence: Evidence(expected: "\(t)", actual: "\(e)", field: "IFD0:Orientation", item: p))
    }

    /// IFD0 Orientation from the Exif item describing `item` (bounded TIFF read; nil when absent or malformed).
    static func exifOrientation(_ f: HEIFFile, _ item: UInt32) -> Int? {
        for x in f.metadataItems(describing: item) where f.item(x)?.isExif == true {
            guard let t = f.exifTIFF(of: x), let layout = try? TIFFLayout(Data(t)), let ifd0 = layout.directories.first,
                ifd0[0x0112] != nil
            else { continue }
            return layout.integer(0x0112, in: ifd0).flatMap { (1...8).contains($0) ? $0 : nil }
        }
        return nil
    }
}
