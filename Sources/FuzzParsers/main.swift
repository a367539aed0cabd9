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
import CorpusKit
import Foundation
import GainMap
import HEIF
import RawDecoder
import TIFFLayout

enum FuzzTarget: String, CaseIterable {
    case heif, tiff, jpeg, xmp, tmap, makernote, opcodes

    static let chosen: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["READBACK_FUZZ"] ?? "heif"
        guard let t = FuzzTarget(rawValue: name) else { fatalError("READBACK_FUZZ=\(name): no such target") }
        return t
    }()

    func run(_ b: [UInt8]) {
        switch self {
        case .heif:
            if let broken = HEIFFuzz.exercise(b, limits: .fuzzing, deep: true) {
                fatalError("invariant broken: \(broken)")
            }
        case .tiff: Self.tiff(b)
        case .jpeg: Self.jpeg(b)
        case .xmp:
            _ = AdobeGainMapXMP.parse(b)?.isoMetadata
            _ = AppleGainMapXMP.parse(b)
        case .tmap:
            let d = ToneMapImage.decode(b)
            if d.image == nil && d.findings.isEmpty { fatalError("invariant broken: no image and no finding") }
        case .makernote: _ = AppleMakerNote.parse(b)
        case .opcodes:
            for op in (try? DNGOpcodeReader.parse(b, list: 2)) ?? [] {
                _ = op.name
                if let p = op.mapPolynomial, !(0...1).contains(p.value(0.5)) { fatalError("polynomial out of 0…1") }
            }
        }
    }

    static func tiff(_ b: [UInt8]) {
        let data = Data(b)
        if let layout = try? TIFFLayout(data) {
            if layout.directories.count > TIFFLayout.maxDirectories { fatalError("directories over the limit") }
            for dir in layout.directories {
                if dir.entries.count > TIFFLayout.maxEntries { fatalError("entries over the limit") }
                for e in dir.entries {
                    _ = layout.integers(e, limit: 4096)
                    _ = layout.valueBytes(e)
                }
            }
            _ = JXLDNG.jxlRawDirectories(layout)
        }
        _ = try? DNGOpcodeReader.opcodes(data)
        if let tree = TIFFReader(bytes: b)?.readTree() { _ = TIFFWriter.serialize(tree) }
    }

    static func jpeg(_ b: [UInt8]) {
        guard let layout = JPEGScanner.image(b) else { return }
        _ = JPEGScanner.xmp(layout, b)
        _ = JPEGScanner.exif(layout, b)
        _ = JPEGScanner.iso(layout, b)
        if let mpf = MPFIndex.parse(layout, b), mpf.entries.count > b.count { fatalError("more MPF entries than bytes") }
        _ = JPEGGainMapReader.inspect(b, decode: nil)
        _ = JPEGInspectionView(bytes: b, name: "fuzz")?.text()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParsers(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.chosen.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
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
