import Findings

/// How one field fared between a source and an output.
public enum DiffClass: String, Sendable, Hashable, Codable, CaseIterable {
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
}

/// One row of the diff.
public struct DiffEntry: Sendable, Hashable, Codable {
    public let key: FieldKey
    public let diffClass: DiffClass
    public let criticality: Criticality
    public let source: MetadataValue?
    public let output: MetadataValue?
    /// Why an entry got its class when that is not obvious ("pixels made upright", "moved to ExifIFD").
    public let note: String?

    public init(
        key: FieldKey, diffClass: DiffClass, criticality: Criticality, source: MetadataValue?, output: MetadataValue?,
        note: String? = nil
    ) {
        self.key = key
        self.diffClass = diffClass
        self.criticality = criticality
        self.source = source
        self.output = output
        self.note = note
    }
}

extension Criticality {
    /// The severity of a lost or changed field of this class: critical and important → error (someone relies on
    /// it), informational → warning. The audit's policy may rewrite severities by code.
    public var lossSeverity: Severity { self == .informational ? .warning : .error }

    /// The default severity of a diff finding about a field of this class: critical → error, important →
    /// warning, informational → info.
    public var severity: Severity {
        switch self {
        case .critical: .error
        case .important: .warning
        case .informational: .info
        }
    }

    /// The class a diff finding's severity stands for (the inverse of ``severity``).
    public init(severity: Severity) {
        switch severity {
        case .error: self = .critical
        case .warning: self = .important
        case .knownLoss, .info: self = .informational
        }
    }
}

extension Finding {
    /// A metadata-diff finding with its severity, about a field (the evidence's field) with both values.
    public init(
        code: MetadataFindingCode, severity: Severity, key: FieldKey?, message: String, expected: String? = nil,
        actual: String? = nil
    ) {
        self.init(
            code: code.rawValue, severity: severity, message: message,
            evidence: Evidence(expected: expected, actual: actual, field: key?.description))
    }

    /// A metadata-diff finding whose severity is the class's default (``Criticality/severity``).
    public init(code: MetadataFindingCode, criticality: Criticality, key: FieldKey?, message: String) {
        self.init(code: code, severity: criticality.severity, key: key, message: message)
    }

    /// The code as a metadata-diff code, nil for a code of another layer.
    public var metadataCode: MetadataFindingCode? { MetadataFindingCode(rawValue: code) }
    /// For a metadata-diff finding: the class its severity stands for.
    public var criticality: Criticality { Criticality(severity: severity) }
    /// For a metadata-diff finding: the field it is about (`evidence.field`).
    public var key: FieldKey? { evidence?.field.flatMap(FieldKey.init) }
}

/// The result of comparing a source's metadata with an output's.
public struct MetadataDiff: Sendable, Codable {
    /// Every field of either side, sorted by (group, name).
    public let entries: [DiffEntry]
    /// The findings, with the severities the audit starts from (before its policy).
    public let findings: [Finding]
    public let sourceOrientation: OrientationInfo
    public let outputOrientation: OrientationInfo
    /// The orientation verdict by reader model.
    public let orientation: OrientationJudgement
    public let sourceMakerNote: MakerNoteInfo?
    public let outputMakerNote: MakerNoteInfo?

    /// Entries of one class.
    public func entries(_ c: DiffClass) -> [DiffEntry] { entries.filter { $0.diffClass == c } }

    /// Count per (class, criticality).
    public func count(_ c: DiffClass, _ k: Criticality? = nil) -> Int {
        entries.filter { $0.diffClass == c && (k == nil || $0.criticality == k) }.count
    }

    /// True when a finding is an error: a critical or important field lost or changed, or the orientation changed
    /// or made inconsistent.
    public var hasSeriousLoss: Bool { findings.contains { $0.severity == .error } }
}

/// Field-by-field comparison of two MetadataSets (pure; returns data).
public enum Diff {
    /// The MakerNote as a pseudo-field.
    static let makerNoteKey = FieldKey(group: "MakerNotes", name: "MakerNote")
    static let orientationKey = FieldKey(group: "IFD0", name: "Orientation")

    /// Compares a source with an output.
    /// - Parameters:
    ///   - source: the original's metadata.
    ///   - output: the converted file's metadata.
    ///   - policy: classes, known losses and expected changes.
    ///   - evidence: what decoded pixels say about the orientation (``OrientationEvidence/none`` without).
    /// - Returns: the entries sorted by (group, name) and the findings.
    public static func compare(
        source: MetadataSet, output: MetadataSet, policy: MetadataPolicy = .standard,
        evidence: OrientationEvidence = .none
    ) -> MetadataDiff {
        let orientation = OrientationJudgement.judge(
            source: source.orientation, output: output.orientation, evidence: evidence,
            assumedUpright: policy.outputPixelsUpright)
        var judged = FieldJudge(source: source, output: output, policy: policy, orientation: orientation)
        judged.run()
        var findings = judged.findings + orientationFindings(orientation, evidence: evidence)
        if let m = makerNote(source.makerNote, output.makerNote, policy: policy) {
            judged.entries.append(m.entry)
            findings += m.findings
        }
        findings.sort {
            ($0.severity, $0.code, $0.evidence?.field ?? "") > ($1.severity, $1.code, $1.evidence?.field ?? "")
        }
        return MetadataDiff(
            entries: judged.entries.sorted { $0.key < $1.key }, findings: findings,
            sourceOrientation: source.orientation, outputOrientation: output.orientation, orientation: orientation,
            sourceMakerNote: source.makerNote, outputMakerNote: output.makerNote)
    }

    /// A value for a message or evidence (long values cut to 160 characters).
    public static func text(_ v: MetadataValue?) -> String? {
        guard let v else { return nil }
        let t = v.description
        return t.count > 160 ? String(t.prefix(157)) + "…" : t
    }
}
