import ColorScience
import Converter
import Fidelity
import Foundation
import HEIF
import HeifCodec

// The effort ladder's measure (docs/quality-ladder.md "Effort"): size at fixed fidelity for Readback's encoder
// settings as the converter codes them (tiles, one x265 thread per tile) and for heif-enc at its defaults, every
// encode judged against the same reference: the frame's encode at the archival target's setting, compared at viewing
// size (SSIM-Y after a 2×2 box downscale: mean and worst 64×64 block), as `steps` judges the noise steps.

/// One measured encode of the effort table.
struct EffortRow {
    var image: String
    var encoder: String
    var setting: String
    var bytes: Int
    var bpp: Double
    var wallSeconds: Double
    var cpuSeconds: Double
    var mean: Double
    var worst: Double

    var line: String {
        String(
            format: "%@\t%@\t%@\t%d\t%.4f\t%.2f\t%.2f\t%.6f\t%.6f", image, encoder, setting, bytes, bpp, wallSeconds,
            cpuSeconds, mean, worst)
    }

    static let header = "image\tencoder\tsetting\tbytes\tbpp\twall_s\tcpu_s\tview_arch_mean\tview_arch_worst64"
}

/// CPU seconds (user + system) of this process and of its reaped children.
func cpuSeconds() -> (own: Double, children: Double) {
    func seconds(_ who: __rusage_who) -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(who.rawValue), &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
    return (seconds(RUSAGE_SELF), seconds(RUSAGE_CHILDREN))
}

/// The luma plane (in [0, 1]) of a decoded primary.
func lumaPlane(_ dec: HeifDecodedImage) throws -> Plane {
    try Luma.plane(rgb: dec.samples, width: dec.width, height: dec.height, maxCode: (1 << dec.bitDepth) - 1)
}

/// Codes `frame` as the converter does: tiles of `tile` px (0 = untiled), each edge-replicated to full size and coded
/// by its own libheif/x265 encoder with one thread, as many tiles at once as there are cores; returns the summed HEVC
/// payload bytes and the decoded luma. The caller's CPU seconds (the process's, every thread) are the encodes' own.
func tiledEncode(_ frame: HeifPixels, settings: HeifEncodeSettings, tile: Int) throws -> (bytes: Int, luma: Plane) {
    let w = frame.width
    let h = frame.height
    let t = codesWhole(frame, tile: tile) ? 0 : tile
    let tw = t > 0 ? t : w
    let th = t > 0 ? t : h
    let origins = stride(from: 0, to: h, by: th).flatMap { ty in stride(from: 0, to: w, by: tw).map { (ty, $0) } }
    var luma = [Float](repeating: 0, count: w * h)
    var counts = [Result<Int, any Error>](repeating: .success(0), count: origins.count)
    luma.withUnsafeMutableBufferPointer { lumaBuffer in
        counts.withUnsafeMutableBufferPointer { countBuffer in
            // Each tile writes its own rows of its own columns of the luma, and its own count.
            let out = UnsafeSendable(lumaBuffer)
            let results = UnsafeSendable(countBuffer)
            Parallel.forEach(origins.count) { i in
                let (ty, tx) = origins[i]
                results.value[i] = Result {
                    let px = t > 0 ? tilePixels(frame, x0: tx, y0: ty, tw: tw, th: th) : frame
                    let file = try HeifEncoder.encode(px, settings: settings, threads: t > 0 ? 1 : nil)
                    let plane = try lumaPlane(HeifDecoder.decodePrimary(file, format: .rgbNative))
                    for y in 0..<min(th, h - ty) {
                        for x in 0..<min(tw, w - tx) { out.value[(ty + y) * w + tx + x] = plane.values[y * tw + x] }
                    }
                    return HEIFFileBytes.payloadCount(file)
                }
            }
        }
    }
    let bytes = try counts.reduce(0) { try $0 + $1.get() }
    return (bytes, try Plane(width: w, height: h, values: luma))
}

/// One tile of an interleaved RGB frame, its right and bottom edges replicated past the frame.
func tilePixels(_ frame: HeifPixels, x0: Int, y0: Int, tw: Int, th: Int) -> HeifPixels {
    func cut<T>(_ s: [T], _ w: Int, _ h: Int) -> [T] {
        var out: [T] = []
        out.reserveCapacity(tw * th * 3)
        for y in 0..<th {
            let sy = min(h - 1, y0 + y)
            for x in 0..<tw {
                let i = 3 * (sy * w + min(w - 1, x0 + x))
                out += s[i..<(i + 3)]
            }
        }
        return out
    }
    switch frame {
    case .rgb8(let w, let h, let s): return .rgb8(width: tw, height: th, samples: cut(s, w, h))
    case .rgb16(let w, let h, let b, let s): return .rgb16(width: tw, height: th, bitDepth: b, samples: cut(s, w, h))
    case .mono8: return frame
    }
}

/// Whether `tiledEncode` codes `frame` as one picture with tiles of side `tile` (0: untiled).
func codesWhole(_ frame: HeifPixels, tile: Int) -> Bool {
    tile == 0 || (frame.width <= tile && frame.height <= tile)
}

/// Size of the coded HEVC item of a small HEIF written by libheif (its primary's payload).
enum HEIFFileBytes {
    static func payloadCount(_ file: [UInt8]) -> Int {
        let parsed = HEIFFile(bytes: file)
        guard let id = parsed.primaryItemID, let data = parsed.payload(of: id) else { return file.count }
        return data.count
    }
}

/// Runs a program, waits, and fails on a non-zero exit.
func runTool(_ path: String, _ args: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw Failure("\(path) \(args.joined(separator: " ")) failed") }
}

