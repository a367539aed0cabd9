import Findings
import Foundation
import Metadata
import RenderCheck
import ReportModel

/// What the auditor treats as a problem: severities per finding code, which metadata fields matter, known losses,
/// and what a finding does to a conversion (`verdict` lines). The one policy model: the metadata diff takes its share
/// as plain values (``metadataPolicy``), and the converter's read-back audit grades its outputs by the `convert`
/// profile's `verdict` lines (``conversionAction(for:)``).
///
/// The policy file format (docs/policy.md) is line based: `#` starts a comment, blank lines are ignored, each line is
/// a directive and its arguments separated by spaces or tabs. A file is applied on top of the built-in policy
/// (``Policy/builtIn``); `reset` first starts from an empty one.
public struct Policy: Hashable, Sendable {
    /// Severity overrides keyed by code or code glob (`container.*`); `nil` means "drop findings with this code".
    public var severities: [(pattern: String, severity: Severity?)] {
        get { severityRules }
        set { severityRules = newValue }
    }
    private var severityRules: [(pattern: String, severity: Severity?)] = []
    /// When non-empty, only fields matching one of these patterns are compared.
    public var compareFields: [String] = []
    /// Fields never reported (patterns).
    public var ignoreFields: [String] = []
    /// Fields whose loss is expected (patterns); reported as `metadata.known-loss`, and their survival as
    /// `metadata.known-loss-not-happened`.
    public var knownLosses: [String] = []
    /// Whether an output must carry a gain map even when the source had none (or there is no source).
    public var requireGainMap = false
    /// Size-ratio bounds (output ÷ source); outside them a `size.ratio` finding is raised.
    public var sizeRatioMin: Double? = nil
    public var sizeRatioMax: Double? = nil
    /// What findings do to a conversion (`verdict` lines), in file order; the last matching rule wins.
    public var verdictRules: [VerdictRule] = []
    /// The limits of the render check (`render` lines): when `render.cast`, `render.exposure`, `render.blank` and
    /// `render.orientation` are raised, and at which severity.
    public var render = RenderThresholds()
    /// Where the policy came from: `built-in` or the file path.
    public var name = "built-in"
    /// Notes for stderr from parsing (an old code name, a field pattern that can never match; PolicyValidation.swift).
    public var warnings: [String] = []

    public init() {}

    public static func == (a: Policy, b: Policy) -> Bool {
        a.severityRules.map(\.pattern) == b.severityRules.map(\.pattern)
            && a.severityRules.map(\.severity) == b.severityRules.map(\.severity)
            && a.compareFields == b.compareFields && a.ignoreFields == b.ignoreFields
            && a.knownLosses == b.knownLosses && a.requireGainMap == b.requireGainMap
            && a.sizeRatioMin == b.sizeRatioMin && a.sizeRatioMax == b.sizeRatioMax && a.name == b.name
            && a.render == b.render && a.verdictRules == b.verdictRules
    }

    public func hash(into h: inout Hasher) {
        h.combine(severityRules.map(\.pattern))
        h.combine(knownLosses)
        h.combine(name)
    }

