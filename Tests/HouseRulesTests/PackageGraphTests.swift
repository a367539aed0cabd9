import Foundation
import Testing

/// One target as Package.swift declares it.
struct DeclaredTarget: Equatable {
    var kind: String
    var name: String
    var dependencies: [String]
    var path: String?

    /// Where its sources are: `path`, else Tests/NAME for a test target and Sources/NAME for the others.
    var directory: String { path ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)") }
}

extension SwiftSource {
    /// The targets of a package manifest: each `.target(…)`, `.testTarget(…)`, `.executableTarget(…)` and
    /// `.systemLibrary(…)` call with its name, its dependencies (string literals only) and its path.
    var declaredTargets: [DeclaredTarget] {
        let code = Array(self.code.joined(separator: "\n").utf8)
        let text = Array(lines.joined(separator: "\n").utf8)
        var found: [DeclaredTarget] = []
        for kind in ["target", "testTarget", "executableTarget", "systemLibrary"] {
            let opener = Array(".\(kind)(".utf8)
            var i = 0
            while let start = Self.find(opener, in: code, from: i) {
                let end = Self.closing(code, from: start + opener.count - 1)
                let call = String(decoding: text[start..<end], as: UTF8.self)
                if let name = Self.stringArgument("name", in: call) {
                    found.append(
                        DeclaredTarget(
                            kind: kind, name: name, dependencies: Self.stringListArgument("dependencies", in: call),
                            path: Self.stringArgument("path", in: call)))
                }
                i = end
            }
        }
        return found
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        return (from...(hay.count - needle.count)).first { hay[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The index after the parenthesis that closes the one at `open`.
    private static func closing(_ code: [UInt8], from open: Int) -> Int {
        var depth = 0
        for k in open..<code.count {
            if code[k] == UInt8(ascii: "(") { depth += 1 }
            if code[k] == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return k + 1 }
            }
        }
        return code.count
    }

    private static func stringArgument(_ label: String, in call: String) -> String? {
        guard let m = call.firstMatch(of: try! Regex("\\b\(label):\\s*\"([^\"]*)\"")) else { return nil }
        return m.output[1].substring.map(String.init)
    }

    private static func stringListArgument(_ label: String, in call: String) -> [String] {
        guard let m = call.firstMatch(of: try! Regex("\\b\(label):\\s*\\[([^\\]]*)\\]")),
            let list = m.output[1].substring
        else { return [] }
        return list.matches(of: try! Regex("\"([^\"]*)\"")).compactMap { $0.output[1].substring.map(String.init) }
    }
}

/// The module an import statement names (`import X`, `@testable import X`, `internal import X`,
/// `import struct X.Y`), or nil for any other line.
func importedModule(_ line: String) -> String? {
    guard line.contains("import") else { return nil }  // cheap, before the regex
    let statement = try! Regex(
        #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"#
            + #"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)"#)
    return line.firstMatch(of: statement)?.output[1].substring.map(String.init)
}

/// The modules the Swift files under `directory` import.
func importedModules(under directory: String) throws -> Set<String> {
    let root = packageRoot.appendingPathComponent(directory)
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
    var modules: Set<String> = []
    for case let url as URL in walker where url.pathExtension == "swift" {
        for line in SwiftSource(try String(contentsOf: url, encoding: .utf8)).code {
            if let m = importedModule(line) { modules.insert(m) }
        }
    }
    return modules
}

/// The package graph says what the code does: every target declares each package module it imports, and imports
/// each module it declares.
@Test func everyTargetDeclaresWhatItImportsAndImportsWhatItDeclares() throws {
    let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let targets = SwiftSource(manifest).declaredTargets
    #expect(targets.count > 30, "only \(targets.count) targets read from Package.swift: the reader is broken")
    let names = Set(targets.map(\.name))
    var problems: [String] = []
    for t in targets where t.kind != "systemLibrary" {
        let imported = try importedModules(under: t.directory).intersection(names)
        let declared = Set(t.dependencies)
        for m in imported.subtracting(declared).sorted() {
            problems.append("\(t.name) imports \(m) without declaring it")
        }
        // A C target (CExiv2Shim) has no Swift files and no dependencies.
        for m in declared.subtracting(imported).sorted() {
            problems.append("\(t.name) declares \(m) but no file of it imports it")
        }
    }
    #expect(problems.isEmpty, "Package.swift and the imports disagree:\n\(problems.joined(separator: "\n"))")
}

@Test func manifestReaderFindsNamesDependenciesAndPaths() {
    let manifest = """
        // .target(name: "Commented", dependencies: ["X"]),
        targets: [
            .systemLibrary(name: "CLib", pkgConfig: "lib", providers: [.apt(["lib-dev"])]),
            .target(name: "A", dependencies: ["CLib"]),
            .target(
                name: "B",
                dependencies: [
                    "A",  // a comment
                    "CLib",
                ]
            ),
            .testTarget(name: "BTests", dependencies: ["B"]),
            .target(name: "Support", dependencies: ["A"], path: "Tests/Support"),
        ]
        """
    #expect(
        SwiftSource(manifest).declaredTargets.sorted { $0.name < $1.name } == [
            DeclaredTarget(kind: "target", name: "A", dependencies: ["CLib"]),
            DeclaredTarget(kind: "target", name: "B", dependencies: ["A", "CLib"]),
            DeclaredTarget(kind: "testTarget", name: "BTests", dependencies: ["B"]),
            DeclaredTarget(kind: "systemLibrary", name: "CLib", dependencies: []),
            DeclaredTarget(kind: "target", name: "Support", dependencies: ["A"], path: "Tests/Support"),
        ])
    #expect(DeclaredTarget(kind: "testTarget", name: "BTests", dependencies: []).directory == "Tests/BTests")
}

@Test func importStatementsAreRecognised() {
    #expect(importedModule("import Foundation") == "Foundation")
    #expect(importedModule("@testable import Audit") == "Audit")
    #expect(importedModule("internal import CHeif") == "CHeif")
    #expect(importedModule("@preconcurrency public import struct HEIF.HEIFFile") == "HEIF")
    #expect(importedModule("let important = 1") == nil)
    // Read from the code with comments blanked, as `importedModules` does.
    #expect(SwiftSource("// import Hidden\nimport Shown").code.compactMap(importedModule) == ["Shown"])
}
