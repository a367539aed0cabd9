import Findings

extension Diff {
    /// The MakerNote, as one pseudo-field. Compared by content where exiv2 parses it (tag by tag: a rewrite that only
    /// moved its internal offsets changes nothing); otherwise as present or absent, with a size note.
    static func makerNote(_ s: MakerNoteInfo?, _ o: MakerNoteInfo?, policy: MetadataPolicy)
        -> (entry: DiffEntry, findings: [Finding])?
    {
        let key = makerNoteKey
        var entries: [DiffEntry] = []
        var findings: [Finding] = []
        func record(_ e: DiffEntry, _ severity: Severity? = nil, _ message: String = "", _ expected: String? = nil) {
            FieldJudge.record(
                e, severity: severity, message: message, expected: expected, actual: e.output?.description,
                policy: policy, into: &entries, &findings)
        }
        switch (s, o) {
        case (nil, nil):
            return nil
        case (nil, let o?):
            record(
                DiffEntry(
                    key: key, diffClass: .added, criticality: .informational, source: nil, output: .text(o.description))
            )
        case (let s?, nil):
            let known = policy.isKnownLoss(key)
            record(
                DiffEntry(
                    key: key, diffClass: known ? .knownLoss : .lost, criticality: .important,
                    source: .text(s.description), output: nil),
                known ? .knownLoss : Criticality.important.lossSeverity,
                "MakerNote (\(s)) dropped" + (known ? " (known loss)" : ""), s.description)
        case (let s?, let o?):
            let (changes, note) = makerNoteChanges(s, o)
            record(
                DiffEntry(
                    key: key, diffClass: changes == nil ? .kept : .changed, criticality: .important,
                    source: .text(s.description), output: .text(o.description), note: note),
                Criticality.important.lossSeverity, "MakerNote changed: \(changes ?? "")", s.description)
            if let f = previewLoss(s, o) { findings.append(f) }
        }
        return (entries[0], findings)
    }

    /// The MakerNote's embedded-preview tags the output lacks (``MakerNoteInfo/previewTags``), as one
    /// `metadata.known-loss` at info, naming them: the output has its own thumbnail, so dropping the camera's preview
    /// is a structural change that does not veto removing the original (docs/policy.md, "MakerNote").
    static func previewLoss(_ s: MakerNoteInfo, _ o: MakerNoteInfo) -> Finding? {
        let missing = s.previewTags.subtracting(o.previewTags).sorted()
        guard !missing.isEmpty else { return nil }
        let shown = missing.prefix(8).joined(separator: ", ") + (missing.count > 8 ? ", …" : "")
        return Finding(
            code: .metadataKnownLoss, severity: .info, key: makerNoteKey,
            message: "MakerNote preview not carried (the output has its own thumbnail): \(missing.count) preview "
                + "tags (\(shown))",
            expected: missing.joined(separator: ", "), actual: nil)
    }

    /// What changed inside a MakerNote present on both sides (nil when nothing did), and the note for the entry.
    static func makerNoteChanges(_ s: MakerNoteInfo, _ o: MakerNoteInfo) -> (String?, String?) {
        let size =
            s.length != nil && o.length != nil && s.length != o.length
            ? "\(s.length!) → \(o.length!) bytes" : nil
        if let a = s.vendor, let b = o.vendor, a != b { return ("vendor \(a) → \(b)", size) }
        guard !s.tags.isEmpty else {
            // exiv2 does not parse this vendor's MakerNote (Apple, Samsung, ...): present on both sides is all that
            // can be said; its size changes whenever a writer rewrites the offsets inside it.
            return (nil, "not parsed by exiv2; present in both" + (size.map { ", \($0)" } ?? ""))
        }
        guard !o.tags.isEmpty else {
            return ("\(s.tags.count) tags decoded from the source's, none from the output's", size)
        }
        let differing = s.tags.keys.sorted().filter { k in
            guard let b = o.tags[k] else { return true }
            return s.tags[k]!.compared(with: b) > .reencoded
        }
        guard differing.isEmpty else {
            let shown = differing.prefix(8).joined(separator: ", ") + (differing.count > 8 ? ", …" : "")
            return ("\(differing.count) of \(s.tags.count) tags differ or are missing (\(shown))", size)
        }
        return (nil, "\(s.tags.count) tags equal" + (size.map { ", \($0) (offsets rewritten)" } ?? ""))
    }
}
