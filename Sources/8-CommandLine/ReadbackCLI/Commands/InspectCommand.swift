import Converter
import FileKinds
import Foundation
import GainMap
import HEIF
import Isolation
import ReportModel

/// `readback inspect FILE [--json] [--boxes]`: the HEIF/AVIF container at a glance, then its structural findings; a
/// JPEG's segments, MPF index and gain map.
struct InspectCommand: Subcommand {
    let name = "inspect"
    let summary = "show a HEIF/HEIC/AVIF container, a JPEG or a RAW at a glance (gain maps, findings, camera)"
    let usage = "readback inspect FILE [--json] [--boxes]"
    let discussion = """
        Reads the ISOBMFF boxes of FILE with Readback's own parser (no libheif), so it also lists files that
        libheif 1.15 refuses, such as iOS 18+ iPhone photos. It prints:
          - the ftyp brands;
          - the primary image: size, bit depth, chroma, colour (nclx/ICC), orientation from irot/imir (EXIF 1-8);
          - every item: id, type, hidden flag, payload bytes, properties (* = essential) and references;
            runs of alike grid tiles are folded into one line;
          - gain maps: Apple auxiliary (auxl + auxC urn:com:apple:photo:2020:aux:hdrgainmap), other vendors'
            hdrgainmap auxiliaries, and ISO 21496-1 tmap items with dimg [base, gain map] and the altr group;
          - metadata items (Exif, XMP) and the images they describe (cdsc); entity groups;
          - findings with a stable code, severity and byte offset (e.g. container.box.truncated, container.iref.cdsc-multi-target).
        A JPEG shows its segments with offsets (APP1 Exif/XMP, APP2 ICC/MPF/ISO 21496-1), the MPF index and its
        gain map (Ultra HDR hdrgm XMP, ISO 21496-1, Apple) judged part by part, with gainmap.* findings.
        A RAW (by its extension: dng, cr2, cr3, nef, arw, raf, …) shows the camera its metadata names and whether
        LibRaw's camera list has it, the DNG version (and JPEG XL raw data), and what LibRaw reads: sizes, black and
        white levels and the clipped share, or why the file cannot be converted, in convert's words. The RAW is
        decoded in a locked-down worker process, as convert decodes it.

        Exit status: 0 when there is no error-severity finding (a RAW: its raw data reads), 1 when there is one (a RAW:
        it is refused), 2 when FILE cannot be read.

        Example:
          readback inspect IMG_0001.HEIC
          readback inspect --json IMG_0001.HEIC | jq '.gainMaps'
        """
    let options: [OptionSpec] = [
        .flag("json", "Print the versioned machine form (schemaVersion 2, keys sorted) instead of the summary."),
        .flag("boxes", "Also show the full box tree (type, offset, size) of every box parsed."),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(
                args.positionals.isEmpty ? "missing FILE" : "inspect takes one FILE, got \(args.positionals.count)")
        }
        if FileKinds.kind(ofExtension: URL(fileURLWithPath: path).pathExtension) == .raw {
            return try inspectRAW(path, args, console)
        }
        let file = try HEIFFile(contentsOf: path)
        if let jpeg = JPEGInspectionView(bytes: file.bytes, name: path) {
            console.write(args.has("json") ? jpeg.json() : jpeg.text())
            return jpeg.hasErrors ? .findings : .clean
        }
        let view = Inspection(file: file, name: path, includeBoxes: args.has("boxes"))
        console.write(args.has("json") ? view.json() : view.text(boxes: args.has("boxes")))
        return file.hasErrors ? .findings : .clean
    }

    private func inspectRAW(_ path: String, _ args: ParsedArguments, _ console: Console) throws -> ExitCode {
        let (decoders, stopWorkers) = try DecoderWorkers.start(jobs: 1, args: args, console: console)
        defer { stopWorkers() }
        let raw: RawInspection
        do {
            raw = try RawInspection.inspect(path, decoders: decoders.forFile())
        } catch {
            throw IOFailure("\(path): cannot be read (\(error.localizedDescription))")
        }
        console.write(args.has("json") ? try raw.json() : raw.text())
        return raw.refusal == nil ? .clean : .findings
    }
}
