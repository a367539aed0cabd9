import Findings
import Foundation
import Metadata
import MetadataIO

/// `readback diff SRC OUT`: field-by-field metadata diff of a source and a converted output.
struct DiffCommand: Subcommand {
    let name = "diff"
    let summary = "field-by-field metadata diff (EXIF, TIFF, GPS, orientation, XMP)"
    let usage = "readback diff SRC OUT [--json] [--all]"
    let discussion = """
        Reads the metadata of SRC (a RAW, JPEG, TIFF, HEIC or AVIF file, plus its .xmp sidecar if one sits
        beside it as IMG_1.CR2.xmp or IMG_1.xmp) and of OUT (any converter's output), and compares them field
        by field, by exiftool-style name (IFD0:Make, ExifIFD:DateTimeOriginal, GPS:GPSLatitude, XMP-xmp:Rating).

        Values compare after normalisation: 1/100 equals 10/1000, NUL-padded and plain ASCII are equal, GPS
        coordinates compare as coordinates within 1e-6 degrees. Each field is one of:
          kept             the same value on both sides
          changed          both values are shown
          lost             in SRC, missing from OUT
          added            only in OUT
          expected-change  Orientation reset to 1 because the pixels were turned upright, pixel dimensions,
                           Software, thumbnail, strip and DNG-structural tags
          known-loss       lost, and the policy accepts it (the MakerNote; IPTC, which HEIF cannot carry)
        Fields are critical (capture time and offset, GPS, make/model/lens, exposure time, f-number, ISO,
        focal length, orientation), important, or informational. For HEIF outputs the orientation is read from
        irot/imir (authoritative) as well as Exif; a transform together with Exif Orientation other than 1 is
        reported as orientation.double-rotation.

        The table lists lost and changed critical fields first, then the other differences, then findings,
        and ends with counts per class. Exit status: 0 when no critical or important field was lost or
        changed, 1 when one was (or an orientation finding was raised), 2 on a usage or read error.

        Example:
          readback diff IMG_0001.CR2 out/IMG_0001.heic
          readback diff IMG_0001.CR2 out/IMG_0001.heic --json > diff.json
        """
    let options: [OptionSpec] = [
        .flag("json", "Print the diff as JSON (schemaVersion 1: source, output, entries, findings, counts)."),
        .flag("all", "Also list the fields that were kept."),
    ]

