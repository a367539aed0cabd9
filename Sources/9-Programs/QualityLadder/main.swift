import ColorScience
import Converter
import Fidelity
import Foundation
import GainMap
import HEIF
import HeifCodec

// readback-ladder: the quality ladder (docs/quality-ladder.md) and the benchmark's frame writer.
// A RAW argument is PATH, or PATH=CLEAN for a noisy generated RAW whose noiseless twin CLEAN is its ground truth: the
// viewing-size measure (Fidelity/ViewingSize.swift) then compares with CLEAN's render, else with the file's own.
//
//   readback-ladder run RAW... [--out TSV] [--crop WxH] [--presets a,b,..] [--variants V;V..] [--qualities 40,50,..]
//                   [--settings P:Q:V;..] [--merge]
//       Renders each RAW with the converter, crops a centred region, encodes it with HeifCodec (x265 through
//       libheif) at every preset × variant × quality (or the listed --settings), decodes it and measures size, SSIM-Y
//       (mean, worst 64×64 block) and PSNR against the float render at 1:1 (archival), and SSIM-Y at viewing size.
//       A variant is `key=value,…`: tune=ssim|psnr|grain, any x265 option (nr-intra=200), denoise=light|full (a
//       pre-encode local Wiener filter). Writes the TSV (default docs/quality-ladder.tsv) and prints the choices.
//       --merge keeps the TSV's other rows and replaces only the (image, preset, variant, quality) rows measured now.
//   readback-ladder choose [TSV]
//       Prints the rule's choices from a TSV, without encoding anything.
//   readback-ladder defaults
//       Prints the converter's default encoder setting as JSON: preset, quality and ladder variant (make bench).
//   readback-ladder noise RAW... [--out TSV]
//       Prints each RAW's frame noise σ (NoiseLevel, as `convert` measures it) and the default quality it gets, one
//       JSON line each; --out also writes them as a TSV (docs/quality-ladder-noise.tsv).
//   readback-ladder noisy SRC.dng... --iso N,N.. [--crop WxH] [--out-dir DIR] [--seed S]
//       Writes the centred crop (default 1024x768) of each real DNG's raw samples made noisy at each ISO by scaling
//       its exposure (CorpusKit `NoisyCrop`: Poisson–Gaussian noise in electrons, known gain and read noise) as
//       DIR/NAME-isoN.dng (default Corpus/large), the source's tags kept; one JSON line each with the recipe.
//   readback-ladder steps RAW... [--qualities 35,38,..] [--crop WxH] [--preset P] [--variant V] [--out TSV]
//       Each RAW's frame crop encoded with the archival target's setting and with the default's at each quality:
//       SSIM-Y at viewing size of the default encode against the archival one, bit/px, and the frame's noise σ
//       (docs/quality-ladder-steps.tsv, checked by FidelityTests).
//   readback-ladder shipped RAW... [--quality Q] [--speed PRESET] [--target NAME] [--tile-size N] [--crop WxH]
//       Converts each RAW with HEICConverter.convert (everything `readback convert` writes: tiling, gain map,
//       metadata), decodes the file's primary with libheif and measures the same crop with both measures: the
//       fidelity users get, as opposed to the ladder's bare encodes.
//   readback-ladder compare RAW FILE.heic... [--crop WxH|full]
//       Measures each HEIC's primary (any encoder's, e.g. heif-enc on the `frame` PPM) on the same crop and with the
//       same measures as `run` and `shipped`. The primary must have the render's size, or the crop's (an encode of
//       `frame --crop`). Prints one JSON object per file (make bench's fidelity match).
//   readback-ladder effort RAW... [--crop WxH|full] [--settings P:Q:V;..] [--heif-enc Q,Q..] [--out TSV]
//       Size at fixed fidelity (docs/quality-ladder.md "Effort"): the crop coded at each setting as the converter
//       codes it (tiles of `tile=N`, default the converter's; `depth=10` codes its 10-bit frame) and by heif-enc at
//       each quality (its defaults), each judged at viewing size against the crop's archival-target encode; bytes,
//       bit/px, wall and CPU seconds, SSIM-Y@½ mean and worst 64×64 block, one TSV row per encode.
//   readback-ladder frame SRC OUT.ppm [--depth 8|10] [--crop WxH]
//       Writes the exact frame `readback convert` encodes as its primary (HEICConverter.renderedFrame) as binary PPM:
//       P6, maxval 255 (8-bit) or 1023 with 16-bit big-endian samples (10-bit). Default depth: the converter's.
//       --crop writes the centred crop `run` and `compare` measure (for encoding the same pixels with another tool).

let allPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"]
let allQualities = [40, 50, 60, 65, 70, 75, 80, 85, 90]

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ s: String) { description = s }
}

/// Writes a file whole, through a temporary file and a rename (Foundation's atomic write). The ladder writes data
/// files for the repository and the benchmark, not user photos, so it needs no more than this (no dependency on
/// Batch's publisher or on the test-support target).
func writeFile(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("readback-ladder: \(message)\n".utf8))
    exit(code)
}

func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Splits `args` into positionals and `--name value` options (every option here takes a value, except --merge).
func parse(_ args: ArraySlice<String>) -> (positionals: [String], options: [String: String]) {
    var pos: [String] = []
    var opts: [String: String] = [:]
    var i = args.startIndex
    while i < args.endIndex {
        let a = args[i]
        if a == "--merge" {
            opts["merge"] = "1"
        } else if a.hasPrefix("--") {
            guard i + 1 < args.endIndex else { fail("\(a) needs a value") }
            opts[String(a.dropFirst(2))] = args[i + 1]
            i += 1
        } else {
            pos.append(a)
        }
        i += 1
    }
    return (pos, opts)
}

// MARK: - frame

func writeFrame(source: String, out: String, depth: Int?, crop: (Int, Int)?) throws {
    var o = ConvertOptions()
    if let depth { o.bitDepth = depth }
    var frame = try HEICConverter.renderedFrame(of: URL(fileURLWithPath: source), options: o, decoders: .inProcess)
    if let (cw, ch) = crop { frame = cropped(frame, cropW: cw, cropH: ch) }
    var bytes: [UInt8]
    switch frame {
    case .rgb8(let w, let h, let s):
        bytes = Array("P6\n\(w) \(h)\n255\n".utf8)
        bytes += s
    case .rgb16(let w, let h, let bits, let s):
        bytes = Array("P6\n\(w) \(h)\n\((1 << bits) - 1)\n".utf8)
        bytes.reserveCapacity(bytes.count + 2 * s.count)
        for v in s {
            bytes.append(UInt8(v >> 8))
            bytes.append(UInt8(v & 0xFF))
        }
    case .mono8:
        throw Failure("\(source): the converter rendered a monochrome frame; PPM needs RGB")
    }
    try writeFile(bytes, to: out)
}

/// The centred crop of an interleaved RGB frame (`CropRect`: even sizes and offsets), as `run` and `compare` take it.
func cropped(_ frame: HeifPixels, cropW: Int, cropH: Int) -> HeifPixels {
    func cut<T>(_ s: [T], _ fw: Int, _ c: CropRect) -> [T] {
        var out: [T] = []
        out.reserveCapacity(c.width * c.height * 3)
        for r in 0..<c.height {
            let start: Int = ((c.y + r) * fw + c.x) * 3
            out += s[start..<(start + c.width * 3)]
        }
        return out
    }
    switch frame {
    case .rgb8(let fw, let fh, let s):
        let c = CropRect(fullWidth: fw, fullHeight: fh, cropW: cropW, cropH: cropH)
        return .rgb8(width: c.width, height: c.height, samples: cut(s, fw, c))
    case .rgb16(let fw, let fh, let bits, let s):
        let c = CropRect(fullWidth: fw, fullHeight: fh, cropW: cropW, cropH: cropH)
        return .rgb16(width: c.width, height: c.height, bitDepth: bits, samples: cut(s, fw, c))
    case .mono8:
        return frame
    }
}

// MARK: - run

