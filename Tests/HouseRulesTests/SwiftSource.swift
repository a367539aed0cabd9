import Foundation

/// A Swift file reduced to what the size rules need: its lines, and the same lines with comments and string literals
/// blanked to spaces (line breaks kept), so that braces and keywords are counted in code only.
struct SwiftSource {
    /// The file's lines as written.
    let lines: [String]
    /// The file's lines with every comment and string literal (interpolations included) turned into spaces.
    let code: [String]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blanker = Blanker(Array(text.utf8))
        blanker.scanCode(insideString: false)
        code = String(decoding: blanker.out, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}

/// Walks Swift source once, copying code and blanking comments and string literals.
private struct Blanker {
    let src: [UInt8]
    var out: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) {
        src = bytes
        out = bytes
    }

    private static let newline = UInt8(ascii: "\n")
    private static let quote = UInt8(ascii: "\"")
    private static let hash = UInt8(ascii: "#")
    private static let slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*")
    private static let backslash = UInt8(ascii: "\\")

    private func at(_ k: Int) -> UInt8 { k < src.count ? src[k] : 0 }

    private mutating func blank(_ k: Int) {
        if k < out.count && out[k] != Self.newline { out[k] = UInt8(ascii: " ") }
    }

    private mutating func advance(blanking: Bool, by n: Int = 1) {
        for _ in 0..<n {
            if blanking { blank(i) }
            i += 1
        }
    }

    /// Code up to the end of the file, or (inside a string's interpolation) up to its closing parenthesis, which is
    /// consumed. Inside a string everything is blanked, code included.
    mutating func scanCode(insideString: Bool) {
        var parens = 0
        while i < src.count {
            let c = src[i]
            if c == Self.slash && at(i + 1) == Self.slash {
                while i < src.count && src[i] != Self.newline { advance(blanking: true) }
            } else if c == Self.slash && at(i + 1) == Self.star {
                scanBlockComment()
            } else if c == Self.quote || (c == Self.hash && startsString(at: i)) {
                scanString()
            } else if insideString && c == UInt8(ascii: ")") && parens == 0 {
                advance(blanking: true)
                return
            } else {
                if c == UInt8(ascii: "(") { parens += 1 }
                if c == UInt8(ascii: ")") { parens -= 1 }
                advance(blanking: insideString)
            }
        }
    }

    /// `#…#"`: a raw string's opening delimiter starts at `k`.
    private func startsString(at k: Int) -> Bool {
        var j = k
        while at(j) == Self.hash { j += 1 }
        return at(j) == Self.quote
    }

    /// A block comment, nested ones included.
    private mutating func scanBlockComment() {
        var depth = 0
        while i < src.count {
            if src[i] == Self.slash && at(i + 1) == Self.star {
                depth += 1
                advance(blanking: true, by: 2)
            } else if src[i] == Self.star && at(i + 1) == Self.slash {
                depth -= 1
                advance(blanking: true, by: 2)
                if depth == 0 { return }
            } else {
                advance(blanking: true)
            }
        }
    }

    /// A string literal from its opening delimiter (`"`, `"""`, `#"`, …) through its closing one.
    private mutating func scanString() {
        var hashes = 0
        while at(i) == Self.hash {
            hashes += 1
            advance(blanking: true)
        }
        let multiline = at(i) == Self.quote && at(i + 1) == Self.quote && at(i + 2) == Self.quote
        advance(blanking: true, by: multiline ? 3 : 1)
        while i < src.count {
            let c = src[i]
            if c == Self.backslash && hashesFollow(i + 1, hashes) {
                advance(blanking: true, by: 1 + hashes)
                if at(i) == UInt8(ascii: "(") {
                    advance(blanking: true)
                    scanCode(insideString: true)
                } else {
                    advance(blanking: true)
                }
            } else if closes(at: i, multiline: multiline, hashes: hashes) {
                advance(blanking: true, by: (multiline ? 3 : 1) + hashes)
                return
            } else if c == Self.newline && !multiline {
                return  // not a string after all (or an unterminated one): stop at the line's end
            } else {
                advance(blanking: true)
            }
        }
    }

    private func hashesFollow(_ k: Int, _ n: Int) -> Bool {
        (0..<n).allSatisfy { at(k + $0) == Self.hash }
    }

    private func closes(at k: Int, multiline: Bool, hashes: Int) -> Bool {
        let quotes = multiline ? 3 : 1
        guard (0..<quotes).allSatisfy({ at(k + $0) == Self.quote }) else { return false }
        return hashesFollow(k + quotes, hashes)
    }
}
