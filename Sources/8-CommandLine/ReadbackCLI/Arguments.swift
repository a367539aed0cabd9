/// Hand-written argument parsing: tokenize, then decode against a command's declared options.
///
/// Grammar: `--name value`, `--name=value`, boolean `--flag`, `-h`/`--help`, `--` ends options;
/// everything else is a positional. Errors are `UsageError`s with one line of text.

/// One declared option of a command.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable {
        case flag
        case value(placeholder: String)
    }
    public let name: String  // without the leading "--"
    public let kind: Kind
    public let help: String
    public let repeatable: Bool

    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, help: help, repeatable: false)
    }
    public static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false)
        -> OptionSpec
    {
        OptionSpec(name: name, kind: .value(placeholder: placeholder), help: help, repeatable: repeatable)
    }
}

/// A usage mistake: printed as one line, a usage hint, exit code 2.
public struct UsageError: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The decoded arguments of one invocation.
public struct ParsedArguments: Sendable {
    public private(set) var flags: Set<String> = []
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []
    public private(set) var helpRequested = false

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within `range`, or `nil` when absent.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let raw = value(name) else { return nil }
        guard let v = Int(raw), range.contains(v) else {
            throw UsageError(
                "--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(raw)'")
        }
        return v
    }

    /// A value option restricted to `choices`, or `nil` when absent.
    public func choice(_ name: String, _ choices: [String]) throws(UsageError) -> String? {
        guard let raw = value(name) else { return nil }
        guard choices.contains(raw) else {
            throw UsageError("--\(name) takes one of \(choices.joined(separator: "|")), not '\(raw)'")
        }
        return raw
    }

    /// Parses `arguments` against `specs`.
    public static func parse(_ arguments: [String], specs: [OptionSpec]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                result.positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            if arg == "-h" || arg == "--help" {
                result.helpRequested = true
                continue
            }
            guard arg.hasPrefix("--") else { throw UsageError("unknown option '\(arg)'") }
            var name = String(arg.dropFirst(2))
            var inline: String? = nil
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = byName[name] else { throw UsageError("unknown option '--\(name)'") }
            switch spec.kind {
            case .flag:
                if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                result.flags.insert(name)
            case .value(let placeholder):
                let v: String
                if let inline {
                    v = inline
                } else if i < arguments.count {
                    v = arguments[i]
                    i += 1
                } else {
                    throw UsageError("option '--\(name)' needs a value (\(placeholder))")
                }
                if !spec.repeatable, result.values[name] != nil {
                    throw UsageError("option '--\(name)' given more than once")
                }
                result.values[name, default: []].append(v)
            }
        }
        return result
    }
}