/// Encodes the prepared frame with one setting and measures it; the time includes a variant's pre-encode filter. A
/// `depth=10` variant codes the 10-bit frame, as `convert` does at that depth (no pre-encode filter takes it).
func encodeRow(_ p: Prepared, preset: String, variant: Variant, quality: Int) throws -> LadderRow {
    guard variant.depth == 8 || variant.denoise == nil else {
        throw Failure("\(variant.text): a pre-encode filter takes only the 8-bit frame")
    }
    let input = variant.depth == 10 ? p.frame10 : variant.input(p.frame)
    guard let input else { throw Failure("\(p.name): not prepared at 10 bits") }
    let t0 = now()
    let file = try HeifEncoder.encode(input, settings: variant.settings(preset: preset, quality: quality))
    let seconds = now() - t0
    let parsed = HEIFFile(bytes: file)
    guard let id = parsed.primaryItemID, let data = parsed.payload(of: id) else {
        throw Failure("\(p.name): libheif wrote no primary item at \(preset) \(variant.text) q\(quality)")
    }
    let dec = try HeifDecoder.decodePrimary(file, format: .rgb8)
    guard dec.width == p.width, dec.height == p.height, dec.channels == 3 else {
        throw Failure("\(p.name): decoded \(dec.width)×\(dec.height)×\(dec.channels), encoded \(p.width)×\(p.height)")
    }
    let m = try measure(p, decoded: dec.samples)
    return LadderRow(
        image: p.name, width: p.width, height: p.height, preset: preset, variant: variant.text, quality: quality,
        bytes: data.count, encodeSeconds: seconds, ssimMean: m.ssim.mean, ssimWorst: m.ssim.worstBlock,
        psnrY: m.psnrY, psnrRGB: m.psnrRGB, viewMean: m.view.mean, viewWorst: m.view.worstBlock,
        viewFrameMean: p.viewFrame.mean, viewFrameWorst: p.viewFrame.worstBlock)
}

func x265Version() -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-query")
    p.arguments = ["-W", "-f", "${Version}", "libx265-199"]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return "unknown" }
    p.waitUntilExit()
    let s = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return p.terminationStatus == 0 && !s.isEmpty ? "libx265-199 \(s) (Debian)" : "unknown"
}

func cpuModel() -> String {
    guard let t = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
    for line in t.split(separator: "\n") where line.hasPrefix("model name") {
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
            ?? "unknown"
    }
    return "unknown"
}

/// The `--crop WxH` option (default 2048×1536, each side ≥ 64; `full` for the whole frame, trimmed to even sides);
/// a malformed value ends the tool with a usage line.
func cropSize(_ options: [String: String]) -> (Int, Int) {
    guard let c = options["crop"] else { return (2048, 1536) }
    if c == "full" { return (Int.max, Int.max) }
    let parts = c.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] >= 64, parts[1] >= 64 else {
        fail("--crop takes WxH (each ≥ 64) or full, got '\(c)'")
    }
    return (parts[0], parts[1])
}

/// One encoder setting of the grid.
struct Setting {
    var preset: String
    var variant: Variant
    var quality: Int
}

/// The settings to measure: `--settings P:Q:VARIANT;…` as listed, else every `--presets` × `--variants` (separated
/// by `;`, default `tune=ssim`) × `--qualities`.
func grid(_ options: [String: String]) throws -> [Setting] {
    func preset(_ p: String) throws -> String {
        guard HeifEncodeSettings.presets.contains(p) else {
            throw Failure("unknown preset '\(p)'; presets: \(HeifEncodeSettings.presets.joined(separator: ", "))")
        }
        return p
    }
    func quality<S: StringProtocol>(_ q: S) throws -> Int {
        guard let v = Int(q), (0...100).contains(v) else { throw Failure("quality '\(q)' is not 0…100") }
        return v
    }
    if let list = options["settings"] {
        return try list.split(separator: ";").map { item in
            let f = item.split(separator: ":", maxSplits: 2).map(String.init)
            guard f.count >= 2 else { throw Failure("--settings takes PRESET:QUALITY[:VARIANT];…, got '\(item)'") }
            return Setting(
                preset: try preset(f[0]), variant: try Variant(f.count > 2 ? f[2] : Ladder.defaultVariant),
                quality: try quality(f[1]))
        }
    }
    let presets = try (options["presets"].map { $0.split(separator: ",").map(String.init) } ?? allPresets).map(preset)
    let variants = try
        (options["variants"].map { $0.split(separator: ";").map(String.init) } ?? [Ladder.defaultVariant])
        .map(Variant.init)
    let qualities = try options["qualities"].map { try $0.split(separator: ",").map(quality) } ?? allQualities
    return presets.flatMap { p in
        variants.flatMap { v in qualities.map { Setting(preset: p, variant: v, quality: $0) } }
    }
}

/// The `# image` comment line of a prepared image.
func imageNote(_ p: Prepared) throws -> String {
    guard case .rgb8(_, _, let frameSamples) = p.frame else { throw Failure("unreachable") }
    let q = try measure(p, decoded: frameSamples.map { UInt16($0) })
    return String(
        format:
            "# image %@: %dx%d, crop %dx%d at (%d,%d); viewing reference %@; 8-bit frame alone (no HEVC): SSIM-Y mean %.6f worst %.6f, PSNR-Y %.2f dB; at viewing size %.6f / %.6f",
        p.name, p.fullWidth, p.fullHeight, p.width, p.height, p.cropX, p.cropY, p.cleanName ?? "its own render",
        q.ssim.mean, q.ssim.worstBlock, q.psnrY, p.viewFrame.mean, p.viewFrame.worstBlock)
}

