import CorpusKit
import Foundation
import GainMap
import HEIF
import RawDecoder
import TIFFLayout

/// The parsers `make fuzz` runs (Sources/9-Programs/FuzzParsers) and the regression tests replay
/// (Tests/FuzzRegressions/TARGET), one per READBACK_FUZZ value. A broken invariant traps.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case heif, tiff, jpeg, xmp, tmap, makernote, opcodes

    public static let chosen: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["READBACK_FUZZ"] ?? "heif"
        guard let t = FuzzTarget(rawValue: name) else { fatalError("READBACK_FUZZ=\(name): no such target") }
        return t
    }()

    public func run(_ b: [UInt8]) {
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
        if let mpf = MPFIndex.parse(layout, b), mpf.entries.count > b.count {
            fatalError("more MPF entries than bytes")
        }
        _ = JPEGGainMapReader.inspect(b, decode: nil)
        _ = JPEGInspectionView(bytes: b, name: "fuzz")?.text()
    }
}
