import Findings

/// How one field fared between a source and an output: the class the report's rows carry too (``FieldClass``, in
/// Findings, the leaf both modules import).
public typealias DiffClass = FieldClass

extension FieldClass {
    /// The finding a field of this class raises: the one mapping from a field's class to its code, which the
    /// diff's judge (``FieldJudge``) uses to make each finding, so the table and the findings cannot disagree. Nil
    /// for a class that raises none (kept, an expected change). A field that survived a known loss is kept,
    /// re-encoded or rounded and raises `metadata.known-loss-not-happened` besides (``survivesKnownLoss``).
    public var findingCode: FindingCode? {
        switch self {
        case .kept, .expectedChange: nil
        case .reencoded: .metadataReencoded
        case .rounded: .metadataRounded
        case .changed: .metadataChanged
        case .lost: .metadataLost
        case .added: .metadataAdded
        case .knownLoss: .metadataKnownLoss
        }
    }

    /// True for the classes of a field that is on both sides with its value (kept, re-encoded, rounded): when the
    /// policy lists the field as a known loss, the loss did not happen.
    public var survivesKnownLoss: Bool { self == .kept || self == .reencoded || self == .rounded }

    /// The classes a finding with this code may be about (the inverse of ``findingCode``); nil for a code that is
    /// not about one field's class (the orientation codes, judged by reader model, and the codes of other layers).
    public static func classes(for code: FindingCode) -> Set<FieldClass>? {
        let classes =
            code == .metadataKnownLossNotHappened
            ? Set(allCases.filter(\.survivesKnownLoss)) : Set(allCases.filter { $0.findingCode == code })
        return classes.isEmpty ? nil : classes
    }
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
    /// A metadata-diff finding about a field (the evidence's field) with both values, at the catalogue's severity
    /// for `code` unless `severity` is given.
    public init(
        code: FindingCode, severity: Severity? = nil, key: FieldKey?, message: String, expected: String? = nil,
        actual: String? = nil
    ) {
        self.init(
            code: code, severity: severity ?? code.severity, message: message,
            evidence: Evidence(expected: expected, actual: actual, field: key?.description))
    }

    /// A metadata-diff finding whose severity is the class's default (``Criticality/severity``).
    public init(code: FindingCode, criticality: Criticality, key: FieldKey?, message: String) {
        self.init(code: code, severity: criticality.severity, key: key, message: message)
    }

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

    /// The diff of the fields `keep` accepts (an audit policy's compared fields): their entries and findings; the
    /// orientation and MakerNote summaries stay.
    public func restricted(to keep: (FieldKey) -> Bool) -> MetadataDiff {
        MetadataDiff(
            entries: entries.filter { keep($0.key) },
            findings: findings.filter { f in f.key.map(keep) ?? true },
            sourceOrientation: sourceOrientation, outputOrientation: outputOrientation, orientation: orientation,
            sourceMakerNote: sourceMakerNote, outputMakerNote: outputMakerNote)
    }

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
        let t = v.description(limit: 160)
        return t.count > 160 ? String(t.prefix(157)) + "…" : t
    }
}
