import Findings
import Metadata

/// What the policy parser checks against the catalogue (`FindingCode`) and the tag tables: a policy refuses what it
/// cannot apply (docs/policy.md "Validation").
///
/// - A `severity` line naming a code the catalogue does not list, or a glob matching none of its codes, is an error
///   (the CLI's exit 2), with the nearest code as a suggestion.
/// - An old spelling of a renamed code (``FindingCode/aliases``) applies to the current code, with a note.
/// - A field pattern whose group no tag table lists can never match: a warning, not an error (exiv2 names vendor
///   groups the tables do not list).
extension Policy {
    /// The code patterns a `severity` line's pattern stands for, or the message of the line's error.
    ///
    /// An exact current code stands for itself; an old spelling for its current code; a glob matching current codes
    /// for itself; a glob matching only old spellings for the current codes of those it matches.
    /// - Returns: the patterns to store and a note for stderr (an old spelling was used), or the error's message.
    static func checkedCodePattern(_ pattern: String) -> Result<(patterns: [String], note: String?), CodeError> {
        let codes = FindingCode.allCases.map(\.rawValue)
        if !pattern.contains("*") {
            if codes.contains(pattern) { return .success(([pattern], nil)) }
            if let c = FindingCode.aliases[pattern] {
                return .success(([c.rawValue], Self.oldNameNote(pattern, c.rawValue)))
            }
            return .failure(CodeError(message: "unknown code '\(pattern)'" + Self.suggestion(for: pattern)))
        }
        if codes.contains(where: { glob(pattern, $0) }) { return .success(([pattern], nil)) }
        let renamed = FindingCode.aliases.filter { glob(pattern, $0.key) }.map(\.value.rawValue)
        if !renamed.isEmpty {
            let current = Array(Set(renamed)).sorted()
            return .success((current, Self.oldNameNote(pattern, current.joined(separator: ", "))))
        }
        return .failure(CodeError(message: "'\(pattern)' matches no finding code (readback codes lists them)"))
    }

    /// The message of a code pattern the catalogue refuses.
    struct CodeError: Error {
        let message: String
    }

    static func oldNameNote(_ old: String, _ current: String) -> String {
        "'\(old)' is an old name of '\(current)' (old names are accepted for one report-schema version)"
    }

    /// ` (did you mean 'CODE'?)` for the catalogue's code nearest to `s` by edit distance, when one is near enough
    /// (at most a third of the longer string's length); empty otherwise.
    static func suggestion(for s: String) -> String {
        let candidates = FindingCode.allCases.map(\.rawValue) + FindingCode.aliases.keys.sorted()
        var best: (code: String, distance: Int)? = nil
        for c in candidates {
            let d = editDistance(s, c)
            if best == nil || d < best!.distance { best = (c, d) }
        }
        guard let best, best.distance <= max(s.count, best.code.count) / 3 else { return "" }
        return " (did you mean '\(FindingCode.current(best.code))'?)"
    }

    /// The Levenshtein distance between two strings (insertions, deletions and substitutions of characters).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty { return y.count }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: y.count, by: 1) {
                let substitution = previous + (x[i - 1] == y[j - 1] ? 0 : 1)
                previous = row[j]
                row[j] = min(substitution, row[j] + 1, row[j - 1] + 1)
            }
        }
        return row[y.count]
    }

    /// The groups a field's key can have: those of the tag tables (Exif, XMP), the MakerNote, IPTC and Composite
    /// groups, and the raw-file IFDs the reader names (`SubIFD`, `IFD2`, …). Any `XMP-prefix` group counts too: XMP
    /// namespaces are open, and the reader names a group after the prefix.
    static let knownGroups: Set<String> = {
        var g = Set((ExifTables.all + XMPTables.all).map { $0.group.lowercased() })
        for extra in ["MakerNotes", "IPTC", "Composite", "SubIFD", "SubIFD1", "SubIFD2", "IFD2", "IFD3"] {
            g.insert(extra.lowercased())
        }
        return g
    }()

    /// A warning for a field pattern that can never match, nil when it can: `Group:Tag` whose group (a glob too) is
    /// neither a known group nor an `XMP-` group.
    static func fieldPatternWarning(_ pattern: String) -> String? {
        guard let colon = pattern.firstIndex(of: ":") else { return nil }
        let group = pattern[..<colon].lowercased()
        if group.hasPrefix("xmp-") || group.hasPrefix("*") { return nil }
        if knownGroups.contains(where: { glob(group, $0) }) { return nil }
        if group.hasPrefix("ifd") || group.hasPrefix("subifd") { return nil }
        return "field pattern '\(pattern)' can never match: no tag table has the group '\(pattern[..<colon])'"
    }

    /// Applies a `severity` line's checks (the parser's hook): the patterns to store, a note added to ``warnings``.
    /// - Throws: the line's ``ParseError``.
    mutating func codePatterns(_ pattern: String, line: Int, file: String) throws(ParseError) -> [String] {
        switch Self.checkedCodePattern(pattern) {
        case .success(let r):
            if let note = r.note { warnings.append("\(file):\(line): \(note)") }
            return r.patterns
        case .failure(let e):
            throw ParseError(name: file, line: line, message: e.message)
        }
    }

    /// A `verdict` line's rule with its codes checked as a `severity` line's are: a typo is refused, an old name
    /// stands for its current code.
    mutating func checkedVerdict(_ rule: VerdictRule, line: Int, file: String) throws(ParseError) -> VerdictRule {
        var checked = rule
        checked.patterns = []
        for pattern in rule.patterns { checked.patterns += try codePatterns(pattern, line: line, file: file) }
        return checked
    }

    /// Applies a field line's check (the parser's hook): a warning per pattern that can never match.
    mutating func checkFieldPatterns(_ patterns: [String], line: Int, file: String) {
        for p in patterns {
            if let w = Self.fieldPatternWarning(p) { warnings.append("\(file):\(line): \(w)") }
        }
    }
}
