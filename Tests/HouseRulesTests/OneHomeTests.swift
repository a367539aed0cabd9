import Foundation
import Testing

/// The types every file under Sources/ declares (in code, not in comments or strings), with the file's path.
func declaredTypes() throws -> [(path: String, name: String)] {
    let declaration = try Regex(#"\b(?:enum|struct|class|actor|protocol|typealias)\s+(\w+)"#)
    var out: [(String, String)] = []
    for (path, text) in try sourceFiles() where path.hasSuffix(".swift") {
        for line in SwiftSource(text).code {
            for m in line.matches(of: declaration) {
                if let name = m.output[1].substring { out.append((path, String(name))) }
            }
        }
    }
    return out
}

/// Colour science has one home (issue 32): CIELAB, CIEDE2000, the colour spaces and their transfers, the
/// chromaticities and the displayed-image helpers with the letterbox rule are declared in ColorScience only, the
/// colour-space type has one spelling (`ColorSpace`, no `…ColourSpace` or second `…ColorSpace`), and the converter
/// reaches none of it through the render check.
@Test func colourScienceHasOneHome() throws {
    let types = try declaredTypes()
    #expect(types.count > 300, "only \(types.count) declarations found: the scanner is broken")
    let colour = try Regex(#"^(?:CIELAB|CIEDE2000|Lab\w*|\w*Colou?rSpace|TransferCurve|Chromaticity|RenderImage)$"#)
    let astray = types.filter {
        $0.name.wholeMatch(of: colour) != nil && !$0.path.hasPrefix("Sources/2-Foundations/ColorScience/")
    }
    #expect(astray.isEmpty, "declared outside ColorScience: \(astray.map { "\($0.name) in \($0.path)" })")
    let spaces = types.filter { $0.name.contains("ColourSpace") || $0.name.hasSuffix("ColorSpace") }.map(\.name)
    #expect(spaces == ["ColorSpace"], "colour-space types: \(spaces)")
    for (path, text) in try sourceFiles() where !path.hasPrefix("Sources/2-Foundations/ColorScience/") {
        #expect(
            !SwiftSource(text).code.contains { $0.contains("func letterbox(") },
            "\(path) defines its own letterbox rule")
    }
    let converter = try importedModules(under: "Sources/6-Stages/Converter")
    #expect(converter.contains("ColorScience") && !converter.contains("RenderCheck"), "Converter imports \(converter)")
}

/// The scanner behind `colourScienceHasOneHome` sees a declaration in code and not one in a comment or a string.
@Test func declarationScannerReadsCodeOnly() throws {
    let declaration = try Regex(#"\b(?:enum|struct|class|actor|protocol|typealias)\s+(\w+)"#)
    let text = """
        public enum CIELAB {}  // struct Commented
        let s = "struct InAString"
        """
    let names = SwiftSource(text).code.flatMap { $0.matches(of: declaration).compactMap { $0.output[1].substring } }
    #expect(names.map(String.init) == ["CIELAB"])
}

/// One metadata entry type: the entries exiv2 delivers are the ones Metadata types (`RawEntry`, declared once, in
/// the MetadataEntries leaf), with no bridge-side twin to copy them through.
@Test func metadataEntriesHaveOneType() throws {
    let entries = try declaredTypes().filter { $0.name.hasSuffix("Entry") && $0.name.contains(/Raw|Exiv2/) }
    #expect(
        entries.map { "\($0.name) in \($0.path)" } == [
            "RawEntry in Sources/2-Foundations/MetadataEntries/RawEntry.swift"
        ])
}
