import Batch
import Converter
import Fidelity
import Foundation
import HeifCodec
import ReportModel

/// `readback convert`: RAW → HEIC for files and folders, every output read back and audited, resumable, with opt-in
/// removal of verified originals.
struct ConvertCommand: Subcommand {
    let name = "convert"
    let summary = "convert RAW files to HEIC, read every output back and audit it; resumable"
    let usage = "readback convert SRC... --out DIR [options]"
    let discussion = """
        Converts each RAW file (CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF, DNG, …; extensions in any case) given as
        SRC, or found under a SRC folder (recursively; symlinks are never followed), to HEIC under --out. The
        output mirrors the path relative to its SRC folder, with the extension .heic. Each output is written to a
        temporary file in its destination folder, flushed to disk, renamed into place, then read back and audited
        against its source; one line per file gives the verdict (clean, kept, failed), the size ratio and the time.

        The work is recorded in a SQLite store (default DIR/.readback/state.db). Running the same command again
        resumes: files already converted and unchanged (size, time, SHA-256) are skipped, files cut off by a crash
        or a kill are redone, temporary files left behind are removed. A run with nothing left says so. Only one
        run at a time may use a store; a second one is refused.

        Each output is the same library entry as its source: modification and access times (to the
        nanosecond), permission bits (never wider; outputs are private until they are set), the owner when
        run as root, and every user.* extended attribute (desktop tags, rating, comment) except checksums of
        the old bytes, which are dropped and listed. The XMP sidecar (IMG_1.CR2.xmp or IMG_1.xmp) is merged
        into the output's XMP (rating, label, keywords, caption, …); its develop settings (Lightroom crs:*,
        darktable history) are not rendered, so a file with real edits is converted but keeps its original,
        and the reason names the edits. --json lists per file what was carried and where the sidecar went.

        Originals are never touched unless --remove-originals is given. With it, an original is removed only after
        its output was written, flushed, read back and audited clean, and only in one step after all files are
        done. A partial result (a field or the gain map not carried, known losses aside) keeps its original and
        says why; so does a file fact not carried (an xattr on a filesystem without them). A crash at any
        moment leaves every original in place; the next run finishes the removal.

        A rerun resumes. Only an observed crash counts against a file: a decoder whose worker crashed, hung or ran
        out of memory on it fails it at once (decode.*); an attempt during which Readback itself died of a fatal
        signal (marked as it happens) counts once, and after 2 in a row the file is failed with the reason,
        listed in the summary and not tried again while it is unchanged, unless --retry-failed is given. A run
        that was killed (kill -9, an OOM kill, power loss, a preempted job) or interrupted counts nothing.

        Encoding: HEVC (x265 through libheif) at preset \(Self.defaults.speed), quality \(Self.defaults.quality)\(Self.defaults.x265Options.sorted { $0.key < $1.key }.map { ", x265 \($0.key) \($0.value)" }.joined()), \(Self.defaults.bitDepth)-bit, \(Self.defaults.chroma == .yuv444 ? "4:4:4" : "4:2:0")
        unless options say otherwise: the quality ladder's visually-lossless target at the \(Self.defaults.effort.rawValue) effort (below).
        The target (docs/quality-ladder.md): of the settings measured on a 24 MP chart and two photos with sensor noise
        at ISO 100 to 12800 and on three real camera DNGs, the smallest and fastest whose decoded luma, seen
        at half size against the clean scene, loses at most 0.01 of mean SSIM and 0.03 in any 64×64 block on
        every image. Quality Q is x265 CRF (100 − Q)/2. On a visibly noisy frame the quality is lower (q47 from a
        noise σ of 1.75 8-bit codes; q50 with the scaling lists of the balanced effort): the noise is measured on the
        frame before it is encoded, and at viewing size the encode stays within SSIM-Y 0.975 (mean) and 0.95 (every
        block) of the archival encode on every real camera file and noisy crop of one measured (docs/quality-ladder.md
        "Noise", "Effort"); --quality, or a --target other than visually-lossless, encodes every frame at one quality.
        --target picks a measured setting by name; --quality, --speed or --chroma given with it win over its values:
        \(EncodingTarget.allCases.map { "  " + $0.summary }.joined(separator: "\n"))
        --effort sets how hard the encoder works for size at that fidelity (default \(Self.defaults.effort.rawValue); archival
        keeps fast unless --effort is given); measured against heif-enc's default (preset slow) at equal SSIM-Y
        at half size on real DNGs and the 24 MP chart (docs/quality-ladder.md "Effort"); --speed or --depth win:
        \(EncodingEffort.allCases.map { "  " + $0.summary }.joined(separator: "\n"))

        Look: a RAW's tones follow the camera's own rendering of it, its embedded preview. A tone curve
        (exposure, contrast and the saturation a camera's curve brings; never white balance or hue) is fitted
        so that the output's tones match the preview's where its mid-tones say something, and applied to each
        channel as a camera does (the highlight roll-off and the gain map stay Readback's); a RAW
        without a usable preview, or whose preview matches the neutral render within 0.1 stop, is rendered
        neutral (scene-linear light, the sRGB transfer, a highlight shoulder). --json says per file which, and
        the curve's 18 % grey shift and contrast. --look neutral renders every file neutral.

        --shard K/N converts only shard K of N: the files whose path relative to their SRC folder hashes (SHA-256
        mod N) to K. Shards of one run may work at the same time, on many machines, into one --out folder: each
        keeps its own store and lock (DIR/.readback/shard-K-of-N/state.db), so they never wait for one another, a
        rerun of a shard resumes only that shard, and --remove-originals removes only that shard's originals, with
        the same rules. --shard auto takes K and N from Slurm, Kubernetes or GitLab (docs/distributed.md).

        Exit status: 0 every file clean (or skipped), 1 some file failed or kept its original, 2 usage or I/O error
        (a missing SRC, disk full, store in use). A disk-full error stops the run: nothing is removed and no
        half-written file is left under a final name.

        Example:
          readback convert ~/Pictures/2024 --out ~/Pictures/2024-heic --jobs 2 --remove-originals trash
        """
    /// The converter's defaults, printed in the help and by `--print-defaults`.
    static let defaults = ConvertOptions()