    /// The built-in policy text, in the policy format (docs/policy.md quotes it).
    public static let builtInText = """
        # Readback built-in audit policy (format 1).
        # Severities of the auditor's own codes. Codes from the container and gain-map checks keep the severity
        # their module gives unless a line here names them.
        severity output.missing error
        # metadata.lost and metadata.changed keep the comparison's severity: error for critical and important
        # fields, warning for informational ones (a line here would give every field the same).
        severity metadata.rounded warning
        severity metadata.reencoded info
        severity metadata.added info
        severity metadata.known-loss known-loss
        # A known loss that did not happen (the field survived) is off: Readback's own outputs keep the MakerNote,
        # so it would be noise on every file. `severity metadata.known-loss-not-happened info` turns it on.
        severity metadata.known-loss-not-happened off
        # orientation.inconsistent keeps its severity: error against a source whose two models agreed, warning
        # without a source.
        severity orientation.changed error
        severity orientation.double-rotation info
        severity orientation.unverified info
        severity gainmap.missing error
        # A tmap without colr leaves the HDR rendition's colour space to guesswork: an error for an auditor.
        severity gainmap.tmap.colr-missing error
        severity signalling.nclx-missing error
        severity signalling.bit-depth-mismatch warning
        severity decode.primary-failed error
        severity decode.gainmap-failed error
        severity container.truncated error
        severity size.ratio warning
        severity input.unreadable error
        # File facts of a pair (docs/policy.md "File facts"): file.xattr.lost and file.xattr.changed keep their
        # severity, error for tags, rating and comment and warning for other attributes.
        severity file.mode.widened error
        severity file.mtime.changed warning
        severity file.owner.changed info
        severity file.xattr.dropped info
        severity sidecar.edits-not-applied warning
        # Fields that legitimately differ between a source and a converted output.
        ignore *:ImageWidth
        ignore *:ImageHeight
        ignore *:ExifImageWidth
        ignore *:ExifImageHeight
        ignore *:Software
        ignore *:ModifyDate
        ignore *:ThumbnailOffset
        ignore *:ThumbnailLength
        ignore *:ThumbnailImage
        # Gain-map XMP (Apple HDRGainMap, apdi) belongs to the gain map; the gain-map check judges it.
        ignore XMP-HDRGainMap:*
        ignore XMP-apdi:*
        # Develop settings (Camera Raw/Lightroom crs, darktable history) are edits to a RAW, not descriptions of the
        # photo: sidecar.edits-not-applied judges them, and a converter that does not render them keeps them out.
        ignore XMP-crs:*
        ignore XMP-darktable:*
        # Other converters drop the maker's private notes when they write HEIC.
        known-loss MakerNote*
        size-ratio 0.01 5
        # Render checks against the source's own rendering (embedded preview, thumbnail item, JPEG): limits measured
        # on real camera previews and deliberate failures (docs/policy.md "Render checks").
        severity render.no-reference info
        render blank 2 5
        render orientation 0.8 0.2
        render cast 5 7
        render exposure-warning -0.75 1.5
        render exposure-error -1.25 2
        """

    /// The built-in policy.
    public static let builtIn: Policy = {
        // The built-in text is a constant checked by the tests; a parse failure here is a programming error.
        (try? Policy.parse(builtInText, name: "built-in", base: Policy())) ?? Policy()
    }()

    /// The policy Readback applies to its own outputs: the built-in `convert` profile (``convert``): no known losses
    /// (MakerNote must survive), and the `verdict` lines that grade a conversion.
    public static var readbackOutputs: Policy { convert }

