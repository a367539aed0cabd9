import Findings

/// How one field fared between a source and an output.
public enum DiffClass: String, Sendable, Hashable, Codable, CaseIterable {
    case kept
    case changed
    case lost
    case added
    /// Changed or dropped on purpose (Orientation reset because the pixels were made upright; pixel dimensions;
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
    /// Why an entry got its class when that is not obvious ("pixels made upright", "structural").
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

/// Every finding code the metadata diff raises. The raw values are stable: the audit and its policy key on them.
public enum MetadataFindingCode: String, Sendable, Hashable, Codable, CaseIterable {
    case lost = "metadata.lost"
    case changed = "metadata.changed"
    case added = "metadata.added"
    case knownLoss = "metadata.known-loss"
    case knownLossNotHappened = "metadata.known-loss-not-happened"
    case doubleRotation = "orientation.double-rotation"
    case orientationChanged = "orientation.changed"
}

extension Criticality {
    /// The default severity of a diff finding about a field of this class: critical → error, important →
    /// warning, informational → info. The audit's policy decides the severity it reports, by code.
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
    /// A metadata-diff finding: the class of the field(s) involved is its default severity (orientation findings
    /// are critical), and the field, when it is about one, its evidence.
    public init(code: MetadataFindingCode, criticality: Criticality, key: FieldKey?, message: String) {
        self.init(
            code: code.rawValue, severity: criticality.severity, message: message,
            evidence: Evidence(field: key?.description))
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
    public let findings: [Finding]
    public let sourceOrientation: OrientationInfo
    public let outputOrientation: OrientationInfo
    public let sourceMakerNote: MakerNoteInfo?
    public let outputMakerNote: MakerNoteInfo?

    /// Entries of one class.
    public func entries(_ c: DiffClass) -> [DiffEntry] { entries.filter { $0.diffClass == c } }

    /// Count per (class, criticality).
    public func count(_ c: DiffClass, _ k: Criticality? = nil) -> Int {
        entries.filter { $0.diffClass == c && (k == nil || $0.criticality == k) }.count
    }

    /// True when a critical or important field was lost or changed, or an orientation finding was raised.
    public var hasSeriousLoss: Bool {
        findings.contains {
            switch $0.metadataCode {
            case .lost, .changed: return $0.criticality != .informational
            case .doubleRotation, .orientationChanged: return true
            default: return false
            }
        }
    }
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
    ///   - policy: classes, tolerances, known losses and expected changes.
    /// - Returns: the entries sorted by (group, name) and the findings.
    // length: split with issue 18's rewrite (Orientation and Metadata checks, Diff), under way on another branch
    public static func compare(source: MetadataSet, output: MetadataSet, policy: MetadataPolicy = .standard)
        -> MetadataDiff
    {
        var entries: [DiffEntry] = []
        var findings: [Finding] = []
        let outByKey = Dictionary(output.fields.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let srcKeys = Set(source.fields.map(\.key))

        for s in source.fields {
            let crit = policy.criticality(of: s)
            guard let o = outByKey[s.key] else {
                if s.key == orientationKey,
                    output.orientation.effective == source.orientation.effective
                        || (output.orientation.effective == 1 && policy.outputPixelsUpright)
                {
                    entries.append(
                        DiffEntry(
                            key: s.key, diffClass: .expectedChange, criticality: crit, source: s.value, output: nil,
                            note: output.orientation.hasTransform
                                ? "orientation carried by irot/imir" : "pixels made upright"))
                } else if s.structural || policy.expectedChanges.contains(s.key) {
                    entries.append(
                        DiffEntry(
                            key: s.key, diffClass: .expectedChange, criticality: crit, source: s.value, output: nil,
                            note: "structural"))
                } else if policy.isKnownLoss(s.key) {
                    entries.append(
                        DiffEntry(key: s.key, diffClass: .knownLoss, criticality: crit, source: s.value, output: nil))
                    findings.append(
                        Finding(
                            code: .knownLoss, criticality: crit, key: s.key, message: "\(s.key) dropped (known loss)"))
                } else {
                    entries.append(
                        DiffEntry(key: s.key, diffClass: .lost, criticality: crit, source: s.value, output: nil))
                    findings.append(
                        Finding(
                            code: .lost, criticality: crit, key: s.key, message: "\(s.key) lost (was \(s.value))"))
                }
                continue
            }
            if s.key == orientationKey {
                entries.append(orientationEntry(source: source, output: output, s: s, o: o, crit: crit, policy: policy))
                continue
            }
            if equal(s, o, policy: policy) {
                entries.append(
                    DiffEntry(key: s.key, diffClass: .kept, criticality: crit, source: s.value, output: o.value))
            } else if s.structural || policy.expectedChanges.contains(s.key) {
                entries.append(
                    DiffEntry(
                        key: s.key, diffClass: .expectedChange, criticality: crit, source: s.value, output: o.value,
                        note: "structural"))
            } else {
                entries.append(
                    DiffEntry(key: s.key, diffClass: .changed, criticality: crit, source: s.value, output: o.value))
                findings.append(
                    Finding(
                        code: .changed, criticality: crit, key: s.key,
                        message: "\(s.key) changed: \(s.value) → \(o.value)"))
            }
        }
        for o in output.fields where !srcKeys.contains(o.key) {
            let crit = policy.criticality(of: o)
            if o.key == orientationKey {
                entries.append(
                    orientationEntry(source: source, output: output, s: nil, o: o, crit: crit, policy: policy))
                continue
            }
            if o.structural || policy.expectedChanges.contains(o.key) {
                entries.append(
                    DiffEntry(
                        key: o.key, diffClass: .expectedChange, criticality: crit, source: nil, output: o.value,
                        note: "structural"))
                continue
            }
            entries.append(DiffEntry(key: o.key, diffClass: .added, criticality: crit, source: nil, output: o.value))
            if !policy.ignoredAddedGroups.contains(o.key.group) {
                findings.append(
                    Finding(
                        code: .added, criticality: .informational, key: o.key, message: "\(o.key) added: \(o.value)"))
            }
        }

        // MakerNote, as one pseudo-field.
        switch (source.makerNote, output.makerNote) {
        case (let s?, nil):
            let known = policy.isKnownLoss(makerNoteKey)
            entries.append(
                DiffEntry(
                    key: makerNoteKey, diffClass: known ? .knownLoss : .lost, criticality: .important,
                    source: .text(s.description), output: nil))
            findings.append(
                Finding(
                    code: known ? .knownLoss : .lost, criticality: .important, key: makerNoteKey,
                    message: "MakerNote (\(s)) dropped" + (known ? " (known loss)" : "")))
        case (let s?, let o?):
            // Re-encoding may add bookkeeping tags (exiv2 writes a few Canon ones back); fewer tags is a loss.
            let same =
                s.vendor == o.vendor && o.decodedTagCount >= s.decodedTagCount
                && (s.blob == nil || o.blob == nil || s.blob!.length == o.blob!.length)
            entries.append(
                DiffEntry(
                    key: makerNoteKey, diffClass: same ? .kept : .changed, criticality: .important,
                    source: .text(s.description), output: .text(o.description)))
            if !same {
                findings.append(
                    Finding(
                        code: .changed, criticality: .important, key: makerNoteKey,
                        message: "MakerNote changed: \(s) → \(o)"))
            }
            if policy.isKnownLoss(makerNoteKey) {
                findings.append(
                    Finding(
                        code: .knownLossNotHappened, criticality: .informational, key: makerNoteKey,
                        message: "MakerNote survived although the policy lists it as a known loss"))
            }
        case (nil, let o?):
            entries.append(
                DiffEntry(
                    key: makerNoteKey, diffClass: .added, criticality: .informational, source: nil,
                    output: .text(o.description)))
        case (nil, nil):
            break
        }
        for s in source.fields where policy.isKnownLoss(s.key) && outByKey[s.key] != nil && !s.structural {
            findings.append(
                Finding(
                    code: .knownLossNotHappened, criticality: .informational, key: s.key,
                    message: "\(s.key) survived although the policy lists it as a known loss"))
        }

        // Orientation findings.
        let so = source.orientation
        let oo = output.orientation
        if oo.doubleRotationHazard {
            findings.append(
                Finding(
                    code: .doubleRotation, criticality: .critical, key: orientationKey,
                    message:
                        "output has an irot/imir transform (orientation \(oo.heifTransform ?? 1)) and Exif Orientation \(oo.exif ?? 1): readers that apply both rotate twice"
                ))
        }
        let srcEff = so.effective
        let outEff = oo.effective
        if srcEff != outEff && !(outEff == 1 && policy.outputPixelsUpright) {
            findings.append(
                Finding(
                    code: .orientationChanged, criticality: .critical, key: orientationKey,
                    message: "effective orientation changed: source \(srcEff), output \(outEff)"))
        }

        entries.sort { $0.key < $1.key }
        findings.sort {
            ($0.criticality, $0.code, $0.evidence?.field ?? "") < ($1.criticality, $1.code, $1.evidence?.field ?? "")
        }
        return MetadataDiff(
            entries: entries, findings: findings, sourceOrientation: so, outputOrientation: oo,
            sourceMakerNote: source.makerNote, outputMakerNote: output.makerNote)
    }

    /// Orientation: Exif Orientation reset to 1 is an expected change when the output's pixels were made upright
    /// (or the output expresses the same orientation with irot/imir).
    static func orientationEntry(
        source: MetadataSet, output: MetadataSet, s: Field?, o: Field, crit: Criticality, policy: MetadataPolicy
    ) -> DiffEntry {
        if let s, equal(s, o, policy: policy) {
            return DiffEntry(key: o.key, diffClass: .kept, criticality: crit, source: s.value, output: o.value)
        }
        let outExif = output.orientation.exif ?? 1
        let srcEff = source.orientation.effective
        if outExif == 1 && (output.orientation.effective == srcEff || policy.outputPixelsUpright) {
            let note =
                output.orientation.hasTransform && output.orientation.effective == srcEff
                ? "orientation carried by irot/imir" : "pixels made upright"
            return DiffEntry(
                key: o.key, diffClass: .expectedChange, criticality: crit, source: s?.value, output: o.value, note: note
            )
        }
        return DiffEntry(
            key: o.key, diffClass: s == nil ? .added : .changed, criticality: crit, source: s?.value, output: o.value)
    }

    /// Field equality after normalisation, with the GPS tolerance for coordinates.
    static func equal(_ a: Field, _ b: Field, policy: MetadataPolicy) -> Bool {
        let isCoordinate =
            a.key.group == "GPS"
            && ["GPSLatitude", "GPSLongitude", "GPSDestLatitude", "GPSDestLongitude"].contains(a.key.name)
            || a.key.group == "XMP-exif" && ["GPSLatitude", "GPSLongitude"].contains(a.key.name)
        if isCoordinate, let x = MetadataSet.degrees(a.value), let y = MetadataSet.degrees(b.value) {
            return abs(x - y) <= policy.gpsToleranceDegrees
        }
        return a.value.matches(b.value, relativeTolerance: policy.relativeTolerance)
    }
}
