import Audit
import Findings
import Foundation
import Isolation
import Metadata
import MetadataIO
import ReportModel

/// `readback diff SRC OUT`: field-by-field metadata diff of a source and a converted output.
struct DiffCommand: Subcommand {
    let name = "diff"
    let summary = "field-by-field metadata diff (EXIF, TIFF, GPS, orientation, XMP)"
    let usage = "readback diff SRC OUT [--json] [--all]"
    let discussion = """
        Reads the metadata of SRC (a RAW, JPEG, TIFF, HEIC or AVIF file, plus its .xmp sidecar if one sits
        beside it as IMG_1.CR2.xmp or IMG_1.xmp) and of OUT (any converter's output), and compares them field
        by field, by exiftool-style name (IFD0:Make, ExifIFD:DateTimeOriginal, GPS:GPSLatitude, XMP-xmp:Rating).
        The judgement is the audit's own (readback audit SRC OUT says the same), under the built-in policy.

        Values compare as values, with each tag's rule from the tag tables: the same value written another
        way (1/100 and 10/1000, a rational re-derived from a float within 1e-6) is re-encoded; a difference
        within the source's own printed precision (exiftool's print form: f-number and focal length to 0.1,
        exposure time as 1/n) is rounded; text compares with NUL padding and trailing blanks trimmed; GPS
        coordinates compare in degrees. Each field is one of:
          kept             the same value on both sides
          reencoded        the same value written another way, or moved by the writer (XMP into Exif)
          rounded          within the source's printed precision (a warning, both values shown)
          changed          both values are shown
          lost             in SRC, missing from OUT
          added            only in OUT
          expected-change  Orientation carried by upright pixels or irot/imir, pixel dimensions, Software,
                           thumbnail, strip and DNG-structural tags
          known-loss       lost, and the policy accepts it (the MakerNote)
        The MakerNote compares tag by tag where exiv2 parses it, else as present or absent with its size.
        Orientation is judged by reader model: what a HEIF reader shows (irot/imir/clap, Exif ignored) of
        OUT against SRC as shown, confirmed from decoded pixels for HEIF sources (orientation.changed);
        irot/imir and Exif Orientation that disagree in OUT but agreed in SRC (orientation.inconsistent);
        a new irot + Exif pairing (orientation.double-rotation, info).

        The two files are also compared as library entries: modification time (file.mtime.changed, a
        warning beyond 2 s), permission bits (file.mode.widened, an error when the output is open to more
        people), owner, every user.* extended attribute (file.xattr.lost and file.xattr.changed: errors for
        desktop tags, rating and comment, warnings for others; checksums of the old bytes are dropped, info)
        and develop settings in SRC's sidecar that the output does not show (sidecar.edits-not-applied).

        The table lists lost and changed critical fields first, then the other differences, then the
        findings with their severities, the file facts, and ends with counts per class. Exit status: 0 when
        no finding is an error, 1 when one is, 2 on a usage or read error.

        Example:
          readback diff IMG_0001.CR2 out/IMG_0001.heic
          readback diff IMG_0001.CR2 out/IMG_0001.heic --json > diff.json
        """
    let options: [OptionSpec] = [
        .flag(
            "json",
            "Print the diff as JSON (schemaVersion 2: source, output, entries, findings, counts, fileFacts)."),
        .flag("all", "Also list the fields that were kept."),
    ]