func run(_ raws: [String], options: [String: String]) throws {
    let out = options["out"] ?? "docs/quality-ladder.tsv"
    let (cropW, cropH) = cropSize(options)
    let settings = try grid(options)
    guard !raws.isEmpty else { fail("run needs at least one RAW") }
    var kept: [LadderRow] = []
    var comments: [String] = []
    if options["merge"] != nil, let text = try? String(contentsOfFile: out, encoding: .utf8) {
        kept = try Ladder.parse(text)
        comments = text.split(separator: "\n").filter { $0.hasPrefix("# image ") }.map(String.init)
    }
    var rows: [LadderRow] = []
    let started = now()
    for raw in raws {
        let t0 = now()
        let p = try prepare(
            Source(raw), cropW: cropW, cropH: cropH, tenBit: settings.contains { $0.variant.depth == 10 })
        let note = try imageNote(p)
        comments.removeAll { $0.hasPrefix("# image \(p.name):") }
        comments.append(note)
        log(String(format: "%@: prepared in %.1f s (%@)", p.name, now() - t0, String(note.dropFirst(2))))
        for s in settings {
            let r = try encodeRow(p, preset: s.preset, variant: s.variant, quality: s.quality)
            rows.append(r)
            log(
                String(
                    format: "  %@ %@ q%d: %.3f bpp, %.2f s, SSIM-Y %.5f / %.5f, view %.5f / %.5f (loss %.4f / %.4f)",
                    s.preset, s.variant.text, s.quality, r.bitsPerPixel, r.encodeSeconds, r.ssimMean, r.ssimWorst,
                    r.viewMean, r.viewWorst, r.viewLossMean, r.viewLossWorst))
        }
    }
    func key(_ r: LadderRow) -> String { "\(r.image)\t\(r.preset)\t\(r.variant)\t\(r.quality)" }
    let measured = Set(rows.map(key))
    let all = kept.filter { !measured.contains(key($0)) } + rows
    let order = Dictionary(uniqueKeysWithValues: allPresets.enumerated().map { ($1, $0) })
    let sorted = all.sorted {
        ($0.image, order[$0.preset] ?? 99, $0.variant, $0.quality)
            < ($1.image, order[$1.preset] ?? 99, $1.variant, $1.quality)
    }
    var text = """
        # Readback quality ladder : docs/quality-ladder.md explains the columns and the rule.
        # Written by `readback-ladder run` (make ladder). Readback \(readbackVersion); libheif \(Heif.version); x265 \(x265Version()).
        # Machine: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores (shared; encode_s is one wall-clock run).
        # Encode: HeifCodec, 8-bit RGB → YCbCr 4:2:0 (matrix 6, full range), x265 preset × variant (tune, x265 options, pre-encode denoise); bytes = the coded HEVC item.
        # Archival: SSIM-Y and PSNR against HEICConverter.renditions SDR (float, sRGB transfer) of the file itself, 1:1.
        # Viewing: SSIM-Y after a 2×2 box downscale against the clean twin's render (the file's own for real files); view_frame_* = the unencoded 8-bit frame's.

        """
    text += comments.sorted().joined(separator: "\n") + "\n"
    text += Ladder.columns.joined(separator: "\t") + "\n"
    text += sorted.map(Ladder.line).joined(separator: "\n") + "\n"
    try writeFile(Array(text.utf8), to: out)
    log(String(format: "wrote %@ (%d rows) in %.0f s", out, sorted.count, now() - started))
    // Choose from the data as written (rounded), exactly as the tests will.
    try summarize(Ladder.parse(text))
}

// MARK: - shipped