    /// Version of the JSON document; readers check it first.
    static let schemaVersion = 1

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard args.positionals.count == 2 else {
            throw UsageError("diff takes exactly two files, SRC and OUT (got \(args.positionals.count))")
        }
        let source = try MetadataReader.read(path: args.positionals[0])
        let output = try MetadataReader.read(path: args.positionals[1])
        let diff = Diff.compare(source: source, output: output, policy: .standard)
        if args.has("json") {
            console.print(try Self.json(diff, source: args.positionals[0], output: args.positionals[1]))
        } else {
            console.print(
                Self.table(
                    diff, source: args.positionals[0], output: args.positionals[1], all: args.has("all"),
                    console: console))
        }
        return diff.hasSeriousLoss ? .findings : .clean
    }

    // MARK: rendering (pure)

    struct JSONDocument: Encodable {
        let schemaVersion: Int
        let source: String
        let output: String
        let entries: [JSONEntry]
        let findings: [JSONFinding]
        let counts: [String: [String: Int]]
        let sourceOrientation: OrientationInfo
        let outputOrientation: OrientationInfo
        let sourceMakerNote: MakerNoteInfo?
        let outputMakerNote: MakerNoteInfo?
    }
    struct JSONEntry: Encodable {
        let key: String
        let diffClass: String
        let criticality: String
        let source: String?
        let output: String?
        let note: String?
        enum CodingKeys: String, CodingKey {
            case key
            case diffClass = "class"
            case criticality, source, output, note
        }
    }

    /// A diff finding as the JSON has always written it: `{code, criticality, key?, message}`.
    struct JSONFinding: Encodable {
        let code: String
        let criticality: Criticality
        let key: FieldKey?
        let message: String
        init(_ f: Finding) {
            code = f.code
            criticality = f.criticality
            key = f.key
            message = f.message
        }
    }

    static func json(_ d: MetadataDiff, source: String, output: String) throws -> String {
        var counts: [String: [String: Int]] = [:]
        for c in DiffClass.allCases {
            var row: [String: Int] = [:]
            for k in Criticality.allCases { row[k.rawValue] = d.count(c, k) }
            counts[c.rawValue] = row
        }
        let doc = JSONDocument(
            schemaVersion: schemaVersion, source: source, output: output,
            entries: d.entries.map {
                JSONEntry(
                    key: $0.key.description, diffClass: $0.diffClass.rawValue, criticality: $0.criticality.rawValue,
                    source: $0.source?.description, output: $0.output?.description, note: $0.note)
            },
            findings: d.findings.map(JSONFinding.init), counts: counts, sourceOrientation: d.sourceOrientation,
            outputOrientation: d.outputOrientation, sourceMakerNote: d.sourceMakerNote,
            outputMakerNote: d.outputMakerNote)
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try enc.encode(doc), as: UTF8.self)
    }

    static func clip(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }

    static func table(_ d: MetadataDiff, source: String, output: String, all: Bool, console: Console) -> String {
        var lines = ["source: \(source)", "output: \(output)", ""]
        let keyWidth = min(40, max(24, d.entries.map { $0.key.description.count }.max() ?? 0))
        func row(_ e: DiffEntry) -> String {
            let cls = e.diffClass.rawValue.uppercased().padding(toLength: 16, withPad: " ", startingAt: 0)
            let key = clip(e.key.description, keyWidth).padding(toLength: keyWidth, withPad: " ", startingAt: 0)
            let s = e.source.map { clip($0.description, 40) } ?? "—"
            let o = e.output.map { clip($0.description, 40) } ?? "—"
            var text = "  \(cls) \(key) \(s) → \(o)"
            if let note = e.note { text += "  (\(note))" }
            if e.diffClass == .lost || e.diffClass == .changed {
                text = console.color(text, e.criticality == .critical ? "31" : "33")
            }
            return text
        }
        let bad: Set<DiffClass> = [.lost, .changed]
        let critical = d.entries.filter { bad.contains($0.diffClass) && $0.criticality == .critical }
        lines.append("Critical fields lost or changed: \(critical.isEmpty ? "none" : String(critical.count))")
        lines += critical.map(row)
        let rest = d.entries.filter {
            $0.diffClass != .kept && !(bad.contains($0.diffClass) && $0.criticality == .critical)
        }
        .sorted { ($0.criticality, $0.diffClass.rawValue, $0.key) < ($1.criticality, $1.diffClass.rawValue, $1.key) }
        if !rest.isEmpty {
            lines.append("")
            lines.append("Other differences:")
            lines += rest.map(row)
        }
        if all {
            let kept = d.entries(.kept)
            lines.append("")
            lines.append("Kept (\(kept.count)):")
            lines += kept.map(row)
        }
        if !d.findings.isEmpty {
            lines.append("")
            lines.append("Findings:")
            lines += d.findings.map { "  \($0.code) [\($0.criticality.rawValue)] \($0.message)" }
        }
        lines.append("")
        lines.append(
            "Orientation: source \(d.sourceOrientation.effective) (Exif \(d.sourceOrientation.exif.map(String.init) ?? "—")), output \(d.outputOrientation.effective) (Exif \(d.outputOrientation.exif.map(String.init) ?? "—")\(d.outputOrientation.hasTransform ? ", irot/imir" : ""))"
        )
        lines.append("")
        let header = "class".padding(toLength: 16, withPad: " ", startingAt: 0) + "critical  important  informational"
        lines.append(header)
        for c in DiffClass.allCases {
            let cells = Criticality.allCases.map { k -> String in
                let n = String(d.count(c, k))
                let w = k == .critical ? 8 : k == .important ? 9 : 13
                return String(repeating: " ", count: max(0, w - n.count)) + n
            }
            lines.append(c.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0) + cells.joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }
}
