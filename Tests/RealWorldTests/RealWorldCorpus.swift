import Foundation
import Testing

/// The real-world corpus folder, from `READBACK_REAL_CORPUS` (set by `make test-real`).
/// A missing folder is a failure, never a skip: the suite exists to read those files.
enum RealWorldCorpus {
    static func root() throws -> URL {
        guard let path = ProcessInfo.processInfo.environment["READBACK_REAL_CORPUS"] else {
            throw Missing(what: "READBACK_REAL_CORPUS is not set; run `make test-real CORPUS=DIR`")
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            throw Missing(what: "real-world corpus folder '\(path)' does not exist")
        }
        // A corpus reached through a symlink is read where it is (the enumerator does not enter a symlinked root).
        return URL(fileURLWithPath: path).resolvingSymlinksInPath()
    }

    /// Every regular file under the corpus with one of `extensions` (lower-case, no dot), sorted.
    static func files(_ extensions: Set<String>) throws -> [URL] {
        let root = try root()
        let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var out: [URL] = []
        while let u = e?.nextObject() as? URL {
            if extensions.contains(u.pathExtension.lowercased()) { out.append(u) }
        }
        return out.sorted { $0.path < $1.path }
    }

    struct Missing: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }
}

@Test func realWorldCorpusIsPresent() throws {
    let files = try RealWorldCorpus.files(["heic", "heif", "hif", "avif", "dng", "jpg"])
    #expect(files.count > 50, "expected the shared corpus (100 files), found \(files.count)")
}
