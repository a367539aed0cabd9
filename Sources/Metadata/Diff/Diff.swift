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

/// A finding for the audit (codes are stable; the audit engineer consumes them).
public struct MetadataFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        case lost = "metadata.lost"
        case changed = "metadata.changed"
        case added = "metadata.added"
        case knownLoss = "metadata.known-loss"
        case knownLossNotHappened = "metadata.known-loss-not-happened"
        case doubleRotation = "orientation.double-rotation"
        case orientationChanged = "orientation.changed"
    }
    public let code: Code
    /// The class of the field(s) involved; orientation findings are critical.
    public let criticality: Criticality
    /// The field, when the finding is about one.
    public let key: FieldKey?
    public let message: String

    public init(code: Code, criticality: Criticality, key: FieldKey?, message: String) {
        self.code = code
        self.criticality = criticality
        self.key = key
        self.message = message
    }

    public var description: String { "\(code.rawValue) [\(criticality.rawValue)] \(message)" }
}

/// The result of comparing a source's metadata with an output's.
public struct MetadataDiff: Sendable, Codable {
    /// Every field of either side, sorted by (group, name).
    public let entries: [DiffEntry]
    public let findings: [MetadataFinding]
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
            switch $0.code {
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
    public static func compare(source: MetadataSet, output: MetadataSet, policy: MetadataPolicy = .standard)
        -> MetadataDiff
    {
        var entries: [DiffEntry] = []
        var findings: [MetadataFinding] = []
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
                        MetadataFinding(
                            code: .knownLoss, criticality: crit, key: s.key, message: "\(s.key) dropped (known loss)"))
                } else {
                    entries.append(
                        DiffEntry(key: s.key, diffClass: .lost, criticality: crit, source: s.value, output: nil))
                    findings.append(
                        MetadataFinding(
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
                    MetadataFinding(
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
                    MetadataFinding(
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
                MetadataFinding(
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
                    MetadataFinding(
                        code: .changed, criticality: .important, key: makerNoteKey,
                        message: "MakerNote changed: \(s) → \(o)"))
            }
            if policy.isKnownLoss(makerNoteKey) {
                findings.append(
                    MetadataFinding(
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
                MetadataFinding(
                    code: .knownLossNotHappened, criticality: .informational, key: s.key,
                    message: "\(s.key) survived although the policy lists it as a known loss"))
        }

        // Orientation findings.
        let so = source.orientation
        let oo = output.orientation
        if oo.doubleRotationHazard {
            findings.append(
                MetadataFinding(
                    code: .doubleRotation, criticality: .critical, key: orientationKey,
                    message:
                        "output has an irot/imir transform (orientation \(oo.heifTransform ?? 1)) and Exif Orientation \(oo.exif ?? 1): readers that apply both rotate twice"
                ))
        }
        let srcEff = so.effective
        let outEff = oo.effective
        if srcEff != outEff && !(outEff == 1 && policy.outputPixelsUpright) {
            findings.append(
                MetadataFinding(
                    code: .orientationChanged, criticality: .critical, key: orientationKey,
                    message: "effective orientation changed: source \(srcEff), output \(outEff)"))
        }

        entries.sort { $0.key < $1.key }
        findings.sort {
            ($0.criticality, $0.code.rawValue, $0.key?.description ?? "") < (
                $1.criticality, $1.code.rawValue, $1.key?.description ?? ""
            )
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
