import Findings
import Metadata

/// What a finding does to a conversion whose output is read back (`readback convert`): the output is unusable, the
/// original is kept, or it is information only.
public enum ConversionAction: String, Sendable, Hashable, CaseIterable {
    /// The output is unusable: the conversion failed.
    case fail
    /// The output is usable but incomplete: it is kept and so is the original (no removal).
    case keep
    /// Information only: the conversion is clean as far as this finding goes.
    case pass
}

/// One `verdict ACTION SEVERITY CODE…` line of a policy (docs/policy.md "Profiles and conversion verdicts").
public struct VerdictRule: Hashable, Sendable {
    public var action: ConversionAction
    /// The severity a finding must have (after the policy's severities); nil for `any`.
    public var severity: Severity?
    /// Code patterns (`*` wildcards), one of which must match.
    public var patterns: [String]

    public init(action: ConversionAction, severity: Severity?, patterns: [String]) {
        (self.action, self.severity, self.patterns) = (action, severity, patterns)
    }

    /// True when the rule applies to a finding.
    public func matches(_ f: Finding) -> Bool {
        (severity == nil || severity == f.severity) && patterns.contains { Policy.glob($0, f.code.rawValue) }
    }
}

extension Policy {
    /// The built-in profiles by name, each a policy text: `default` (``builtInText``, what `readback audit` applies)
    /// and `convert` (``convertText``, what `readback convert` applies when it reads its outputs back).
    public static let profiles: [(name: String, text: String)] = [("default", builtInText), ("convert", convertText)]

    /// The names of the built-in profiles.
    public static var profileNames: [String] { profiles.map(\.name) }

    /// The full text of a built-in profile, nil for an unknown name.
    public static func profileText(_ name: String) -> String? { profiles.first { $0.name == name }?.text }

    /// A built-in profile, parsed; nil for an unknown name.
    public static func profile(_ name: String) -> Policy? {
        switch name {
        case "default": builtIn
        case "convert": convert
        default: nil
        }
    }

    /// The `convert` profile's own lines, applied on top of the default profile (docs/policy.md quotes them).
    public static let convertOwnText = """
        # Readback convert profile: the read-back audit of Readback's own outputs (readback convert).
        # Readback's converter keeps the MakerNote: a MakerNote it lost is an error, not a known loss.
        not-known-loss MakerNote*
        # What a finding does to a conversion, after the severities above: fail (the output is unusable), keep
        # (the original is kept), pass (information). The last matching line wins; a finding that no line
        # matches passes (docs/policy.md "Profiles and conversion verdicts").
        verdict keep error *
        verdict fail error container.* input.* output.* decode.primary-failed render.blank decode.crashed
        verdict fail error decode.timeout decode.out-of-memory
        # Warnings that keep the original: a field, the gain map, the orientation, the file facts or the sidecar's
        # edits not carried, and the pixels going wrong while every tag is right (a cast, a blank frame, turned
        # pixels). An exposure warning alone is a different rendering.
        verdict keep warning metadata.* gainmap.* orientation.* file.* sidecar.*
        verdict keep warning render.cast render.blank render.orientation
        """

    /// The full text of the `convert` profile: the default profile, then its own lines.
    public static let convertText = builtInText + "\n" + convertOwnText

    /// The `convert` profile: what Readback applies to its own outputs.
    public static let convert: Policy = {
        // A constant checked by the tests; a parse failure here is a programming error.
        (try? Policy.parse(convertOwnText, name: "convert", base: builtIn)) ?? builtIn
    }()

    /// What a finding does to a conversion under this policy: the action of the last `verdict` line that matches
    /// it (its severity is the one after the policy), `pass` when none does.
    public func conversionAction(for f: Finding) -> ConversionAction {
        verdictRules.last { $0.matches(f) }?.action ?? .pass
    }

    /// The metadata diff's share of the policy, as plain values: the known losses (the diff classes a lost field
    /// `known-loss` and raises `metadata.known-loss` for it), with the standard expected changes. The diff's own
    /// standard known-loss groups are not used: known losses are the audit policy's.
    public var metadataPolicy: MetadataPolicy {
        var mp = MetadataPolicy.standard
        mp.knownLosses = []
        mp.knownLossGroups = []
        mp.knownLossPatterns = knownLosses
        return mp
    }

    /// Parses a `verdict ACTION SEVERITY CODE…` line's arguments; the error message when it is not one.
    static func parseVerdict(_ args: [String]) -> Result<VerdictRule, VerdictError> {
        let usage = VerdictError(message: "usage: verdict fail|keep|pass error|warning|known-loss|info|any CODE…")
        guard args.count >= 3, let action = ConversionAction(rawValue: args[0]) else { return .failure(usage) }
        let severity: Severity?
        if args[1] == "any" {
            severity = nil
        } else if let s = Severity(rawValue: args[1]) {
            severity = s
        } else {
            return .failure(usage)
        }
        for p in args[2...] where !isCodePattern(p) {
            return .failure(VerdictError(message: "'\(p)' is not a finding code or code glob"))
        }
        return .success(VerdictRule(action: action, severity: severity, patterns: Array(args[2...])))
    }

    /// A `verdict` line the parser did not accept.
    struct VerdictError: Error {
        let message: String
    }
}
