// libFuzzer entry point over every parser of untrusted bytes Readback wrote itself. `make fuzz` builds it with
// `--sanitize=fuzzer` and runs each target in turn (scripts/fuzz.sh), naming it in READBACK_FUZZ:
//   heif        the HEIF/ISOBMFF box parser and everything over it (HEIFFuzz.exercise, with its invariants)
//   tiff        TIFF/IFD walkers: TIFFLayout, the DNG opcode lists, the JPEG XL DNG check, CorpusKit's TIFFReader
//   jpeg        JPEG segments, the MPF index, the Exif/XMP/ISO 21496-1 segments, the JPEG gain-map reader and view
//   xmp         the Ultra HDR/Adobe and Apple gain-map XMP parsers
//   tmap        the ISO 21496-1 `tmap` item body
//   makernote   the Apple MakerNote IFD (HDR headroom and gain)
//   opcodes     one DNG opcode list and its MapPolynomial parameters
// Built without the sanitizer (plain `swift build`) this is an empty program. A broken invariant traps, which
// libFuzzer reports as a crash. READBACK_FUZZ_WRITE_SEEDS=DIR with READBACK_FUZZ_SEED_FILES=DIR:DIR… writes seeds for
// every target from those files (using the same parsers) and exits.
import Foundation
import FuzzKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParsers(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.chosen.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
)
    -> CInt
{
    let env = ProcessInfo.processInfo.environment
    if let out = env["READBACK_FUZZ_WRITE_SEEDS"] {
        FuzzSeeds.write(into: out, from: (env["READBACK_FUZZ_SEED_FILES"] ?? "").split(separator: ":").map(String.init))
        exit(0)
    }
    _ = FuzzTarget.chosen
    return 0
}
