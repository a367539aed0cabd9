import Foundation
import ReportModel

extension Checks {
    /// The metadata diff against the source (Metadata/MetadataIO).
    static func metadata(_ ctx: inout Context) {
    }
}
