import ColorScience
import Converter
import Fidelity
import Foundation
import GainMap
import HEIF
import HeifCodec

// readback-ladder: the quality ladder (docs/quality-ladder.md) and the benchmark's frame writer.
//
//   readback-ladder run RAW... [--out TSV] [--crop WxH] [--presets a,b,..] [--qualities 40,50,..] [--merge]
//       Renders each RAW with the converter, crops a centred region, encodes it with HeifCodec (x265 through
//       libheif) at every preset × quality, decodes it and measures SSIM-Y (mean, worst 64×64 block), PSNR and
//       size against the float render. Writes the TSV (default docs/quality-ladder.tsv) and prints the choices.
//       --merge keeps the TSV's other rows and replaces only the (image, preset, quality) rows measured now.
//   readback-ladder choose [TSV]
//       Prints the rule's choices from a TSV, without encoding anything.
//   readback-ladder shipped RAW... [--quality Q] [--speed PRESET] [--target NAME] [--tile-size N] [--crop WxH]
//       Converts each RAW with HEICConverter.convert (everything `readback convert` writes: tiling, gain map,
//       metadata), decodes the file's primary with libheif and measures the same crop against the float render: the
//       fidelity users get, as opposed to the ladder's bare encodes.
//   readback-ladder compare RAW FILE.heic... [--crop WxH|full]
//       Measures each HEIC's primary (any encoder's, e.g. heif-enc on the `frame` PPM) on the same crop and with the
//       same metric as `run` and `shipped`: SSIM-Y (mean, worst 64×64 block) and PSNR against RAW's float render.
//       The primary must have the render's size. Prints one JSON object per file (make bench's fidelity match).
//   readback-ladder frame SRC OUT.ppm [--depth 8|10]
//       Writes the exact frame `readback convert` encodes as its primary (HEICConverter.renderedFrame) as binary PPM:
//       P6, maxval 255 (8-bit) or 1023 with 16-bit big-endian samples (10-bit). Default depth: the converter's.

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

