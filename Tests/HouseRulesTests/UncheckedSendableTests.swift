import Foundation
import Testing

/// Every `@unchecked Sendable` and `nonisolated(unsafe)` in Sources says, in a `// unchecked:` comment on the line
/// above, why the compiler's race checking may be switched off there (which lock, which thread, what is immutable).
/// A value type, an actor or a `Mutex` is the first choice; this is for what stays.
func uncheckedWithoutReason(in text: String) -> [Int] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    return lines.indices.compactMap { i in
        let code = lines[i].trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//"), code.contains("@unchecked Sendable") || code.contains("nonisolated(unsafe)")
        else { return nil }
        let above = i > 0 ? lines[i - 1].trimmingCharacters(in: .whitespaces) : ""
        let reason = above.hasPrefix("// unchecked: ") && above.count > "// unchecked: ".count + 10
        return reason || code.contains("// unchecked: ") ? nil : i + 1
    }
}

@Test func everyUncheckedSendableStatesWhyItIsSafe() throws {
    let found = try sourceFiles().flatMap { f in uncheckedWithoutReason(in: f.text).map { "\(f.path):\($0)" } }
    #expect(
        found.isEmpty, "say why in a `// unchecked:` comment above, or use a Mutex:\n\(found.joined(separator: "\n"))")
}

@Test func uncheckedWithoutAReasonIsFound() {
    let text = """
        final class A: @unchecked Sendable {}
        // unchecked: every field is read and written under `lock`.
        final class B: @unchecked Sendable {}
        // unchecked: x
        nonisolated(unsafe) var c = 0
        // final class D: @unchecked Sendable {}
        """
    #expect(uncheckedWithoutReason(in: text) == [1, 5])
}
