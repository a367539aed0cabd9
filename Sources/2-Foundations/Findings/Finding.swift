/// One thing a checker noticed, in the one shape every layer fills: the container parser (HEIF), the gain-map
/// inspector (GainMap), the metadata diff (Metadata) and the audit report (ReportModel).
///
/// A finding is a stable dotted code, a severity, one line for a person and the evidence that is known. Every code
/// is a case of the one catalogue, ``FindingCode`` (its default severity, topic, meaning and effect on a
/// conversion), so a code the catalogue does not list cannot be raised; reports, baselines and policies key on the
/// code's string, so a renamed code keeps its old name as an alias for one report-schema version.
public struct Finding: Codable, Hashable, Sendable, CustomStringConvertible {
    /// A stable, dotted code from ``FindingCode`` (`container.pitm.missing`, `gainmap.tmap.gamma-zero`, …); JSON
    /// holds its string.
    public var code: FindingCode
    /// How bad it is: the checker's default, which the audit policy may rewrite by code.
    public var severity: Severity
    /// One line of text.
    public var message: String
    /// What is known about where and why; nil when nothing is.
    public var evidence: Evidence?

    /// Makes a finding; line breaks in the message and in the evidence's texts become single spaces (libraries
    /// end their messages with newlines), and empty evidence becomes nil.
    public init(code: FindingCode, severity: Severity, message: String, evidence: Evidence? = nil) {
        self.code = code
        self.severity = severity
        self.message = Self.oneLine(message)
        self.evidence =
            (evidence?.isEmpty ?? true)
            ? nil
            : evidence.map {
                var e = $0
                e.expected = e.expected.map(Self.oneLine)
                e.actual = e.actual.map(Self.oneLine)
                return e
            }
    }

    /// The byte offset of the box or field at fault (`evidence.offset`); setting it keeps empty evidence nil.
    public var offset: Int? {
        get { evidence?.offset }
        set {
            var e = evidence ?? Evidence()
            e.offset = newValue
            evidence = e.isEmpty ? nil : e
        }
    }

    /// `error container.pitm.missing @16: no pitm: the file has no primary item`.
    public var description: String {
        let at = offset.map { " @\($0)" } ?? ""
        return "\(severity.rawValue) \(code)\(at): \(message)"
    }

    /// Collapses line breaks and runs of white space into single spaces (libraries end messages with newlines).
    public static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: { $0.isNewline || $0 == "\t" }).map(trimmed).filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `s` without leading and trailing white space.
    static func trimmed(_ s: Substring) -> Substring {
        var t = s
        while let c = t.first, c.isWhitespace { t.removeFirst() }
        while let c = t.last, c.isWhitespace { t.removeLast() }
        return t
    }

    /// The order findings are listed in: most severe first, then code, field, offset, message.
    public static func reportOrder(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        if a.code != b.code { return a.code < b.code }
        let af = a.evidence?.field ?? ""
        let bf = b.evidence?.field ?? ""
        if af != bf { return af < bf }
        let ao = a.evidence?.offset ?? 0
        let bo = b.evidence?.offset ?? 0
        if ao != bo { return ao < bo }
        return a.message < b.message
    }
}

/// The severity of a finding, most severe first.
public enum Severity: String, Codable, CaseIterable, Hashable, Sendable, Comparable {
    /// The file breaks a *shall* of its specification, cannot be read fully, or loses something a reader needs.
    case error
    /// Valid or tolerated, but some readers fail on it, or something worth a look was lost.
    case warning
    /// A loss the policy lists as known and accepted.
    case knownLoss = "known-loss"
    /// Worth knowing; nothing is lost.
    case info

    /// 3 for error … 0 for info.
    public var rank: Int {
        switch self {
        case .error: 3
        case .warning: 2
        case .knownLoss: 1
        case .info: 0
        }
    }

    /// Less severe first: `info < knownLoss < warning < error`, so `max()` is the worst.
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }

    /// True when a finding of this severity fails a gate set at `gate`.
    public func fails(gate: Severity) -> Bool { rank >= gate.rank }
}

/// Where a finding comes from and what was expected.
public struct Evidence: Codable, Hashable, Sendable {
    /// A byte offset in the file (box start, extent, field), when the finding is about one place.
    public var offset: Int?
    /// What the source had, or what the specification requires.
    public var expected: String?
    /// What the file has.
    public var actual: String?
    /// A metadata field, `Group:Tag` (e.g. `ExifIFD:DateTimeOriginal`).
    public var field: String?
    /// A HEIF item ID.
    public var item: UInt32?

    public init(
        offset: Int? = nil, expected: String? = nil, actual: String? = nil, field: String? = nil, item: UInt32? = nil
    ) {
        self.offset = offset
        self.expected = expected
        self.actual = actual
        self.field = field
        self.item = item
    }

    public var isEmpty: Bool { offset == nil && expected == nil && actual == nil && field == nil && item == nil }
}
