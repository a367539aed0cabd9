import Converter
import CorpusKit
import Findings
import Foundation
import HEIF
import HeifCodec
import Isolation
import ReportModel

/// `readback corpus`: generates the synthetic corpus (DNGs with exact truth) and mutated HEICs.
struct CorpusCommand: Subcommand {
    let name = "corpus"
    let summary = "generate the test corpus (DNGs with exact ground truth, mutated HEICs)"
    let usage = """
        readback corpus generate [--out DIR] [--large] [--good FILE]
               readback corpus mutate GOOD.heic --out DIR
               readback corpus remosaic PHOTO.heic --out FILE.dng [--camera NAME] [--iso N [--clean FILE.dng]]
        """
    let discussion = """
        generate  Writes the synthetic DNGs into DIR/dng/ (every Bayer pattern at 12, 14 and 16 bits, every Exif
                  orientation 1-8, a big-endian file, a LinearRaw DNG like iPhone ProRAW, a chart with nothing
                  above white, a file without GPS/XMP/MakerNote), the chart truth into DIR/truth/, and
                  DIR/MANIFEST (file, recipe, seed, what it exercises, the audit result it must give, sha256).
                  Each chart has an arrow that points up, a cyan marker top-right, colour patches with known
                  linear values, a gradient, diffuse white and a highlight 3 stops above it. The same recipe
                  always gives the same bytes. With --large it also writes 24 MP and 50 MP charts into
                  DIR/large/ (about 600 MB; not committed) for benchmarks, each uncompressed and as
                  lossless JPEG (*-ljpeg-*.dng: the same pixels; the size benchmark's reference), and the
                  24 MP chart with sensor noise at ISO 100, 800, 3200 and 12800 (*-isoN-*.dng, with their
                  lossless twins) beside the same scene without noise (*-noiseless-o1.dng).
                  It then converts dng/chart-rggb-12bit-o1.dng with the Converter into heic/good.heic (or
                  copies --good FILE) and writes its mutations into heic/mutations/ (see mutate).
        mutate    Reads a good HEIC and writes one file per silent failure the auditor must catch into DIR,
                  named after the finding code it must raise (e.g. gainmap.missing.heic), plus DIR/MUTATIONS
                  (file, finding code, what was changed). Mutations that do not apply to the input (for
                  example gain-map ones on a file without a gain map) are listed as skipped.
        remosaic  Decodes a real photo (HEIC/HEIF), applies its Apple HDR gain map when it has one (real HDR
                  highlights), takes it to scene-linear sRGB and mosaics it into an RGGB 14-bit DNG carrying a
                  real camera's name and colour matrix (--camera canon-5d4 (default), sony-a7m3, synthetic).
                  --iso N adds sensor noise as at ISO N (Poisson shot noise and Gaussian read noise in
                  electrons, before quantisation; diffuse white 2 stops under the clip, as a camera exposes)
                  and --clean FILE writes the same scene without noise, its ground truth.
                  For benchmarks and local checks only: never commit the result (write it under Corpus/large/).

        Example:
          readback corpus generate --out Corpus
          readback corpus mutate Corpus/heic/good.heic --out /tmp/mutations
          readback corpus remosaic ~/photos/IMG_0001.HEIC --out Corpus/large/remosaic.dng
        """
    let options: [OptionSpec] = [
        .value("out", "DIR", "Where to write (generate: default Corpus; mutate: required)."),
        .flag("large", "generate: also write the 24 MP and 50 MP benchmark files into DIR/large/."),
        .value("good", "FILE", "generate: use FILE as heic/good.heic instead of converting the chart."),
        .value("camera", "NAME", "remosaic: the camera profile (canon-5d4, sony-a7m3, synthetic)."),
        .value(
            "iso", "N", "remosaic: add sensor noise at ISO N (50…204800; the benchmark uses 100, 800, 3200, 12800)."),
        .value("clean", "FILE", "remosaic with --iso: also write the noiseless twin (the same scene) to FILE."),
    ]