    /// A line the parser did not accept.
    public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        public let name: String
        public let line: Int
        public let message: String
        public var description: String { "\(name):\(line): \(message)" }
    }

    /// Parses a policy file on top of `base`.
    /// - Parameters:
    ///   - text: the file's text.
    ///   - name: the file name, for errors and the report.
    ///   - base: the policy the file modifies (normally ``builtIn``).
    /// - Returns: the resulting policy.
    /// - Throws: ``ParseError`` naming the line.
    public static func parse(_ text: String, name: String, base: Policy = .builtIn) throws(ParseError) -> Policy {
        var p = base
        p.name = name
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let directive = words.first else { continue }
            let args = Array(words.dropFirst())
            func fail(_ m: String) -> ParseError { ParseError(name: name, line: n + 1, message: m) }
            switch directive {
            case "reset":
                guard args.isEmpty else { throw fail("reset takes no arguments") }
                p = Policy()
                p.name = name
            case "profile":
                guard args.count == 1, let named = profile(args[0]) else {
                    throw fail("usage: profile \(profileNames.joined(separator: "|"))")
                }
                p = named
                p.name = name
            case "verdict":
                switch parseVerdict(args) {
                case .success(let rule): p.verdictRules.append(try p.checkedVerdict(rule, line: n + 1, file: name))
                case .failure(let e): throw fail(e.message)
                }
            case "severity":
                guard args.count == 2 else { throw fail("usage: severity CODE error|warning|known-loss|info|off") }
                guard isCodePattern(args[0]) else { throw fail("'\(args[0])' is not a finding code or code glob") }
                let sev: Severity?
                if args[1] == "off" {
                    sev = nil
                } else if let s = Severity(rawValue: args[1]) {
                    sev = s
                } else {
                    throw fail("unknown severity '\(args[1])' (error, warning, known-loss, info or off)")
                }
                for pattern in try p.codePatterns(args[0], line: n + 1, file: name) {
                    p.severityRules.removeAll { $0.pattern == pattern }
                    p.severityRules.append((pattern, sev))
                }
            case "compare", "ignore", "known-loss", "not-known-loss":
                guard !args.isEmpty else { throw fail("\(directive) needs at least one field pattern") }
                for a in args where a.contains(where: { $0 == "\"" || $0 == "," }) {
                    throw fail("'\(a)' is not a field pattern (Group:Tag, Tag, or with * wildcards)")
                }
                p.checkFieldPatterns(args, line: n + 1, file: name)
                switch directive {
                case "compare": p.compareFields += args
                case "ignore": p.ignoreFields += args
                case "known-loss": p.knownLosses += args
                default: p.knownLosses.removeAll { args.contains($0) }
                }
            case "require-gainmap":
                guard args.count == 1, args[0] == "yes" || args[0] == "no" else {
                    throw fail("usage: require-gainmap yes|no")
                }
                p.requireGainMap = args[0] == "yes"
            case "size-ratio":
                guard args.count == 2 else { throw fail("usage: size-ratio MIN MAX (use - for no bound)") }
                let lo = args[0] == "-" ? nil : Double(args[0])
                let hi = args[1] == "-" ? nil : Double(args[1])
                if (args[0] != "-" && lo == nil) || (args[1] != "-" && hi == nil) {
                    throw fail("size-ratio bounds must be numbers or -")
                }
                if let lo, let hi, lo > hi { throw fail("size-ratio MIN is larger than MAX") }
                p.sizeRatioMin = lo
                p.sizeRatioMax = hi
            case "render":
                guard let e = parseRender(args, into: &p.render) else { break }
                throw fail(e)
            default:
                throw fail(
                    "unknown directive '\(directive)' (severity, compare, ignore, known-loss, not-known-loss, require-gainmap, size-ratio, render, verdict, profile, reset)"
                )
            }
        }
        return p
    }

    /// Applies one `render NAME A B` line; returns the error message, nil when it applied.
    static func parseRender(_ args: [String], into t: inout RenderThresholds) -> String? {
        let usage = "usage: render blank|orientation|cast|exposure-warning|exposure-error A B"
        guard args.count == 3, let a = Double(args[1]), let b = Double(args[2]), a.isFinite, b.isFinite else {
            return usage
        }
        switch args[0] {
        case "blank": (t.blankSpread, t.blankReferenceSpread) = (a, b)
        case "orientation": (t.orientationCorrelation, t.orientationGain) = (a, b)
        case "cast", "exposure-warning", "exposure-error":
            guard a <= b else { return "render \(args[0]): the first limit is larger than the second" }
            if args[0] == "cast" {
                (t.castWarning, t.castError) = (a, b)
            } else if args[0] == "exposure-warning" {
                t.exposureWarning = a...b
            } else {
                t.exposureError = a...b
            }
        default: return usage
        }
        return nil
    }

    /// Reads and parses a policy file on top of `base` (the built-in policy unless a profile is given).
    /// - Throws: ``ParseError`` (line 0 when the file cannot be read).
    public static func load(path: String, base: Policy = .builtIn) throws(ParseError) -> Policy {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(name: path, line: 0, message: "cannot read the policy file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ParseError(name: path, line: 0, message: "the policy file is not UTF-8 text")
        }
        return try parse(text, name: path, base: base)
    }

    static func isCodePattern(_ s: String) -> Bool {
        !s.isEmpty && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-*".contains($0)) }
    }

    /// The severity the policy gives `code`, starting from `defaultSeverity`; nil when the policy turns it off.
    /// The last matching line wins; an exact code beats a glob written earlier, a later glob beats both.
    public func severity(for code: String, default defaultSeverity: Severity) -> Severity? {
        var result: Severity? = defaultSeverity
        for rule in severityRules where Self.glob(rule.pattern, code) { result = rule.severity }
        return result
    }

    /// Applies the policy's severities to findings: rewrites each severity, drops findings turned off.
    public func apply(_ findings: [Finding]) -> [Finding] {
        findings.compactMap { f in
            guard let s = severity(for: f.code.rawValue, default: f.severity) else { return nil }
            var g = f
            g.severity = s
            return g
        }
    }

    /// True when the field (`Group:Tag`) is compared at all.
    public func matters(_ field: String) -> Bool {
        if ignoreFields.contains(where: { Self.fieldMatches($0, field) }) { return false }
        if compareFields.isEmpty { return true }
        return compareFields.contains { Self.fieldMatches($0, field) }
    }

    /// True when the policy lists the field's loss as known.
    public func isKnownLoss(_ field: String) -> Bool {
        knownLosses.contains { Self.fieldMatches($0, field) }
    }

    /// Matches a field pattern: `Group:Tag` with `*` wildcards, or a bare `Tag` pattern matching in any group.
    /// Case-insensitive. The metadata diff's own matcher (``FieldPattern``), so both read patterns alike.
    public static func fieldMatches(_ pattern: String, _ field: String) -> Bool { FieldPattern.matches(pattern, field) }

    /// `*` matches any run of characters (including none); everything else literally.
    public static func glob(_ pattern: String, _ text: String) -> Bool { FieldPattern.glob(pattern, text) }
}
