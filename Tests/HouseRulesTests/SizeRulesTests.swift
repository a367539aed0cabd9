import Foundation
import Testing

/// The house rules on size: no file under Sources/ over 600 lines, and no function (method, initialiser, subscript,
/// computed property) over 80 lines unless a `// length: <reason>` comment stands in the comments and attributes
/// directly above it.
enum SizeRules {
    static let maxFileLines = 600
    static let maxFunctionLines = 80
}

/// A function body in a Swift file: where it starts (its keyword's line) and how many lines it spans, through its
/// closing brace.
struct FunctionSpan: Equatable, CustomStringConvertible {
    var name: String
    var line: Int
    var lines: Int
    /// The reason given by a `// length:` comment above the function, if any.
    var reason: String?
    var description: String { "\(name) at line \(line): \(lines) lines" }
}

extension SwiftSource {
    // A declaration keyword not preceded by a dot or an identifier character (`self.init(` is a call); group 1 is the
    // declaration, groups 2–6 its name.
    private static let declaration =
        #"(?:^|[^\w.])((?:func\s+([^\s(<]+)|(init)[?!]?\s*[(<]|(deinit)\b|(subscript)\s*[(<]|var\s+(\w+)\s*:[^={]*\{\s*$))"#
    // Every declaration contains one of these: lines without any skip the regex.
    private static let keywords = ["func", "init", "subscript", "var"]
    // Signature continuations that swift-format puts on the next line.
    private static let continuations = ["->", "throws", "rethrows", "async", "where", "{", ")"]

    /// Every function-like declaration with a body.
    var functions: [FunctionSpan] {
        let declaration = try! Regex(Self.declaration)
        var found: [FunctionSpan] = []
        for (n, text) in code.enumerated() where Self.keywords.contains(where: text.contains) {
            for match in text.matches(of: declaration) {
                let name = (2...6).lazy.compactMap { match.output[$0].substring.map(String.init) }.first ?? "?"
                guard let start = match.output[1].range?.lowerBound else { continue }
                let column = text.utf8.distance(from: text.startIndex, to: start)
                guard let open = bodyStart(line: n, column: column), let close = bodyEnd(open) else { continue }
                found.append(
                    FunctionSpan(name: name, line: n + 1, lines: close - n + 1, reason: lengthReason(above: n)))
            }
        }
        return found
    }

    /// The line and column of the body's `{`, or nil for a declaration without one (a protocol requirement).
    private func bodyStart(line: Int, column: Int) -> (line: Int, column: Int)? {
        var depth = 0
        var n = line
        var chars = Array(code[n].utf8).dropFirst(column)
        while true {
            for (k, c) in zip(chars.indices, chars) {
                switch c {
                case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: "{") where depth == 0: return (n, k)
                case UInt8(ascii: "}") where depth == 0: return nil
                case UInt8(ascii: "=") where depth == 0: return nil
                default: break
                }
            }
            n += 1
            guard n < code.count else { return nil }
            let next = code[n].trimmingCharacters(in: .whitespaces)
            if depth == 0 && !Self.continuations.contains(where: { next.hasPrefix($0) }) { return nil }
            chars = Array(code[n].utf8)[...]
        }
    }

    /// The line of the `}` that closes the brace at `open`.
    private func bodyEnd(_ open: (line: Int, column: Int)) -> Int? {
        var depth = 0
        for n in open.line..<code.count {
            for c in Array(code[n].utf8).dropFirst(n == open.line ? open.column : 0) {
                if c == UInt8(ascii: "{") { depth += 1 }
                if c == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 { return n }
                }
            }
        }
        return nil
    }

    /// The text after `// length:` in the comments and attributes directly above line `n`.
    private func lengthReason(above n: Int) -> String? {
        var k = n - 1
        while k >= 0 {
            let t = lines[k].trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("//") || t.hasPrefix("@") else { return nil }
            if t.hasPrefix("// length:") {
                let reason = t.dropFirst("// length:".count).trimmingCharacters(in: .whitespaces)
                return reason.isEmpty ? nil : reason
            }
            k -= 1
        }
        return nil
    }
}

/// The package's root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every file under Sources/, relative path and text.
func sourceFiles() throws -> [(path: String, text: String)] {
    let root = packageRoot.appendingPathComponent("Sources")
    let walker = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]))
    var files: [(String, String)] = []
    for case let url as URL in walker
    where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
        let path = String(url.path.dropFirst(packageRoot.path.count + 1))
        files.append((path, try String(contentsOf: url, encoding: .utf8)))
    }
    return files.sorted { $0.0 < $1.0 }
}

@Test func noSourceFileIsOver600Lines() throws {
    let files = try sourceFiles()
    #expect(files.count > 100, "Sources/ not found from \(packageRoot.path)")
    let long = files.compactMap { file -> String? in
        let lines = file.text.utf8.count { $0 == UInt8(ascii: "\n") }
        return lines > SizeRules.maxFileLines ? "\(file.path): \(lines) lines" : nil
    }
    #expect(long.isEmpty, "over \(SizeRules.maxFileLines) lines:\n\(long.joined(separator: "\n"))")
}

@Test func noFunctionIsOver80LinesWithoutAStatedReason() throws {
    var long: [String] = []
    var stale: [String] = []
    var measured = 0
    for file in try sourceFiles() where file.path.hasSuffix(".swift") {
        let functions = SwiftSource(file.text).functions
        measured += functions.count
        for f in functions where f.lines > SizeRules.maxFunctionLines && f.reason == nil {
            long.append("\(file.path): \(f)")
        }
        // A reason for a function that no longer needs one is out of date: remove the note.
        for f in functions where f.lines <= SizeRules.maxFunctionLines && f.reason != nil {
            stale.append("\(file.path): \(f), noted \"\(f.reason!)\"")
        }
    }
    #expect(measured > 500, "only \(measured) functions found: the scanner is broken")
    #expect(
        long.isEmpty,
        "over \(SizeRules.maxFunctionLines) lines with no `// length: <reason>` above:\n\(long.joined(separator: "\n"))"
    )
    #expect(stale.isEmpty, "a `// length:` note above a function within the limit:\n\(stale.joined(separator: "\n"))")
}

// The scanner itself, on source written to trip it.

@Test func scannerMeasuresBodiesAndIgnoresBracesInStringsAndComments() {
    let text = """
        struct S {
            /// A { in a doc comment.
            func a(_ x: Int = 0) -> String {
                let s = "}}} \\(x + (1)) \\("{")"
                /* } nested /* } */ } */
                return s + #"\"}"#
            }
            var b: Int {
                1
            }
            init?(
                c: Int
            )
                throws
            {
                let t = \"""
                    }
                    \"""
            }
            subscript(i: Int) -> Int { i }
            // length: a table, read top to bottom
            @inline(__always)
            func d() {}
        }
        protocol P { func e() }
        let f = g.init(1)
        """
    let spans = SwiftSource(text).functions
    #expect(
        spans == [
            FunctionSpan(name: "a", line: 3, lines: 5),
            FunctionSpan(name: "b", line: 8, lines: 3),
            FunctionSpan(name: "init", line: 11, lines: 9),
            FunctionSpan(name: "subscript", line: 20, lines: 1),
            FunctionSpan(name: "d", line: 23, lines: 1, reason: "a table, read top to bottom"),
        ], "\(spans)")
}