    // length: one switch over the three actions, each a short sequence of checks and one call
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard let action = args.positionals.first else {
            throw UsageError("corpus needs an action: generate, mutate or remosaic")
        }
        switch action {
        case "generate":
            guard args.positionals.count == 1 else {
                throw UsageError("corpus generate takes no file arguments, got '\(args.positionals[1])'")
            }
            let out = URL(fileURLWithPath: args.value("out") ?? "Corpus")
            // The good HEICs are converted from the DNGs just written, decoded in a worker as any file is.
            let (decoders, stopWorkers) = try DecoderWorkers.start(jobs: 1, args: args, console: console)
            defer { stopWorkers() }
            do {
                // The DNGs first, then the good HEIC converted from one of them, then everything with mutations.
                try Corpus.generate(into: out, includeLarge: false)
                let good: [UInt8]
                let tenBit: [UInt8]
                do {
                    // The conformance cases' 10-bit SDR file (CorpusKit cannot encode HEVC).
                    var o = ConvertOptions()
                    o.bitDepth = 10
                    o.hdr = .off
                    tenBit = try HEICConverter.convert(
                        source: out.appendingPathComponent(Corpus.goodHEICSource), options: o,
                        decoders: decoders.forFile()
                    ).bytes
                } catch {
                    console.error("readback: \(Corpus.goodHEICSource): \(error)")
                    return .usageOrIO
                }
                if let path = args.value("good") {
                    good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                } else {
                    let src = out.appendingPathComponent(Corpus.goodHEICSource)
                    do {
                        good = try HEICConverter.convert(
                            source: src, options: ConvertOptions(), decoders: decoders.forFile()
                        )
                        .bytes
                    } catch {
                        console.error("readback: \(src.path): \(error)")
                        return .usageOrIO
                    }
                }
                let rows = try Corpus.generate(
                    into: out, includeLarge: args.has("large"), goodHEIC: good, tenBitHEIC: tenBit
                ) { file in
                    console.print("wrote \(out.appendingPathComponent(file).path)")
                }
                console.print("wrote \(out.appendingPathComponent("MANIFEST").path) (\(rows.count) entries)")
            } catch {
                console.error("readback: \(out.path): \(error.localizedDescription)")
                return .usageOrIO
            }
            return .clean
        case "mutate":
            if args.has("large") { throw UsageError("--large applies to corpus generate only") }
            guard args.positionals.count == 2 else { throw UsageError("corpus mutate needs exactly one GOOD.heic") }
            guard let outPath = args.value("out") else { throw UsageError("corpus mutate needs --out DIR") }
            let src = args.positionals[1]
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: src)))
            } catch {
                console.error("readback: \(src): cannot read: \(error.localizedDescription)")
                return .usageOrIO
            }
            let out = URL(fileURLWithPath: outPath)
            do {
                let results = try Mutator.writeAll(from: bytes, into: out)
                for r in results {
                    if let file = r.file {
                        console.print("wrote \(out.appendingPathComponent(file).path)  \(r.code)")
                    } else if r.code == FindingCode.outputMissing.rawValue {
                        console.print("no file for \(r.code) (by design): \(r.note)")
                    } else {
                        console.print("skipped \(r.code): \(r.note)")
                    }
                }
            } catch {
                console.error("readback: \(out.path): \(error.localizedDescription)")
                return .usageOrIO
            }
            return .clean
        case "remosaic":
            guard args.positionals.count == 2 else { throw UsageError("corpus remosaic needs exactly one PHOTO") }
            guard let outPath = args.value("out") else { throw UsageError("corpus remosaic needs --out FILE.dng") }
            let cameraName = try args.choice("camera", CameraProfile.named.map(\.name)) ?? "canon-5d4"
            let camera = CameraProfile.named.first { $0.name == cameraName }!.profile
            let noise = try args.int("iso", in: 50...204_800).map { SensorNoise(iso: $0) }
            let cleanPath = args.value("clean")
            if cleanPath != nil && noise == nil { throw UsageError("--clean needs --iso") }
            let src = args.positionals[1]
            // A photo from anywhere: libheif reads it in a decoder worker (docs/security.md).
            let (decoders, stopWorkers) = try DecoderWorkers.start(jobs: 1, args: args, console: console)
            defer { stopWorkers() }
            do {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: src)))
                let (photo, note) = try Self.sceneLinear(bytes, decoders: decoders.forFile())
                let dng = Remosaic.dng(photo: photo, camera: camera, noise: noise)
                try Data(dng).write(to: URL(fileURLWithPath: outPath))
                let iso = noise.map { ", ISO \($0.iso) sensor noise" } ?? ""
                console.print("wrote \(outPath) (\(photo.width)x\(photo.height), \(camera.model), \(note)\(iso))")
                if let cleanPath {
                    let clean = Remosaic.dng(photo: photo, camera: camera, noise: noise, noiseless: true)
                    try Data(clean).write(to: URL(fileURLWithPath: cleanPath))
                    console.print("wrote \(cleanPath) (the same scene without noise)")
                }
            } catch {
                console.error("readback: \(src): \(error)")
                return .usageOrIO
            }
            return .clean
        default:
            throw UsageError("unknown corpus action '\(action)'; use generate, mutate or remosaic")
        }
    }

    /// Decodes a HEIF photo to scene-linear sRGB (`SceneLinear.photo`): libheif decodes, CorpusKit does the rest.
    static func sceneLinear(_ bytes: [UInt8], decoders: any Decoders) throws -> (RGBImage, String) {
        try SceneLinear.photo(heif: bytes) { data, request in
            let img: HeifDecodedImage
            switch request {
            case .primaryRGB:
                if let why = HEIFFile.libheifOverlayRefusal(data) { throw NotBuiltYet(what: why) }
                img = try decoders.heifPrimary(data, format: .rgbNative)
                guard img.channels == 3 else { throw NotBuiltYet(what: "remosaic of a monochrome image") }
            case .gainMap:
                img = try decoders.heifPrimary(data, format: .mono)
            }
            return (img.width, img.height, img.channels, img.bitDepth, img.samples, img.nclx, img.icc)
        }
    }
}