func shipped(_ raws: [String], options: [String: String]) throws {
    let (cropW, cropH) = cropSize(options)
    var o = ConvertOptions()
    if let t = options["target"] {
        guard let target = EncodingTarget(rawValue: t) else {
            fail("--target takes \(EncodingTarget.allCases.map(\.rawValue).joined(separator: "|")), got '\(t)'")
        }
        target.apply(to: &o)
    }
    if let q = options["quality"] {
        guard let v = Int(q), (0...100).contains(v) else { fail("--quality takes 0…100, got '\(q)'") }
        o.quality = v
    }
    if let s = options["speed"] { o.speed = s }
    if let t = options["tile-size"] {
        guard let v = Int(t) else { fail("--tile-size takes a number, got '\(t)'") }
        o.tileSize = v
    }
    o.bitDepth = 8
    if let problem = o.validationProblem() { fail(problem) }
    guard !raws.isEmpty else { fail("shipped needs at least one RAW") }
    print("preset \(o.speed), quality \(o.quality), 8-bit \(o.chroma.rawValue), tile size \(o.tileSize)")
    for raw in raws {
        let source = Source(raw)
        let p = try prepare(source, cropW: cropW, cropH: cropH)
        let t0 = now()
        let out = try HEICConverter.convert(source: URL(fileURLWithPath: source.path), options: o, decoders: .inProcess)
        let seconds = now() - t0
        let m = try measureCrop(p, HeifDecoder.decodePrimary(out.bytes, format: .rgb8), what: p.name)
        print(
            String(
                format:
                    "%@: %d bytes (%.3f bit/px over %dx%d, %.3f× the RAW), convert %.2f s; crop SSIM-Y %.5f / worst %.5f, PSNR-Y %.2f dB; viewing %.5f / %.5f (frame %.5f / %.5f)",
                p.name, out.bytes.count, Double(out.bytes.count * 8) / Double(p.fullWidth * p.fullHeight), p.fullWidth,
                p.fullHeight, out.result.sizeRatio, seconds, m.ssim.mean, m.ssim.worstBlock, m.psnrY, m.view.mean,
                m.view.worstBlock, p.viewFrame.mean, p.viewFrame.worstBlock))
    }
}

// MARK: - compare

func compare(_ args: [String], options: [String: String]) throws {
    guard args.count >= 2 else {
        fail("usage: readback-ladder compare RAW[=CLEAN.dng] FILE.heic... [--crop WxH|full]")
    }
    let (cropW, cropH) = cropSize(options)
    let p = try prepare(Source(args[0]), cropW: cropW, cropH: cropH)
    for path in args.dropFirst() {
        guard let file = FileManager.default.contents(atPath: path) else { throw Failure("\(path): cannot read") }
        let m = try measureCrop(p, HeifDecoder.decodePrimary(Array(file), format: .rgb8), what: path)
        print(
            String(
                format:
                    "{\"file\":\"%@\",\"bytes\":%d,\"crop\":[%d,%d,%d,%d],\"ssim_y_mean\":%.5f,\"ssim_y_worst_block\":%.5f,\"worst_block_at\":[%d,%d],\"psnr_y\":%.3f,\"psnr_rgb\":%.3f,\"view_ssim_y_mean\":%.5f,\"view_ssim_y_worst_block\":%.5f,\"view_frame_mean\":%.5f,\"view_frame_worst_block\":%.5f,\"view_reference\":\"%@\"}",
                (path as NSString).lastPathComponent, file.count, p.cropX, p.cropY, p.width, p.height, m.ssim.mean,
                m.ssim.worstBlock, p.cropX + m.ssim.worstBlockX, p.cropY + m.ssim.worstBlockY, m.psnrY, m.psnrRGB,
                m.view.mean, m.view.worstBlock, p.viewFrame.mean, p.viewFrame.worstBlock, p.cleanName ?? "own render"))
    }
}

// MARK: - choose

func summarize(_ rows: [LadderRow]) throws {
    let images = Array(Set(rows.map(\.image))).sorted()
    print("images: \(images.joined(separator: ", "))")
    for (name, t) in [
        ("visually-lossless", Ladder.visuallyLossless), ("archival", Ladder.archival), ("small", Ladder.small),
    ] {
        let rule =
            t.measure == .viewing
            ? String(format: "viewing-size loss ≤ %.3f mean, ≤ %.3f every block", 1 - t.minMean, 1 - t.minWorst)
            : String(format: "1:1 SSIM-Y mean ≥ %.3f, every block ≥ %.3f", t.minMean, t.minWorst)
        guard let c = Ladder.choose(rows, threshold: t) else {
            print("\(name) (\(rule)): no setting passes on every image")
            continue
        }
        print(
            String(
                format:
                    "%@ (%@): preset %@ %@ q%d — %.3f bpp (%.2f MB per 24 MP), %.3f s/MP; lowest 1:1 mean %.5f / worst %.5f; largest viewing loss %.5f / %.5f",
                name, rule, c.preset, c.variant, c.quality, c.meanBitsPerPixel, c.meanBitsPerPixel * 24e6 / 8e6,
                c.meanSecondsPerMegapixel, c.lowestMean, c.lowestWorst, c.largestViewLossMean,
                c.largestViewLossWorst))
        for r in rows where r.preset == c.preset && r.variant == c.variant && r.quality == c.quality {
            print(
                String(
                    format: "    %@: %.3f bpp, SSIM-Y %.5f / worst %.5f, PSNR-Y %.2f dB, view loss %.5f / %.5f, %.2f s",
                    r.image, r.bitsPerPixel, r.ssimMean, r.ssimWorst, r.psnrY, r.viewLossMean, r.viewLossWorst,
                    r.encodeSeconds))
        }
    }
}

