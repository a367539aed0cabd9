import Foundation
import Testing

/// Citations a reader of the repository cannot follow: issue numbers, and notes kept outside the repository (the
/// facts the code relies on are in docs/, docs/platform.md above all).
let unfollowableCitation =
    #"(?i)\bissues? #?\d+|platform-notes|\.\./shared|shared/docs|STYLE\.md|apple-heic-gainmap\.md"#
    + #"|hdr-heif-signalling\.md|formats/[\w-]+\.md"#

/// The lines of `text` that cite what a reader cannot follow. A `// length:` note may name the issue whose branch
/// rewrites a function now: it is removed with the split.
func unfollowableCitations(in text: String) -> [Int] {
    let citation = try! Regex(unfollowableCitation)
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { n, line in
        guard line.contains(citation), !line.contains("// length:") else { return nil }
        return n + 1
    }
}

@Test func codeCitesOnlyWhatTheRepositoryHolds() throws {
    var files = try sourceFiles()
    files.append(
        ("Package.swift", try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)))
    let tests = packageRoot.appendingPathComponent("Tests")
    for case let url as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
    where url.pathExtension == "swift" && url.deletingLastPathComponent().lastPathComponent != "HouseRulesTests" {
        files.append(
            (String(url.path.dropFirst(packageRoot.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
    }
    let found = files.flatMap { f in unfollowableCitations(in: f.text).map { "\(f.path):\($0)" } }
    #expect(files.count > 200)
    #expect(found.isEmpty, "cite docs/ or state the fact instead:\n\(found.joined(separator: "\n"))")
}

@Test func citationsAreRecognised() {
    #expect(unfollowableCitations(in: "// see issue 11\n// Issue #7 too\nlet x = 1") == [1, 2])
    #expect(unfollowableCitations(in: "/// as platform-notes §2 says\n// ../shared/corpus") == [1, 2])
    #expect(unfollowableCitations(in: "/// formats/apple-heic-gainmap.md §4") == [1])
    #expect(unfollowableCitations(in: "// docs/platform.md, libheif reading\n// mei_Issue437_x.jpg") == [])
    #expect(unfollowableCitations(in: "    // length: split with issue 18's rewrite") == [])
}
