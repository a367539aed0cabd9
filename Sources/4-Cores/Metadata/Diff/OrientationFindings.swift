import Findings

extension Diff {
    /// The orientation findings of a judged pair (``OrientationJudgement``):
    /// - `orientation.changed` (error): a HEIF reader shows the output turned or mirrored against the source as shown;
    /// - `orientation.inconsistent` (error): the output's two reader models disagree although the source's agreed;
    /// - `orientation.double-rotation` (info): the output pairs a turning transform with Exif Orientation ≠ 1 and the
    ///   source did not; only a reader that applies both turns it twice;
    /// - `orientation.unverified` (info): the tags allow a turned output and no pixels decided.
    static func orientationFindings(_ j: OrientationJudgement, evidence: OrientationEvidence) -> [Finding] {
        let s = OrientationJudgement.describe(j.source)
        let o = OrientationJudgement.describe(j.output)
        let pixels = evidence.note.map { "; pixels: \($0)" } ?? ""
        var out: [Finding] = []
        switch j.verdict {
        case .changed:
            let how = j.transform?.description ?? "turned or mirrored"
            out.append(
                Finding(
                    code: .orientationChanged, key: orientationKey,
                    message:
                        "a HEIF reader shows the output \(how) against the source as shown (source: \(s); output: \(o); decided by \(j.basis)\(pixels))",
                    expected: "shown as the source (\(s))", actual: "\(how) (\(o))"))
        case .unverified:
            out.append(
                Finding(
                    code: .orientationUnverified, key: orientationKey,
                    message:
                        "the tags cannot tell whether the output's pixels were turned (source: \(s); output: \(o))\(pixels); taken as unchanged",
                    expected: s, actual: o))
        case .kept:
            break
        }
        if j.inconsistent {
            let exifReader = j.output.heifView.inverse.then(j.output.exifView)
            out.append(
                Finding(
                    code: .orientationInconsistent, key: orientationKey,
                    message:
                        "the output's irot/imir and Exif Orientation disagree although the source's agreed (source: \(s); output: \(o)): a reader that honours only Exif shows it \(exifReader) against a HEIF reader",
                    expected: "irot/imir and Exif Orientation telling the same turn", actual: o))
        }
        if j.introducesDoubleRotation {
            let both = j.output.heifView.then(j.output.exifView)
            out.append(
                Finding(
                    code: .orientationDoubleRotation, key: orientationKey,
                    message:
                        "the output pairs irot/imir with Exif Orientation \(j.output.exif ?? 1), which the source did not: a reader that applies both (libheif#227) shows the coded pixels \(both)",
                    actual: o))
        }
        return out
    }
}