func writeFrame(source: String, out: String, depth: Int?) throws {
    var o = ConvertOptions()
    if let depth { o.bitDepth = depth }
    let frame = try HEICConverter.renderedFrame(of: URL(fileURLWithPath: source), options: o)
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

// MARK: - run

/// sRGB transfer (IEC 61966-2-1) clipped to 0…1, as the converter's renderer applies it.
func srgbEncode(_ v: Float) -> Float { SRGBTransfer.encode(min(1, max(0, v))) }

/// One image prepared for the ladder: the cropped 8-bit frame and the float reference.
struct Prepared {
    var name: String
    var width: Int
    var height: Int
    var frame: HeifPixels
    /// Interleaved non-linear RGB in [0, 1] of the float render (the reference).
    var referenceRGB: [Float]
    var referenceLuma: Plane
    var ssimReference: SSIM.Reference
    var fullWidth: Int
    var fullHeight: Int
    var cropX: Int
    var cropY: Int
}

func prepare(_ path: String, cropW: Int, cropH: Int) throws -> Prepared {
    let url = URL(fileURLWithPath: path)
    var o = ConvertOptions()
    o.bitDepth = 8
    let frame = try HEICConverter.renderedFrame(of: url, options: o)
    guard case .rgb8(let fw, let fh, let samples) = frame else { throw Failure("\(path): expected an 8-bit frame") }
    // Even sizes and offsets, so 4:2:0 chroma sites line up with the full frame's.
    let w = min(cropW, fw) & ~1
    let h = min(cropH, fh) & ~1
    let x0 = ((fw - w) / 2) & ~1
    let y0 = ((fh - h) / 2) & ~1
    var crop = [UInt8](repeating: 0, count: w * h * 3)
    for r in 0..<h {
        let src = ((y0 + r) * fw + x0) * 3
        for k in 0..<(w * 3) { crop[r * w * 3 + k] = samples[src + k] }
    }
    let rend = try HEICConverter.renditions(of: url, options: o)
    guard rend.sdr.width == fw, rend.sdr.height == fh, rend.sdr.channels == 3 else {
        throw Failure("\(path): renditions (\(rend.sdr.width)×\(rend.sdr.height)) and frame (\(fw)×\(fh)) differ")
    }
    let n = fw * fh
    var ref = [Float](repeating: 0, count: w * h * 3)
    rend.sdr.pixels.withUnsafeBufferPointer { p in
        for r in 0..<h {
            for c in 0..<w {
                let i = (y0 + r) * fw + x0 + c
                let j = 3 * (r * w + c)
                ref[j] = srgbEncode(p[i])
                ref[j + 1] = srgbEncode(p[n + i])
                ref[j + 2] = srgbEncode(p[2 * n + i])
            }
        }
    }
    let luma = try Luma.plane(rgb: ref, width: w, height: h)
    return Prepared(
        name: url.lastPathComponent, width: w, height: h, frame: .rgb8(width: w, height: h, samples: crop),
        referenceRGB: ref, referenceLuma: luma, ssimReference: try SSIM.Reference(luma), fullWidth: fw,
        fullHeight: fh, cropX: x0, cropY: y0)
}

/// Measures decoded 8-bit interleaved RGB against the prepared reference.
func measure(_ p: Prepared, decoded: [UInt16]) throws -> (ssim: SSIMResult, psnrY: Double, psnrRGB: Double) {
    let luma = try Luma.plane(rgb: decoded, width: p.width, height: p.height, maxCode: 255)
    let s = try SSIM.compare(p.ssimReference, luma)
    let py = try PSNR.decibels(p.referenceLuma.values, luma.values)
    let prgb = try PSNR.decibels(p.referenceRGB, decoded.map { Float($0) / 255 })
    return (s, py, prgb)
}

/// Measures a decoded full-size primary on the prepared crop; `what` names the file in the size-mismatch error.
func measureCrop(_ p: Prepared, _ dec: HeifDecodedImage, what: String) throws -> (
    ssim: SSIMResult, psnrY: Double, psnrRGB: Double
) {
    guard dec.width == p.fullWidth, dec.height == p.fullHeight, dec.channels == 3 else {
        throw Failure(
            "\(what): primary is \(dec.width)×\(dec.height)×\(dec.channels), the render \(p.fullWidth)×\(p.fullHeight)×3"
        )
    }
    var crop = [UInt16](repeating: 0, count: p.width * p.height * 3)
    for r in 0..<p.height {
        let src = ((p.cropY + r) * dec.width + p.cropX) * 3
        for k in 0..<(p.width * 3) { crop[r * p.width * 3 + k] = dec.samples[src + k] }
    }
    return try measure(p, decoded: crop)
}

func encodeRow(_ p: Prepared, preset: String, quality: Int) throws -> LadderRow {
    let settings = HeifEncodeSettings(
        quality: quality, bitDepth: 8, chroma: .yuv420, preset: preset, nclx: .displayP3)
    let t0 = now()
    let file = try HeifEncoder.encode(p.frame, settings: settings)
    let seconds = now() - t0
    let parsed = HEIFFile(bytes: file)
    guard let id = parsed.primaryItemID, let data = parsed.payload(of: id) else {
        throw Failure("\(p.name): libheif wrote no primary item at \(preset) q\(quality)")
    }
    let dec = try HeifDecoder.decodePrimary(file, format: .rgb8)
    guard dec.width == p.width, dec.height == p.height, dec.channels == 3 else {
        throw Failure("\(p.name): decoded \(dec.width)×\(dec.height)×\(dec.channels), encoded \(p.width)×\(p.height)")
    }
    let m = try measure(p, decoded: dec.samples)
    return LadderRow(
        image: p.name, width: p.width, height: p.height, preset: preset, quality: quality, bytes: data.count,
        encodeSeconds: seconds, ssimMean: m.ssim.mean, ssimWorst: m.ssim.worstBlock, psnrY: m.psnrY,
        psnrRGB: m.psnrRGB)
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

func run(_ raws: [String], options: [String: String]) throws {
    let out = options["out"] ?? "docs/quality-ladder.tsv"
    let (cropW, cropH) = cropSize(options)
    let presets = options["presets"].map { $0.split(separator: ",").map(String.init) } ?? allPresets
    for p in presets where !HeifEncodeSettings.presets.contains(p) {
        fail("unknown preset '\(p)'; presets: \(HeifEncodeSettings.presets.joined(separator: ", "))")
    }
    let qualities =
        try options["qualities"].map { s in
            try s.split(separator: ",").map { q -> Int in
                guard let v = Int(q), (0...100).contains(v) else { throw Failure("--qualities: '\(q)' is not 0…100") }
                return v
            }
        } ?? allQualities
    guard !raws.isEmpty else { fail("run needs at least one RAW") }

    var kept: [LadderRow] = []
    var comments: [String] = []
    if options["merge"] != nil, let text = try? String(contentsOfFile: out, encoding: .utf8) {
        kept = try Ladder.parse(text)
        comments = text.split(separator: "\n").filter { $0.hasPrefix("# image ") }.map(String.init)
    }
    var rows: [LadderRow] = []
    let started = now()
    for path in raws {
        let t0 = now()
        let p = try prepare(path, cropW: cropW, cropH: cropH)
        guard case .rgb8(_, _, let frameSamples) = p.frame else { throw Failure("unreachable") }
        let q = try measure(p, decoded: frameSamples.map { UInt16($0) })
        let note = String(
            format:
                "# image %@: %dx%d, crop %dx%d at (%d,%d); 8-bit frame alone (no HEVC): SSIM-Y mean %.6f worst %.6f, PSNR-Y %.2f dB",
            p.name, p.fullWidth, p.fullHeight, p.width, p.height, p.cropX, p.cropY, q.ssim.mean, q.ssim.worstBlock,
            q.psnrY)
        comments.removeAll { $0.hasPrefix("# image \(p.name):") }
        comments.append(note)
        log(String(format: "%@: prepared in %.1f s (%@)", p.name, now() - t0, String(note.dropFirst(2))))
        for preset in presets {
            for quality in qualities {
                let r = try encodeRow(p, preset: preset, quality: quality)
                rows.append(r)
                log(
                    String(
                        format: "  %@ q%d: %.3f bpp, %.2f s, SSIM-Y %.5f / worst %.5f, PSNR-Y %.2f dB", preset, quality,
                        r.bitsPerPixel, r.encodeSeconds, r.ssimMean, r.ssimWorst, r.psnrY))
            }
        }
    }
    let measured = Set(rows.map { "\($0.image)\t\($0.preset)\t\($0.quality)" })
    let all = kept.filter { !measured.contains("\($0.image)\t\($0.preset)\t\($0.quality)") } + rows
    let order = Dictionary(uniqueKeysWithValues: allPresets.enumerated().map { ($1, $0) })
    let sorted = all.sorted {
        ($0.image, order[$0.preset] ?? 99, $0.quality) < ($1.image, order[$1.preset] ?? 99, $1.quality)
    }
    var text = """
        # Readback quality ladder: docs/quality-ladder.md explains the columns and the rule.
        # Written by `readback-ladder run` (make ladder). Readback \(readbackVersion); libheif \(Heif.version); x265 \(x265Version()).
        # Machine: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores (shared; encode_s is one wall-clock run).
        # Encode: HeifCodec, 8-bit RGB → YCbCr 4:2:0 (matrix 6, full range), x265 tune ssim; bytes = the coded HEVC item.
        # Reference: HEICConverter.renditions SDR (float, sRGB transfer); SSIM-Y and PSNR on BT.709 luma of the decoded RGB.

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
    for path in raws {
        let p = try prepare(path, cropW: cropW, cropH: cropH)
        let t0 = now()
        let out = try HEICConverter.convert(source: URL(fileURLWithPath: path), options: o)
        let seconds = now() - t0
        let m = try measureCrop(p, HeifDecoder.decodePrimary(out.bytes, format: .rgb8), what: p.name)
        print(
            String(
                format:
                    "%@: %d bytes (%.3f bit/px over %dx%d, %.3f× the RAW), convert %.2f s; crop SSIM-Y %.5f / worst %.5f, PSNR-Y %.2f dB",
                p.name, out.bytes.count, Double(out.bytes.count * 8) / Double(p.fullWidth * p.fullHeight), p.fullWidth,
                p.fullHeight, out.result.sizeRatio, seconds, m.ssim.mean, m.ssim.worstBlock, m.psnrY))
    }
}

// MARK: - compare

func compare(_ args: [String], options: [String: String]) throws {
    guard args.count >= 2 else { fail("usage: readback-ladder compare RAW FILE.heic... [--crop WxH|full]") }
    let (cropW, cropH) = cropSize(options)
    let p = try prepare(args[0], cropW: cropW, cropH: cropH)
    for path in args.dropFirst() {
        guard let file = FileManager.default.contents(atPath: path) else { throw Failure("\(path): cannot read") }
        let m = try measureCrop(p, HeifDecoder.decodePrimary(Array(file), format: .rgb8), what: path)
        print(
            String(
                format:
                    "{\"file\":\"%@\",\"bytes\":%d,\"crop\":[%d,%d,%d,%d],\"ssim_y_mean\":%.5f,\"ssim_y_worst_block\":%.5f,\"worst_block_at\":[%d,%d],\"psnr_y\":%.3f,\"psnr_rgb\":%.3f}",
                (path as NSString).lastPathComponent, file.count, p.cropX, p.cropY, p.width, p.height, m.ssim.mean,
                m.ssim.worstBlock, p.cropX + m.ssim.worstBlockX, p.cropY + m.ssim.worstBlockY, m.psnrY, m.psnrRGB))
    }
}

// MARK: - choose

func summarize(_ rows: [LadderRow]) throws {
    let images = Array(Set(rows.map(\.image))).sorted()
    print("images: \(images.joined(separator: ", "))")
    let base = rows.filter { $0.preset == "medium" && $0.quality == 75 }
    let baseBpp = base.isEmpty ? nil : base.map(\.bitsPerPixel).reduce(0, +) / Double(base.count)
    let baseSpm = base.isEmpty ? nil : base.map(\.secondsPerMegapixel).reduce(0, +) / Double(base.count)
    for (name, t) in [
        ("visually-lossless", Ladder.visuallyLossless), ("archival", Ladder.archival), ("small", Ladder.small),
    ] {
        guard let c = Ladder.choose(rows, threshold: t) else {
            print("\(name): no setting meets mean ≥ \(t.minMean), worst ≥ \(t.minWorst) on every image")
            continue
        }
        var line = String(
            format:
                "%@ (mean ≥ %.3f, worst ≥ %.3f): preset %@ q%d — %.3f bpp (%.2f MB per 24 MP), %.3f s/MP, lowest mean %.5f, lowest worst %.5f",
            name, t.minMean, t.minWorst, c.preset, c.quality, c.meanBitsPerPixel, c.meanBitsPerPixel * 24e6 / 8e6,
            c.meanSecondsPerMegapixel, c.lowestMean, c.lowestWorst)
        if let baseBpp, let baseSpm {
            line += String(
                format: "; vs medium q75: size ×%.2f, encode time ×%.2f", c.meanBitsPerPixel / baseBpp,
                c.meanSecondsPerMegapixel / baseSpm)
        }
        print(line)
        for r in rows where r.preset == c.preset && r.quality == c.quality {
            print(
                String(
                    format: "    %@: %.3f bpp, SSIM-Y %.5f / worst %.5f, PSNR-Y %.2f dB, %.2f s", r.image,
                    r.bitsPerPixel,
                    r.ssimMean, r.ssimWorst, r.psnrY, r.encodeSeconds))
        }
    }
}

// MARK: - main

let argv = CommandLine.arguments
guard argv.count >= 2 else {
    fail(
        "usage: readback-ladder run RAW... [--out TSV] [--crop WxH] [--presets ..] [--qualities ..] [--merge] | shipped RAW... [--target NAME] [--quality Q] [--speed PRESET] | compare RAW FILE.heic... [--crop WxH|full] | choose [TSV] | frame SRC OUT.ppm [--depth 8|10]"
    )
}
let (positionals, options) = parse(argv[2...])
do {
    switch argv[1] {
    case "frame":
        guard positionals.count == 2 else { fail("usage: readback-ladder frame SRC OUT.ppm [--depth 8|10]") }
        var depth: Int?
        if let d = options["depth"] {
            guard d == "8" || d == "10" else { fail("--depth takes 8 or 10, got '\(d)'") }
            depth = Int(d)
        }
        try writeFrame(source: positionals[0], out: positionals[1], depth: depth)
    case "run":
        try run(positionals, options: options)
    case "shipped":
        try shipped(positionals, options: options)
    case "compare":
        try compare(positionals, options: options)
    case "choose":
        let path = positionals.first ?? "docs/quality-ladder.tsv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("\(path): cannot read") }
        try summarize(Ladder.parse(text))
    default:
        fail("unknown mode '\(argv[1])': run, shipped, compare, choose or frame")
    }
} catch {
    fail("\(error)")
}