/// `readback-ladder effort RAW... [--crop WxH|full] [--settings P:Q:V;..] [--heif-enc Q,Q..] [--out TSV]`: each
/// RAW's frame crop coded at every Readback setting (a variant may add `depth=10` and `tile=N`, default the
/// converter's tiling of the whole frame) and by heif-enc at each quality (its defaults: preset slow), each judged at
/// viewing size against the crop's archival encode; one TSV row per encode on stdout, appended to --out.
func effort(_ raws: [String], options: [String: String]) throws {
    guard !raws.isEmpty else { fail("usage: readback-ladder effort RAW... [--settings P:Q:V;..] [--heif-enc Q,..]") }
    let (cw, ch) = cropSize(options)
    let settings = options["settings"] == nil ? [] : try grid(options)
    let heifQualities = options["heif-enc"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
    let archival = EncodingTarget.archival
    let archivalVariant = try Variant(archival.variant)
    let tmp = NSTemporaryDirectory() + "readback-effort-\(getpid())"
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: tmp) }
    var lines: [String] = []
    func emit(_ r: EffortRow) {
        FileHandle.standardOutput.write(Data((r.line + "\n").utf8))
        lines.append(r.line)
    }
    for raw in raws {
        let url = URL(fileURLWithPath: raw)
        let name = url.lastPathComponent
        var frames: [Int: HeifPixels] = [:]
        var defaultTile = HEICConverter.defaultTileSize
        func frame(depth: Int) throws -> HeifPixels {
            if let f = frames[depth] { return f }
            var o = ConvertOptions()
            o.bitDepth = depth
            let whole = try HEICConverter.renderedFrame(of: url, options: o, decoders: .inProcess)
            // The converter's tiling of the whole frame (one picture within HEVC level 4.1), whatever the crop.
            defaultTile = o.primaryTileSize(width: whole.width, height: whole.height)
            let f = cropped(whole, cropW: cw, cropH: ch)
            frames[depth] = f
            return f
        }
        let f8 = try frame(depth: 8)
        let pixels = Double(f8.width * f8.height)
        let archivalFile = try HeifEncoder.encode(
            f8, settings: archivalVariant.settings(preset: archival.preset, quality: archival.quality))
        let reference = try ViewingSize.Reference(lumaPlane(HeifDecoder.decodePrimary(archivalFile, format: .rgb8)))
        log(
            String(
                format: "%@: %dx%d crop, archival %.3f bit/px", name, f8.width, f8.height,
                Double(archivalFile.count * 8) / pixels))
        for s in settings {
            let v = s.variant
            let px = try frame(depth: v.depth)
            let t0 = now()
            let c0 = cpuSeconds().own
            let tile = v.tile ?? defaultTile
            let (bytes, luma) = try tiledEncode(
                px, settings: v.settings(preset: s.preset, quality: s.quality, untiled: codesWhole(px, tile: tile)),
                tile: tile)
            let wall = now() - t0
            let cpu = cpuSeconds().own - c0
            let m = try ViewingSize.compare(reference, luma)
            emit(
                EffortRow(
                    image: name, encoder: "readback", setting: "\(s.preset):\(s.quality):\(v.text)", bytes: bytes,
                    bpp: Double(bytes * 8) / pixels, wallSeconds: wall, cpuSeconds: cpu, mean: m.mean,
                    worst: m.worstBlock))
        }
        guard !heifQualities.isEmpty else { continue }
        for r in try heifEncRows(f8, name: name, qualities: heifQualities, reference: reference, dir: tmp) { emit(r) }
    }
    if let out = options["out"] {
        let old = (try? String(contentsOfFile: out, encoding: .utf8)) ?? (EffortRow.header + "\n")
        try writeFile(Array((old + lines.map { $0 + "\n" }.joined()).utf8), to: out)
    }
}

/// heif-enc (its defaults: preset slow, tune ssim, 4:2:0) on the 8-bit frame's PNG at each quality, each decode judged
/// at viewing size against `reference`; CPU seconds are those of the heif-enc process (all its threads).
func heifEncRows(
    _ frame: HeifPixels, name: String, qualities: [Int], reference: ViewingSize.Reference, dir: String
) throws -> [EffortRow] {
    let ppm = "\(dir)/frame.ppm"
    let png = "\(dir)/frame.png"
    guard case .rgb8(let w, let h, let s) = frame else { throw Failure("\(name): not an 8-bit RGB frame") }
    try writeFile(Array("P6\n\(w) \(h)\n255\n".utf8) + s, to: ppm)
    // 8-bit RGB whatever the colours: heif-enc 1.15 reads a 1- to 4-bit palette PNG scrambled (docs/platform.md).
    try runTool("/usr/bin/env", ["convert", ppm, "PNG24:" + png])
    var rows: [EffortRow] = []
    for q in qualities {
        let out = "\(dir)/heif-enc-q\(q).heic"
        let t0 = now()
        let c0 = cpuSeconds().children
        try runTool("/usr/bin/heif-enc", ["-q", "\(q)", png, "-o", out])
        let wall = now() - t0
        let cpu = cpuSeconds().children - c0
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        let m = try ViewingSize.compare(reference, lumaPlane(HeifDecoder.decodePrimary(file, format: .rgb8)))
        let bytes = HEIFFileBytes.payloadCount(file)
        rows.append(
            EffortRow(
                image: name, encoder: "heif-enc", setting: "slow:\(q)", bytes: bytes,
                bpp: Double(bytes * 8) / Double(w * h), wallSeconds: wall, cpuSeconds: cpu, mean: m.mean,
                worst: m.worstBlock))
    }
    return rows
}
