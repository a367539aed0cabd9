import Findings

/// The agreement of a pair's diff table and its findings: each field's class (what `readback diff`
/// and the report's rows show) and the findings about that field must say the same thing.
///
/// The mapping is written out here, apart from the code that makes the findings, so a test holds the code to it.
public enum DiffAgreement {
    /// For each code about one field's class, the classes that field may have.
    public static let classesByCode: [String: Set<FieldClass>] = [
        "metadata.lost": [.lost],
        "metadata.changed": [.changed],
        "metadata.rounded": [.rounded],
        "metadata.reencoded": [.reencoded],
        "metadata.added": [.added],
        "metadata.known-loss": [.knownLoss],
        "metadata.known-loss-not-happened": [.kept, .reencoded, .rounded],
        // The orientation is judged by reader model; when it changed, IFD0:Orientation's row says so.
        "orientation.changed": [.changed, .lost],
    ]

    /// Codes about the pair's reader models or its reading, not about one field's class.
    public static let pairCodes: Set<String> = [
        "orientation.inconsistent", "orientation.double-rotation", "orientation.unverified", "metadata.unreadable",
    ]

    /// Classes whose field always has a finding with one of these codes (a loss or a change is never silent).
    public static let requiredCodes: [FieldClass: Set<String>] = [
        .lost: ["metadata.lost", "orientation.changed"],
        .changed: ["metadata.changed", "orientation.changed"],
        .rounded: ["metadata.rounded"],
        .knownLoss: ["metadata.known-loss"],
    ]

    /// Classes that raise no finding of their own.
    public static let silentClasses: Set<FieldClass> = [.kept, .expectedChange]

    /// Every disagreement between the rows (field → class) and the findings, one line each; empty when they agree.
    /// - Parameters:
    ///   - rows: each field's class, `Group:Tag` → class.
    ///   - findings: the findings of the same judgement (metadata and orientation codes; others are ignored).
    public static func disagreements(rows: [String: FieldClass], findings: [Finding]) -> [String] {
        var out: [String] = []
        var codesByField: [String: Set<String>] = [:]
        for f in findings where f.code.topic == .metadata || f.code.topic == .orientation {
            let code = f.code.rawValue
            guard !pairCodes.contains(code) else { continue }
            guard let allowed = classesByCode[code] else {
                out.append("\(f.code): a metadata or orientation code the mapping does not know")
                continue
            }
            guard let field = f.evidence?.field else {
                out.append("\(f.code) names no field: \(f.message)")
                continue
            }
            codesByField[field, default: []].insert(code)
            guard let cls = rows[field] else {
                // The orientation may change with no Orientation tag on either side: no row to disagree with.
                if f.code != .orientationChanged { out.append("\(field): \(f.code) but no row") }
                continue
            }
            if !allowed.contains(cls) { out.append("\(field): class \(cls.rawValue) but finding \(f.code)") }
        }
        for (field, cls) in rows.sorted(by: { $0.key < $1.key }) {
            guard let required = requiredCodes[cls] else { continue }
            if (codesByField[field] ?? []).isDisjoint(with: required) {
                out.append("\(field): class \(cls.rawValue) but none of \(required.sorted()) among its findings")
            }
        }
        return out
    }
}