    let options: [OptionSpec] = [
        .value("out", "DIR", "Output folder (created if needed). Required."),
        .value("quality", "Q", "Encoder quality 0–100, x265 CRF = (100 − Q)/2 (default: \(defaults.quality))."),
        .value(
            "speed", "PRESET",
            "x265 preset, fastest first: \(HeifEncodeSettings.presets.joined(separator: "|")) (default: \(defaults.speed))."
        ),
        .value(
            "target", "NAME",
            "\(EncodingTarget.allCases.map(\.rawValue).joined(separator: "|")): set preset, quality, x265 options and chroma to the setting measured for that fidelity (see above)."
        ),
        .value(
            "effort", "fast|balanced|small",
            "How hard the encoder works for size at the target's fidelity: preset, coded bit depth, x265 options (see above; default: \(defaults.effort.rawValue))."
        ),
        .value("chroma", "420|444", "Chroma subsampling of the primary image (default: \(defaults.chroma.rawValue))."),
        .value("depth", "8|10", "Bit depth of the primary image (default: \(defaults.bitDepth))."),
        .value(
            "tile-size", "N",
            "Code the primary as a grid of tiles of about N px encoded in parallel (each side N or N±64, whichever pads the image least); 0 = one untiled image; N a multiple of 64 up to 4096 (default: \(defaults.tileSize), and one untiled image when the primary is within HEVC level 4.1: at most 2,228,224 pixels, no side over 4222)."
        ),
        .value("hdr", "auto|off", "auto: carry the HDR gain map when the source has one (default); off: SDR only."),
        .value(
            "look", "camera|neutral",
            "camera: a RAW's exposure and contrast follow its embedded camera preview (default); neutral: colorimetric."
        ),
        .flag(
            "print-defaults",
            "Print the encoding defaults (with --target NAME or --effort LEVEL, theirs) and exit; with --json as one JSON object."
        ),
        .value("jobs", "N", "Files converted in parallel, 1–64 (default: from cores and free memory, ~1 GB each)."),
        .value(
            "db", "PATH",
            "State database (default: DIR/.readback/state.db, with --shard DIR/.readback/shard-K-of-N/state.db); a lock file sits beside it."
        ),
        .flag("dry-run", "Show what would be converted, skipped and removed, with a size estimate; touch nothing."),
        .flag("quiet", "Print only errors and the final summary."),
        .flag("json", "Print one JSON object per finished file (with seconds per stage), per removal, and a summary."),
        .value(
            "remove-originals", "trash|delete",
            "Once all files are done, remove originals whose output verified clean: trash (undoable) or delete."
        ),
        .flag(
            "retry-failed",
            "Try again the files held back as failed: a decoder crashed on them, or Readback did twice in a row."),
        DecoderWorkers.option(sentence: true),
        ShardOption.spec("files", sentence: true),
    ]

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        if args.has("print-defaults") { return try Self.printDefaults(args, console: console) }
        guard !args.positionals.isEmpty else { throw UsageError("give at least one SRC file or folder") }
        guard let out = args.value("out") else { throw UsageError("--out DIR is required") }
        let conversion = try Self.conversionOptions(args)
        let jobs = try args.int("jobs", in: 1...64)
        if args.has("quiet") && args.has("json") { throw UsageError("--quiet and --json cannot be combined") }
        // The only place a RemovalPermit is made: from the flag's value.
        var permit: RemovalPermit?
        if let raw = args.value("remove-originals") {
            guard let p = RemovalPermit(parsingFlagValue: raw) else {
                throw UsageError("--remove-originals takes one of trash|delete, not '\(raw)'")
            }
            permit = p
        }
        let style: ProgressStyle =
            args.has("json") ? .json : args.has("quiet") ? .quiet : console.isTTY ? .tty : .plain
        let config = BatchConfiguration(
            sources: args.positionals, outputRoot: out, databasePath: args.value("db"),
            options: conversion, jobs: jobs,
            dryRun: args.has("dry-run"), removal: permit, progress: style, environment: console.environment,
            shard: try ShardOption.parse(args, environment: console.environment), retryFailed: args.has("retry-failed"))
        // The workers start now (not at the first decode), so that their exec and lockdown overlap the planning, and
        // a single file's read-back audit finds its second worker ready for the gain map beside the primary.
        let (decoders, stopWorkers) = try DecoderWorkers.start(
            jobs: jobs ?? BatchEngine.defaultJobs(), args: args, console: console, prewarm: !args.has("dry-run"))
        defer { stopWorkers() }
        let (converter, verifier) = ConvertAndAudit.make(decoders: decoders)
        let engine = BatchEngine(
            configuration: config, converter: converter, verifier: verifier, decoders: decoders,
            out: { console.write($0) }, err: { console.error($0) })
        let s = engine.runBlocking()
        Self.printSummary(s, style: style, console: console)
        return s.exitStatus
    }

    /// The encoding options of a command line: the converter's defaults, then --target at --effort (a target's
    /// default effort when none is given), then explicit --quality/--speed/--depth over their values, then the
    /// other flags.
    /// - Throws: `UsageError` (one line) for a value out of range or not among the choices.
    static func conversionOptions(_ args: ParsedArguments) throws(UsageError) -> ConvertOptions {
        let quality = try args.int("quality", in: 0...100)
        let speed = try args.choice("speed", HeifEncodeSettings.presets)
        var o = ConvertOptions()
        let target = try args.choice("target", EncodingTarget.allCases.map(\.rawValue)).flatMap(
            EncodingTarget.init(rawValue:))
        let effort = try args.choice("effort", EncodingEffort.allCases.map(\.rawValue)).flatMap(
            EncodingEffort.init(rawValue:))
        if target != nil || effort != nil {
            let t = target ?? .visuallyLossless
            t.apply(to: &o, effort: effort ?? t.defaultEffort)
        }
        if let quality {
            o.quality = quality
            o.noiseAdaptive = false  // the quality asked for, on every frame
        }
        if let speed { o.speed = speed }
        if let chroma = try args.choice("chroma", ["420", "444"]).flatMap(HeifChroma.init(rawValue:)) {
            o.chroma = chroma
        }
        if let depth = try args.choice("depth", ["8", "10"]).flatMap({ Int($0) }) { o.bitDepth = depth }
        if let hdr = try args.choice("hdr", ["auto", "off"]).flatMap(HDRMode.init(rawValue:)) { o.hdr = hdr }
        if let look = try args.choice("look", LookMode.allCases.map(\.rawValue)).flatMap(LookMode.init(rawValue:)) {
            o.look = look
        }
        if let tile = try args.int("tile-size", in: 0...4096) {
            if tile % 64 != 0 {
                throw UsageError("--tile-size takes 0 (untiled) or a multiple of 64 up to 4096, not '\(tile)'")
            }
            o.tileSize = tile
        }
        return o
    }

    /// The encoding settings `readback convert` uses when no option overrides them, with `target`'s preset and
    /// quality when one is given: (key, value) pairs in print order, each value an `Int` or a `String`.
    static func encodingDefaults(target: EncodingTarget?, effort: EncodingEffort? = nil) -> [(
        key: String, value: any Sendable
    )] {
        var o = defaults
        if target != nil || effort != nil {
            let t = target ?? .visuallyLossless
            t.apply(to: &o, effort: effort ?? t.defaultEffort)
        }
        let pairs: [(key: String, value: any Sendable)] = [
            ("effort", o.effort.rawValue), ("quality", o.quality), ("qualityStep", o.qualityStep), ("speed", o.speed),
            ("depth", o.bitDepth),
            ("chroma", o.chroma.rawValue), ("tileSize", o.tileSize),
            ("gainMapQuality", o.gainMapQuality),
            ("gainMapSpeed", o.gainMapSpeed), ("colorSpace", o.colorSpace.rawValue), ("hdr", o.hdr.rawValue),
            ("look", o.look.rawValue),
            // The x265 options beyond the preset (the floor of `make bench` encodes with them too), "" for none.
            (
                "x265",
                o.x265Options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: ",")
            ),
            // Over those, for a primary coded as one picture (a frame within HEVC level 4.1), "" for none.
            (
                "x265OnePicture",
                o.onePictureX265Options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: ",")
            ),
        ]
        // The noise steps (docs/quality-ladder.md "Noise") at the quality this level codes them, when the target
        // uses them.
        let steps = NoiseLevel.steps.map {
            "q\(o.frameQuality(sigma: $0.minSigma)) from noise σ \(String(format: "%g", $0.minSigma))"
        }
        let noisy: [(key: String, value: any Sendable)] =
            (target ?? .visuallyLossless) == .visuallyLossless ? [("noisyFrames", steps.joined(separator: ", "))] : []
        return (target.map { [("target", $0.rawValue)] } ?? []) + pairs + noisy
    }

    /// `--print-defaults`: `encodingDefaults` as `key: value` lines or, with `--json`, one JSON object.
    static func printDefaults(_ args: ParsedArguments, console: Console) throws(UsageError) -> ExitCode {
        let name = try args.choice("target", EncodingTarget.allCases.map(\.rawValue))
        let effort = try args.choice("effort", EncodingEffort.allCases.map(\.rawValue))
        let pairs = encodingDefaults(
            target: name.flatMap(EncodingTarget.init(rawValue:)), effort: effort.flatMap(EncodingEffort.init(rawValue:))
        )
        guard args.has("json") else {
            console.print(pairs.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
            return .clean
        }
        let object = Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value as Any) })
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return .usageOrIO
        }
        console.print(String(decoding: data, as: UTF8.self))
        return .clean
    }

    /// The closing line (or JSON object) of a run.
    static func printSummary(_ s: BatchSummary, style: ProgressStyle, console: Console) {
        if style == .json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            if let d = try? e.encode(s) { console.print(String(decoding: d, as: UTF8.self)) }
            return
        }
        for n in s.notRetried { console.print("failed, not tried again: \(n.source): \(n.reason)") }
        if s.dryRun || s.nothingToDo || (s.fatalError != nil && s.total == 0) { return }
        var parts = ["\(s.total) file(s): \(s.clean) clean, \(s.kept) kept, \(s.failed) failed, \(s.skipped) skipped"]
        if s.removed > 0 || s.removalRefused > 0 {
            parts.append("\(s.removed) original(s) removed, \(s.removalRefused) kept at removal")
        }
        if s.sourceBytes > 0 {
            parts.append(
                String(
                    format: "%.1f MB → %.1f MB", Double(s.sourceBytes) / 1_000_000, Double(s.outputBytes) / 1_000_000))
        }
        parts.append(String(format: "%.1f s", s.seconds))
        console.print(parts.joined(separator: "; "))
    }
}
