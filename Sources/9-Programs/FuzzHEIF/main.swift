// libFuzzer entry point over the HEIF parser: `make fuzz` builds it with `--sanitize=fuzzer` and runs it seeded
// from Tests/HEIFTests/Fixtures (files made by HEIFBuilder). Built without the sanitizer (plain `swift build`)
// this is an empty program. Each input is parsed with `Limits.fuzzing` and every reader, the writer, the
// standalone-file maker, the inspect view and the builder are run on it; a broken invariant traps, which
// libFuzzer reports as a crash.
import HEIF

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let broken = HEIFFuzz.exercise(bytes, limits: .fuzzing, deep: true) {
        fatalError("invariant broken: \(broken)")
    }
    return 0
}
