import Foundation
import Testing

/// The layer table of docs/ARCHITECTURE.md: layer number, name and targets, one row per layer.
struct LayerTable {
    var layerOf: [String: Int] = [:]
    var pure: Set<Int> = []
    var duplicates: [String] = []

    /// Reads the rows `| N | name | A, B, … |`; a name holding "(pure)" marks a pure layer.
    init(markdown: String) {
        for line in markdown.split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5, let n = Int(cells[1]) else { continue }
            if cells[2].contains("(pure)") { pure.insert(n) }
            for t in cells[3].split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !t.isEmpty {
                if layerOf[t] != nil { duplicates.append(t) }
                layerOf[t] = n
            }
        }
    }

    /// Every dependency that points to a higher layer, and every pure-layer target that reaches a non-pure one
    /// (directly or through others), as lines.
    func problems(_ targets: [DeclaredTarget]) -> [String] {
        var out: [String] = []
        let deps = Dictionary(targets.map { ($0.name, $0.dependencies) }, uniquingKeysWith: { a, _ in a })
        for t in targets where t.kind != "testTarget" {
            guard let l = layerOf[t.name] else {
                out.append("\(t.name) is in no layer of docs/ARCHITECTURE.md")
                continue
            }
            if let wrong = misplaced(t, layer: l) { out.append(wrong) }
            for d in t.dependencies {
                guard let dl = layerOf[d] else { continue }
                if dl > l { out.append("\(t.name) (layer \(l)) depends on \(d) (layer \(dl)), above it") }
            }
            guard pure.contains(l) else { continue }
            var seen: Set<String> = []
            var stack = t.dependencies
            while let d = stack.popLast() {
                guard seen.insert(d).inserted else { continue }
                if let dl = layerOf[d], !pure.contains(dl) {
                    out.append("\(t.name) is in a pure layer but reaches \(d) (layer \(dl))")
                }
                stack += deps[d] ?? []
            }
        }
        for name in layerOf.keys.sorted() where !targets.contains(where: { $0.name == name }) {
            out.append("docs/ARCHITECTURE.md names \(name), which Package.swift does not declare")
        }
        return out + duplicates.map { "\($0) is in two layers" }
    }

    /// A target whose sources are not in its layer's folder, `Sources/N-…/NAME`, as a line (the test support library
    /// lives under Tests/).
    func misplaced(_ t: DeclaredTarget, layer l: Int) -> String? {
        let parts = t.directory.split(separator: "/")
        if parts.first == "Tests" { return nil }
        if parts.count == 3, parts[0] == "Sources", parts[1].hasPrefix("\(l)-"), parts[2] == t.name { return nil }
        return "\(t.name) (layer \(l)) is in \(t.directory), not in Sources/\(l)-…/\(t.name)"
    }
}

/// A layer never depends on one above it, every target is in exactly one layer, and the pure layers reach no C.
@Test func noTargetDependsOnALayerAboveIt() throws {
    let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let targets = SwiftSource(manifest).declaredTargets
    let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    let table = LayerTable(markdown: doc)
    #expect(table.layerOf.count > 40, "only \(table.layerOf.count) targets read from the table: the reader is broken")
    let problems = table.problems(targets)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
}

/// The check fails on an upward dependency, an unplaced target, a target placed twice, a pure layer reaching C and a
/// target outside its layer's folder.
@Test func theLayerCheckCatchesEachKindOfBreak() {
    let table = LayerTable(
        markdown: """
            | layer | name | targets |
            |---|---|---|
            | 1 | C | CLib |
            | 2 | leaves (pure) | Leaf |
            | 3 | wrappers | Wrap, Twice |
            | 4 | cores (pure) | Core, Twice, Moved |
            """)
    let targets = [
        DeclaredTarget(kind: "systemLibrary", name: "CLib", dependencies: []),
        DeclaredTarget(kind: "target", name: "Leaf", dependencies: ["Wrap"]),
        DeclaredTarget(kind: "target", name: "Wrap", dependencies: ["CLib", "Core"], path: "Sources/3-Wrappers/Wrap"),
        DeclaredTarget(kind: "target", name: "Core", dependencies: ["Leaf"]),
        DeclaredTarget(kind: "target", name: "Twice", dependencies: []),
        DeclaredTarget(kind: "target", name: "Loose", dependencies: []),
        DeclaredTarget(kind: "target", name: "Moved", dependencies: [], path: "Sources/2-Leaves/Moved"),
        DeclaredTarget(kind: "testTarget", name: "LeafTests", dependencies: ["Core"]),
    ]
    let problems = table.problems(targets)
    #expect(problems.contains("Leaf (layer 2) depends on Wrap (layer 3), above it"), "\(problems)")
    #expect(problems.contains("Wrap (layer 3) depends on Core (layer 4), above it"), "\(problems)")
    #expect(problems.contains("Leaf is in a pure layer but reaches CLib (layer 1)"), "\(problems)")
    #expect(problems.contains("Core is in a pure layer but reaches Wrap (layer 3)"), "\(problems)")
    #expect(problems.contains("Loose is in no layer of docs/ARCHITECTURE.md"), "\(problems)")
    #expect(problems.contains("Twice is in two layers"), "\(problems)")
    #expect(problems.contains("Moved (layer 4) is in Sources/2-Leaves/Moved, not in Sources/4-…/Moved"), "\(problems)")
    #expect(problems.contains("Leaf (layer 2) is in Sources/Leaf, not in Sources/2-…/Leaf"), "\(problems)")
    #expect(!problems.contains { $0.hasPrefix("LeafTests") || $0.hasPrefix("Wrap (layer 3) is in") }, "\(problems)")
}
