import Foundation
import Testing

/// Finding codes live in one catalogue (`FindingCode` in Sources/2-Foundations/Findings): every other source file
/// names a code through it, never as a string literal or by interpolating a code into a prefix, so a code cannot be
/// misspelt or exist outside the catalogue.
let codeLiteral =
    #""(container|input|output|size|decode|signalling|metadata|orientation|gainmap|file|sidecar|render|box|ftyp"#
    + #"|brand|meta|hdlr|pitm|iinf|item|ispe|iloc|iref|ipma|property|grid|tmap|altr|exif|limits)\."#
    + #"([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]"|\\\()"#

/// The lines of `text` holding a code-shaped string literal.
func codeLiterals(in text: String) -> [Int] {
    let regex = try! Regex(codeLiteral)
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { n, line in
        line.contains(regex) ? n + 1 : nil
    }
}

@Test func findingCodesAreNamedOnlyThroughTheCatalogue() throws {
    let files = try sourceFiles().filter {
        $0.path.hasSuffix(".swift") && !$0.path.hasPrefix("Sources/2-Foundations/Findings/")
    }
    #expect(files.count > 100)
    let found = files.flatMap { f in codeLiterals(in: f.text).map { "\(f.path):\($0)" } }
    #expect(found.isEmpty, "name these codes through FindingCode:\n\(found.joined(separator: "\n"))")
}

@Test func codeLiteralsAreRecognised() {
    #expect(codeLiterals(in: #"ctx.add("render.cast", .warning, m)"#) == [1])
    #expect(codeLiterals(in: "let a = 1\n" + #"if f.code == "iloc.extentPastEOF" {"#) == [2])
    #expect(codeLiterals(in: #"ctx.add("container.\(f.code)", f.severity)"#) == [1])
    #expect(codeLiterals(in: #"f.code.hasPrefix("metadata.")"#) == [])
    #expect(codeLiterals(in: #"let name = "report.json""#) == [])
    #expect(codeLiterals(in: "ctx.add(.renderCast, .warning, m)  // render.cast") == [])
}