    /// Version of the JSON document; readers check it first.
    /// Version 2 added `fileFacts`.
    static let schemaVersion = 2

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard args.positionals.count == 2 else {
            throw UsageError("diff takes exactly two files, SRC and OUT (got \(args.positionals.count))")
        }
        // The pixel-orientation check decodes with libheif: in a worker (docs/security.md).
        let (runDecoders, stopWorkers) = try DecoderWorkers.start(jobs: 1, args: args, console: console)
        // The pair's decodes share one --file-timeout.
        let decoders = runDecoders.forFile()
        defer { stopWorkers() }
        // Each file is read once and parsed once; the judgement and the file facts are handed the parse.
        let (srcURL, outURL) = (URL(fileURLWithPath: args.positionals[0]), URL(fileURLWithPath: args.positionals[1]))
        let (source, output) = (
            InputFile(reading: srcURL, decoders: decoders), InputFile(reading: outURL, decoders: decoders)
        )
        // A file that cannot be read is a usage-level error (exit 2), as before.
        let policy = Policy.builtIn
        let (srcSet, outSet) = (try MetadataReader.read(source), try MetadataReader.read(output))
        let judged = PairJudgement.judge(source: source, srcSet, output: output, outSet, policy: policy)
        guard let whole = judged.diff else { throw UsageError(judged.findings.first?.message ?? "unreadable") }
        // The fields the policy compares, as the findings and the audit report have them: a field the policy
        // ignores (the Software tag, the image size) is neither a row nor a finding.
        let diff = whole.restricted { policy.matters($0.description) }
        let facts = FileFactsCheck.judge(source: srcURL, output: outURL, sourceFile: source, decoders: decoders)
        let findings = policy.apply(judged.findings + (facts?.findings ?? [])).sorted(by: Finding.reportOrder)
        if args.has("json") {
            console.print(
                try Self.json(
                    diff, findings: findings, fileFacts: facts?.rows ?? [], source: args.positionals[0],
                    output: args.positionals[1]))
        } else {
            console.print(
                Self.table(
                    diff, findings: findings, fileFacts: facts?.rows ?? [], source: args.positionals[0],
                    output: args.positionals[1], all: args.has("all"), console: console))
        }
        return findings.contains { $0.severity == .error } ? .findings : .clean
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
        let fileFacts: [FileFactRow]
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

    /// A finding as the JSON has always written it, `{code, criticality, key?, message}`, plus its severity (the
    /// audit's, after the policy).
    struct JSONFinding: Encodable {
        let code: FindingCode
        let severity: Severity
        let criticality: Criticality
        let key: FieldKey?
        let message: String
        init(_ f: Finding) {
            code = f.code
            severity = f.severity
            criticality = f.criticality
            key = f.key
            message = f.message
        }
    }

    static func json(
        _ d: MetadataDiff, findings: [Finding], fileFacts: [FileFactRow], source: String, output: String
    ) throws -> String {
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
            findings: findings.map(JSONFinding.init), counts: counts, sourceOrientation: d.sourceOrientation,
            outputOrientation: d.outputOrientation, sourceMakerNote: d.sourceMakerNote,
            outputMakerNote: d.outputMakerNote, fileFacts: fileFacts)
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try enc.encode(doc), as: UTF8.self)
    }

    static func clip(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }

    static func table(
        _ d: MetadataDiff, findings: [Finding], fileFacts: [FileFactRow], source: String, output: String, all: Bool,
        console: Console
    ) -> String {
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
        if !findings.isEmpty {
            lines.append("")
            lines.append("Findings:")
            lines += findings.map { "  \($0.severity.rawValue) \($0.code): \($0.message)" }
        }
        let shownFacts = all ? fileFacts : fileFacts.filter { $0.status != .kept }
        if !fileFacts.isEmpty {
            lines.append("")
            lines.append(shownFacts.isEmpty ? "File facts: all kept (\(fileFacts.count))" : "File facts:")
            let w = min(40, shownFacts.map(\.fact.count).max() ?? 0)
            lines += shownFacts.map { r in
                let status = r.status.rawValue.uppercased().padding(toLength: 18, withPad: " ", startingAt: 0)
                let fact = clip(r.fact, 40).padding(toLength: w, withPad: " ", startingAt: 0)
                let text = "  \(status) \(fact) \(clip(r.source ?? "—", 40)) → \(clip(r.output ?? "—", 40))"
                let bad = r.status.isLoss
                return bad ? console.color(text, "33") : text
            }
        }
        lines.append("")
        lines.append(Self.orientationLine(d.orientation))
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

    /// "Orientation: kept (decided by coded data); source irot/imir 6, Exif 6; output irot/imir 6, Exif 6".
    static func orientationLine(_ j: OrientationJudgement) -> String {
        func side(_ i: OrientationInfo) -> String {
            let e = "Exif \(i.exif.map(String.init) ?? "—")"
            return i.isHEIF ? "irot/imir \(i.heifTransform ?? 1), \(e)" : e
        }
        let how = j.transform.map { j.verdict == .changed ? ", shown \($0)" : "" } ?? ""
        return
            "Orientation: \(j.verdict.rawValue)\(how) (decided by \(j.basis)); source \(side(j.source)); output \(side(j.output))"
    }
}
