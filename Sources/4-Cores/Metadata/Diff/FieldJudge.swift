import Findings

/// Judges every field of a source against the output (and the output's own extra fields): one entry per field, and
/// a finding for each that is not simply kept.
struct FieldJudge {
    let source: MetadataSet
    let output: MetadataSet
    let policy: MetadataPolicy
    let orientation: OrientationJudgement
    var entries: [DiffEntry] = []
    var findings: [Finding] = []

    private let outByKey: [FieldKey: Field]
    private let outByName: [String: [Field]]

    init(source: MetadataSet, output: MetadataSet, policy: MetadataPolicy, orientation: OrientationJudgement) {
        self.source = source
        self.output = output
        self.policy = policy
        self.orientation = orientation
        outByKey = Dictionary(output.fields.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        outByName = Dictionary(grouping: output.fields, by: { $0.key.name })
    }

    mutating func run() {
        for s in source.fields {
            if s.key == Diff.orientationKey {
                record(orientationEntry(s.value, outByKey[s.key]?.value))
            } else if let o = outByKey[s.key] {
                judgeKept(s, o)
            } else {
                judgeMissing(s)
            }
        }
        let srcKeys = Set(source.fields.map(\.key))
        for o in output.fields where !srcKeys.contains(o.key) { judgeAdded(o) }
    }

    /// The one place a field's class and its finding are decided together: appends the entry and, when `severity`
    /// is given, the finding its class raises (``FieldClass/findingCode``), about the entry's field with both
    /// values; a field the policy lists as a known loss that survived (``FieldClass/survivesKnownLoss``) raises
    /// `metadata.known-loss-not-happened` besides. The MakerNote's pseudo-field goes through it too.
    static func record(
        _ entry: DiffEntry, severity: Severity?, message: String, expected: String? = nil, actual: String? = nil,
        policy: MetadataPolicy, into entries: inout [DiffEntry], _ findings: inout [Finding]
    ) {
        entries.append(entry)
        if let severity, let code = entry.diffClass.findingCode {
            findings.append(
                Finding(
                    code: code, severity: severity, key: entry.key, message: message, expected: expected,
                    actual: actual))
        }
        if entry.diffClass.survivesKnownLoss, entry.source != nil, entry.output != nil, policy.isKnownLoss(entry.key) {
            findings.append(
                Finding(
                    code: .metadataKnownLossNotHappened, key: entry.key,
                    message: "\(entry.key) survived although the policy lists it as a known loss",
                    expected: Diff.text(entry.source), actual: Diff.text(entry.output)))
        }
    }

    /// ``record(_:severity:message:expected:actual:policy:into:_:)`` into this judge's entries and findings.
    private mutating func record(
        _ entry: DiffEntry, severity: Severity? = nil, message: String = "", expected: String? = nil,
        actual: String? = nil
    ) {
        Self.record(
            entry, severity: severity, message: message, expected: expected, actual: actual, policy: policy,
            into: &entries, &findings)
    }

    /// A field on both sides: compared as a value under its tag's rule.
    private mutating func judgeKept(_ s: Field, _ o: Field) {
        let crit = policy.criticality(of: s)
        let verdict = s.value.compared(
            with: o.value, rule: TagTables.rule(for: s.key), conversion: TagTables.conversion(for: s.key))
        func entry(_ c: DiffClass, _ note: String? = nil) -> DiffEntry {
            DiffEntry(key: s.key, diffClass: c, criticality: crit, source: s.value, output: o.value, note: note)
        }
        let expected = s.structural || policy.expectedChanges.contains(s.key)
        let (was, now) = (Diff.text(s.value) ?? "", Diff.text(o.value) ?? "")
        switch verdict {
        case .identical:
            record(entry(.kept))
        case .reencoded:
            record(
                entry(.reencoded), severity: expected ? nil : .info,
                message: "\(s.key) re-encoded, same value: \(was) → \(now)", expected: was, actual: now)
        case .rounded where expected, .changed where expected:
            record(entry(.expectedChange, "structural"))
        case .rounded:
            let shown = s.value.printed(rule: TagTables.rule(for: s.key), conversion: TagTables.conversion(for: s.key))
            let note = shown.map { "exiftool prints both as \($0)" } ?? "within the source's printed precision"
            record(
                entry(.rounded, note), severity: .warning,
                message: "\(s.key) rounded within the source's printed precision: \(was) → \(now) (\(note))",
                expected: was, actual: now)
        case .changed:
            record(
                entry(.changed), severity: crit.lossSeverity, message: "\(s.key) changed: \(was) → \(now)",
                expected: was, actual: now)
        }
    }

    /// A source field the output does not have under the same key: expected, moved, a known loss, or lost.
    private mutating func judgeMissing(_ s: Field) {
        let crit = policy.criticality(of: s)
        func entry(_ c: DiffClass, _ output: MetadataValue? = nil, _ note: String? = nil) -> DiffEntry {
            DiffEntry(key: s.key, diffClass: c, criticality: crit, source: s.value, output: output, note: note)
        }
        if s.structural || policy.expectedChanges.contains(s.key) {
            record(entry(.expectedChange, nil, "structural"))
        } else if let moved = movedTo(s) {
            let note = "moved to \(moved.key)"
            record(
                entry(.reencoded, moved.value, note), severity: .info, message: "\(s.key) \(note) with the same value",
                expected: Diff.text(s.value), actual: Diff.text(moved.value))
        } else if policy.isKnownLoss(s.key) {
            record(
                entry(.knownLoss), severity: .knownLoss, message: "\(s.key) was lost (a known loss under the policy)",
                expected: Diff.text(s.value))
        } else {
            record(
                entry(.lost), severity: crit.lossSeverity, message: "\(s.key) is in the source but not in the output",
                expected: Diff.text(s.value))
        }
    }

    /// Where a writer moved an XMP or IPTC field, keeping its value: the same tag name in another group
    /// (`exiftool -tagsFromFile` writes XMP-exif:SubSecTimeOriginal into ExifIFD, XMP-exif:Lens into XMP-aux), or
    /// the field's equivalent in another family (``FieldEquivalents``: IPTC Keywords → XMP dc:subject). A field
    /// leaving Exif for XMP is not a move: Exif-only readers lose it.
    private func movedTo(_ s: Field) -> Field? {
        guard s.key.group.hasPrefix("XMP") || s.key.group.hasPrefix("IPTC") else { return nil }
        let candidates =
            (outByName[s.key.name] ?? []).filter { $0.key != s.key }
            + FieldEquivalents.equivalents(of: s.key).compactMap { outByKey[$0] }
        return candidates.first {
            s.value.compared(
                with: $0.value, rule: TagTables.rule(for: $0.key), conversion: TagTables.conversion(for: $0.key))
                <= .reencoded
        }
    }

    /// A field only the output has.
    private mutating func judgeAdded(_ o: Field) {
        let crit = policy.criticality(of: o)
        if o.key == Diff.orientationKey {
            record(orientationEntry(nil, o.value))
        } else if o.structural || policy.expectedChanges.contains(o.key) {
            record(
                DiffEntry(
                    key: o.key, diffClass: .expectedChange, criticality: crit, source: nil, output: o.value,
                    note: "structural"))
        } else {
            record(
                DiffEntry(key: o.key, diffClass: .added, criticality: crit, source: nil, output: o.value),
                severity: policy.ignoredAddedGroups.contains(o.key.group) ? nil : .info,
                message: "\(o.key) added: \(Diff.text(o.value) ?? "")", actual: Diff.text(o.value))
        }
    }

    /// IFD0:Orientation is judged by the reader models (``OrientationJudgement``), never as a value on its own: the
    /// same orientation may be carried by the pixels, by irot/imir or by the tag.
    private func orientationEntry(_ s: MetadataValue?, _ o: MetadataValue?) -> DiffEntry {
        let crit = Criticality.critical
        // A tag kept as it was is a kept row unless a reader shows the picture turned: then the row says changed,
        // as the finding (orientation.changed) does.
        if let s, let o, s.compared(with: o) == .identical, orientation.verdict != .changed {
            return DiffEntry(key: Diff.orientationKey, diffClass: .kept, criticality: crit, source: s, output: o)
        }
        let note: String
        switch orientation.verdict {
        case .kept, .unverified:
            note =
                orientation.output.isHEIF && orientation.output.heifView != .identity
                ? "orientation carried by irot/imir" : "pixels made upright"
        case .changed:
            note = "the orientation changed (orientation.changed)"
        }
        let cls: DiffClass = orientation.verdict == .changed ? (o == nil ? .lost : .changed) : .expectedChange
        return DiffEntry(key: Diff.orientationKey, diffClass: cls, criticality: crit, source: s, output: o, note: note)
    }
}
