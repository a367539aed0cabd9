import Converter
import CorpusKit
import Foundation

/// `readback corpus`: generates the synthetic corpus (DNGs with exact truth) and mutated HEICs.
struct CorpusCommand: Subcommand {
    let name = "corpus"
    let summary = "generate the test corpus (DNGs with exact ground truth, mutated HEICs)"
    let usage = """
        readback corpus generate [--out DIR] [--large] [--good FILE]
               readback corpus mutate GOOD.heic --out DIR
        """
    let discussion = """
        generate  Writes the synthetic DNGs into DIR/dng/ (every Bayer pattern at 12, 14 and 16 bits, every Exif
                  orientation 1-8, a big-endian file, a LinearRaw DNG like iPhone ProRAW, a chart with nothing
                  above white, a file without GPS/XMP/MakerNote), the chart truth into DIR/truth/, and
                  DIR/MANIFEST (file, recipe, seed, what it exercises, the audit result it must give, sha256).
                  Each chart has an arrow that points up, a cyan marker top-right, colour patches with known
                  linear values, a gradient, diffuse white and a highlight 3 stops above it. The same recipe
                  always gives the same bytes. With --large it also writes 24 MP and 50 MP charts into
                  DIR/large/ (about 130 MB; not committed) for benchmarks. It then converts
                  dng/chart-rggb-12bit-o1.dng with the Converter into heic/good.heic (or copies --good FILE)
                  and writes its mutations into heic/mutations/ (see mutate).
        mutate    Reads a good HEIC and writes one file per silent failure the auditor must catch into DIR,
                  named after the finding code it must raise (e.g. gainmap.missing.heic), plus DIR/MUTATIONS
                  (file, finding code, what was changed). Mutations that do not apply to the input (for
                  example gain-map ones on a file without a gain map) are listed as skipped.

        Example:
          readback corpus generate --out Corpus
          readback corpus mutate Corpus/heic/good.heic --out /tmp/mutations
        """
    let options: [OptionSpec] = [
        .value("out", "DIR", "Where to write (generate: default Corpus; mutate: required)."),
        .flag("large", "generate: also write the 24 MP and 50 MP benchmark files into DIR/large/."),
        .value("good", "FILE", "generate: use FILE as heic/good.heic instead of converting the chart."),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard let action = args.positionals.first else {
            throw UsageError("corpus needs an action: generate or mutate")
        }
        switch action {
        case "generate":
            guard args.positionals.count == 1 else {
                throw UsageError("corpus generate takes no file arguments, got '\(args.positionals[1])'")
            }
            let out = URL(fileURLWithPath: args.value("out") ?? "Corpus")
            do {
                // The DNGs first, then the good HEIC converted from one of them, then everything with mutations.
                try Corpus.generate(into: out, includeLarge: false)
                let good: [UInt8]
                if let path = args.value("good") {
                    good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                } else {
                    let src = out.appendingPathComponent(Corpus.goodHEICSource)
                    do {
                        good = try Converter.convert(source: src, options: ConvertOptions()).bytes
                    } catch {
                        console.error("readback: \(src.path): \(error)")
                        return .usageOrIO
                    }
                }
                let rows = try Corpus.generate(into: out, includeLarge: args.has("large"), goodHEIC: good) { file in
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
                    } else {
                        console.print("skipped \(r.code): \(r.note)")
                    }
                }
            } catch {
                console.error("readback: \(out.path): \(error.localizedDescription)")
                return .usageOrIO
            }
            return .clean
        default:
            throw UsageError("unknown corpus action '\(action)'; use generate or mutate")
        }
    }
}
