/// How one metadata field fared between a source and an output: the one class that the metadata diff gives a field
/// (Metadata's `DiffClass`), `readback diff` prints and the audit report's rows carry (ReportModel's `DiffStatus`).
///
/// It lives here, in the leaf both modules import, so the diff's table and the report cannot drift apart. The raw
/// values are the diff's strings (`readback diff --json`); the report writes its own coarser strings
/// (``reportStatus``, ``reportName``).
public enum FieldClass: String, Sendable, Hashable, Codable, CaseIterable {
    case kept
    /// The same value written another way (a rational re-derived from a float, XMP text for an Exif rational, a tag
    /// moved from XMP into Exif by the writer).
    case reencoded
    /// Within the source's own printed precision (exiftool prints both the same).
    case rounded
    case changed
    case lost
    case added
    /// Changed or dropped on purpose (Orientation carried by the pixels or by irot/imir; pixel dimensions;
    /// Software; thumbnail, strip and DNG-structural tags).
    case expectedChange = "expected-change"
    /// Lost, and the policy says that loss is known (e.g. the MakerNote).
    case knownLoss = "known-loss"

    /// The class a report row shows: a same-value rewrite is kept, a rounding is a change (its note says so).
    public var reportStatus: FieldClass {
        switch self {
        case .kept, .reencoded: .kept
        case .rounded, .changed: .changed
        case .lost, .added, .expectedChange, .knownLoss: self
        }
    }

    /// The string a report row writes (report schema): the raw value, except `expected` for an expected change.
    public var reportName: String { self == .expectedChange ? "expected" : reportStatus.rawValue }

    /// The class a report row's string stands for (``reportName`` or a raw value); nil for an unknown string.
    public init?(reportName: String) {
        if reportName == "expected" {
            self = .expectedChange
        } else if let c = FieldClass(rawValue: reportName) {
            self = c.reportStatus
        } else {
            return nil
        }
    }
}
