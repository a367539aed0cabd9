/// Field patterns, the one matcher of the policy's field lists (`compare`, `ignore`, `known-loss`, docs/policy.md):
/// `Group:Tag` with `*` wildcards, or a bare `Tag` pattern matching in any group, compared case-insensitively.
public enum FieldPattern {
    /// True when `pattern` matches `field` (`Group:Tag`).
    public static func matches(_ pattern: String, _ field: String) -> Bool {
        let p = pattern.lowercased()
        let f = field.lowercased()
        if p.contains(":") { return glob(p, f) }
        let tag = f.split(separator: ":", maxSplits: 1).last.map(String.init) ?? f
        return glob(p, tag)
    }

    /// `*` matches any run of characters (including none); everything else literally.
    public static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let t = Array(text.unicodeScalars)
        var pi = 0
        var ti = 0
        var star = -1
        var mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] != "*", p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
