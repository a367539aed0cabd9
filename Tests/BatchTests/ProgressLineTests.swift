import Testing

@testable import Batch

/// A failed file's human line names the file once: the converter's error, which starts with the file's name, is
/// shown without it; the machine form keeps the error whole.
@Test func aFailedLineNamesTheFileOnce() {
    let o = ItemOutcome(
        source: "/photos/IMG_1.CR3", relativeSource: "IMG_1.CR3", output: nil, relativeOutput: nil, verdict: .failed,
        sourceBytes: 10, error: "IMG_1.CR3: Canon EOS R6: the file holds no raw image data (truncated?)")
    let line = ProgressReporter.line(o)
    #expect(line == "failed  IMG_1.CR3  Canon EOS R6: the file holds no raw image data (truncated?)", "\(line)")
    #expect(o.error?.hasPrefix("IMG_1.CR3: ") == true)
    // An error that does not start with the name is shown as it is.
    var other = o
    other.error = "source vanished"
    #expect(ProgressReporter.line(other).hasSuffix("  source vanished"))
}
