import ReportModel
import TestSupport

@testable import Audit
@testable import ReportWriting

extension FixedReport {
    /// The thumbnails the HTML golden shows, inlined: a primary for the first file only.
    static func thumbnails(_ index: Int) -> ThumbnailLinks {
        guard index == 0 else { return ThumbnailLinks() }
        return ThumbnailLinks(
            primary: Thumbnailer.dataURI(
                Pixels(width: 4, height: 2, channels: 3, bitDepth: 8, samples: Array(repeating: 200, count: 24))))
    }
}
