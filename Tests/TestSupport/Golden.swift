import Foundation

/// Golden-file testing: compare text with a file beside the test.
///
/// Set `RECORD_GOLDENS=1` to rewrite the file; the comparison then *fails*, so a re-record is never
/// mistaken for a pass. Volatile parts (versions, paths, times) are redacted by the caller first.
public enum Golden {
    /// Returns `nil` when `actual` equals the golden file, else a message describing the mismatch.
    /// - Parameters:
    ///   - actual: the produced text.
    ///   - name: the golden's file name, under `Goldens/` beside `testFile`.
    ///   - testFile: pass `#filePath`.
    public static func check(_ actual: String, named name: String, testFile: String = #filePath) -> String? {
        let dir = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Goldens")
        let url = dir.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
            try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try? actual.write(to: url, atomically: true, encoding: .utf8)
            return "re-recorded \(name); unset RECORD_GOLDENS and run again"
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return "golden \(name) is missing; run with RECORD_GOLDENS=1 to record it"
        }
        if expected == actual { return nil }
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(a.count, e.count) {
            let al = i < a.count ? String(a[i]) : "<end>"
            let el = i < e.count ? String(e[i]) : "<end>"
            if al != el { return "golden \(name) differs at line \(i + 1):\n  expected: \(el)\n  actual:   \(al)" }
        }
        return "golden \(name) differs"
    }
}

/// Where the repository is, found from this file's path (tests run from the package root or elsewhere).
public enum Repo {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A fresh temporary folder, removed by the caller with `try? FileManager.default.removeItem(at:)`.
    public static func temporaryDirectory(_ label: String = "readback-test") -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