// MARK: - main

let argv = CommandLine.arguments
guard argv.count >= 2 else {
    fail(
        "usage: readback-ladder run RAW[=CLEAN]... [--out TSV] [--crop WxH] [--presets ..] [--variants V;V..] [--qualities ..] [--settings P:Q:V;..] [--merge] | shipped RAW[=CLEAN]... [--target NAME] [--quality Q] [--speed PRESET] | compare RAW[=CLEAN] FILE.heic... [--crop WxH|full] | choose [TSV] | defaults | frame SRC OUT.ppm [--depth 8|10] [--crop WxH]"
    )
}
let (positionals, options) = parse(argv[2...])
do {
    switch argv[1] {
    case "frame":
        guard positionals.count == 2 else {
            fail("usage: readback-ladder frame SRC OUT.ppm [--depth 8|10] [--crop WxH]")
        }
        var depth: Int?
        if let d = options["depth"] {
            guard d == "8" || d == "10" else { fail("--depth takes 8 or 10, got '\(d)'") }
            depth = Int(d)
        }
        try writeFrame(
            source: positionals[0], out: positionals[1], depth: depth,
            crop: options["crop"] == nil ? nil : cropSize(options))
    case "run":
        try run(positionals, options: options)
    case "shipped":
        try shipped(positionals, options: options)
    case "noisy":
        try noisyCrops(positionals, options: options)
    case "steps":
        try steps(positionals, options: options)
    case "compare":
        try compare(positionals, options: options)
    case "effort":
        try effort(positionals, options: options)
    case "noise":
        // The noise σ of each RAW's frame and the quality `convert` gives it by default (make bench encodes its crops
        // with it), one JSON line per RAW; with --out, also a TSV of the quality the visually-lossless target's rule
        // gives it, whatever the effort (docs/quality-ladder-noise.tsv, checked by FidelityTests against the ladder).
        guard !positionals.isEmpty else { fail("usage: readback-ladder noise RAW... [--out TSV]") }
        var tsv =
            "# The noise of each ladder image's whole frame as `readback convert` measures it (NoiseLevel) and the\n"
        tsv += "# quality the visually-lossless target gives it. Written by `readback-ladder noise` (make ladder).\n"
        tsv += "image\tsigma\tquality\n"
        for p in positionals {
            let raw = p.split(separator: "=").first.map(String.init) ?? p
            let n = try HEICConverter.noise(of: URL(fileURLWithPath: raw), decoders: .inProcess)
            let name = (raw as NSString).lastPathComponent
            let sigma = n.sigma.map { String(format: "%.2f", $0) } ?? "-"
            print(
                "{\"image\":\"\(name)\",\"sigma\":\(n.sigma.map { String(format: "%.2f", $0) } ?? "null"),\"quality\":\(n.quality)}"
            )
            let target = NoiseLevel.quality(base: EncodingTarget.visuallyLossless.quality, sigma: n.sigma)
            tsv += "\(name)\t\(sigma)\t\(target)\n"
        }
        if let out = options["out"] { try writeFile(Array(tsv.utf8), to: out) }
    case "defaults":
        // The converter's default encoder setting in the ladder's terms (make bench encodes its crops with it).
        let o = ConvertOptions()
        let variant =
            ([Ladder.defaultVariant] + o.x265Options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: ",")
        print("{\"preset\":\"\(o.speed)\",\"quality\":\(o.quality),\"variant\":\"\(variant)\"}")
    case "choose":
        let path = positionals.first ?? "docs/quality-ladder.tsv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("\(path): cannot read") }
        try summarize(Ladder.parse(text))
    default:
        fail("unknown mode '\(argv[1])': run, shipped, compare, choose, defaults, noise, noisy, steps, effort or frame")
    }
} catch {
    fail("\(error)")
}
