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
                entries.append(orientationEntry(s.value, outByKey[s.key]?.value))
            } else if let o = outByKey[s.key] {
                judgeKept(s, o)
            } else {
                judgeMissing(s)
            }
        }
        let srcKeys = Set(source.fields.map(\.key))
        for o in output.fields where !srcKeys.contains(o.key) { judgeAdded(o) }
        for s in source.fields where policy.isKnownLoss(s.key) && outByKey[s.key] != nil && !s.structural {
            findings.append(
                Finding(
                    code: .knownLossNotHappened, severity: .info, key: s.key,
                    message: "\(s.key) survived although the policy lists it as a known loss"))
        }
    }

    /// A field on both sides: compared as a value under its tag's rule.
    private mutating func judgeKept(_ s: Field, _ o: Field) {
        let crit = policy.criticality(of: s)
        let verdict = s.value.compared(
            with: o.value, rule: TagTables.rule(for: s.key), conversion: TagTables.conversion(for: s.key))
        func entry(_ c: DiffClass, _ note: String? = nil) {
            entries.append(
                DiffEntry(key: s.key, diffClass: c, criticality: crit, source: s.value, output: o.value, note: note))
        }
        let expected = s.structural || policy.expectedChanges.contains(s.key)
        let (was, now) = (Diff.text(s.value) ?? "", Diff.text(o.value) ?? "")
        switch verdict {
        case .identical:
            entry(.kept)
        case .reencoded:
            entry(.reencoded)
            if !expected {
                findings.append(
                    Finding(
                        code: .reencoded, severity: .info, key: s.key,
                        message: "\(s.key) re-encoded, same value: \(was) → \(now)", expected: was, actual: now))
            }
        case .rounded where expected, .changed where expected:
            entry(.expectedChange, "structural")
        case .rounded:
            let shown = s.value.printed(rule: TagTables.rule(for: s.key), conversion: TagTables.conversion(for: s.key))
            let note = shown.map { "exiftool prints both as \($0)" } ?? "within the source's printed precision"
            entry(.rounded, note)
            findings.append(
                Finding(
                    code: .rounded, severity: .warning, key: s.key,
                    message: "\(s.key) rounded within the source's printed precision: \(was) → \(now) (\(note))",
                    expected: was, actual: now))
        case .changed:
            entry(.changed)
            findings.append(
                Finding(
                    code: .changed, severity: crit.lossSeverity, key: s.key,
                    message: "\(s.key) changed: \(was) → \(now)",
                    expected: was, actual: now))
        }
    }

    /// A source field the output does not have under the same key: expected, moved, a known loss, or lost.
    private mutating func judgeMissing(_ s: Field) {
        let crit = policy.criticality(of: s)
        if s.structural || policy.expectedChanges.contains(s.key) {
            entries.append(
                DiffEntry(
                    key: s.key, diffClass: .expectedChange, criticality: crit, source: s.value, output: nil,
                    note: "structural"))
        } else if let moved = movedTo(s) {
            let note = "moved to \(moved.key)"
            entries.append(
                DiffEntry(
                    key: s.key, diffClass: .reencoded, criticality: crit, source: s.value, output: moved.value,
                    note: note))
            findings.append(
                Finding(
                    code: .reencoded, severity: .info, key: s.key, message: "\(s.key) \(note) with the same value",
                    expected: Diff.text(s.value), actual: Diff.text(moved.value)))
        } else if policy.isKnownLoss(s.key) {
            entries.append(
                DiffEntry(key: s.key, diffClass: .knownLoss, criticality: crit, source: s.value, output: nil))
            findings.append(
                Finding(
                    code: .knownLoss, severity: .knownLoss, key: s.key,
                    message: "\(s.key) was lost (a known loss under the policy)",
                    expected: Diff.text(s.value)))
        } else {
            entries.append(DiffEntry(key: s.key, diffClass: .lost, criticality: crit, source: s.value, output: nil))
            findings.append(
                Finding(
                    code: .lost, severity: crit.lossSeverity, key: s.key,
                    message: "\(s.key) is in the source but not in the output", expected: Diff.text(s.value)))
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
            entries.append(orientationEntry(nil, o.value))
        } else if o.structural || policy.expectedChanges.contains(o.key) {
            entries.append(
                DiffEntry(
                    key: o.key, diffClass: .expectedChange, criticality: crit, source: nil, output: o.value,
                    note: "structural"))
        } else {
            entries.append(DiffEntry(key: o.key, diffClass: .added, criticality: crit, source: nil, output: o.value))
            if !policy.ignoredAddedGroups.contains(o.key.group) {
                findings.append(
                    Finding(
                        code: .added, severity: .info, key: o.key,
                        message: "\(o.key) added: \(Diff.text(o.value) ?? "")", actual: Diff.text(o.value)))
            }
        }
    }

    /// IFD0:Orientation is judged by the reader models (``OrientationJudgement``), never as a value on its own: the
    /// same orientation may be carried by the pixels, by irot/imir or by the tag.
    private func orientationEntry(_ s: MetadataValue?, _ o: MetadataValue?) -> DiffEntry {
        let crit = Criticality.critical
        if let s, let o, s.compared(with: o) == .identical {
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
