import ColorScience
import Converter
import CorpusKit
import Fidelity
import Foundation
import HeifCodec
import RawDecoder

// The noise steps on real noise (docs/quality-ladder.md "Noise"): noisy crops of the real DNGs with their noise
// known (`noisy`), and each image's default encode against its archival encode at viewing size (`steps`).

/// `readback-ladder noisy SRC.dng... --iso N,N.. [--crop WxH] [--out-dir DIR]`: for each source, the centred crop of
/// its raw samples made noisy at each ISO (`NoisyCrop`), written as DIR/NAME-isoN.dng; one JSON line per file.
func noisyCrops(_ sources: [String], options: [String: String]) throws {
    guard !sources.isEmpty, let list = options["iso"] else {
        fail("usage: readback-ladder noisy SRC.dng... --iso N,N.. [--crop WxH] [--out-dir DIR] [--seed S]")
    }
    let isos = list.split(separator: ",").compactMap { Int($0) }
    guard isos.count == list.split(separator: ",").count, !isos.isEmpty else {
        fail("--iso takes N,N.., got '\(list)'")
    }
    let (cw, ch) = options["crop"] == nil ? (1024, 768) : cropSize(options)
    let dir = options["out-dir"] ?? "Corpus/large"
    let seed = UInt64(options["seed"] ?? "1") ?? 1
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for src in sources {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: src)))
        let decoder = LibRawDecoder()
        _ = try decoder.open(bytes: bytes, name: (src as NSString).lastPathComponent)
        let s = try decoder.visibleSamples(width: cw, height: ch)
        let crop = NoisyCrop.Samples(
            width: s.width, height: s.height, channels: s.channels, values: s.samples, black: s.black, white: s.white)
        let base = ((src as NSString).lastPathComponent as NSString).deletingPathExtension
        for iso in isos {
            let (dng, r) = try NoisyCrop.dng(original: bytes, crop: crop, iso: iso, seed: seed &+ UInt64(iso))
            let out = "\(dir)/\(base)-iso\(iso).dng"
            try writeFile(dng, to: out)
            print(
                String(
                    format:
                        "{\"file\":\"%@\",\"source\":\"%@\",\"crop\":[%d,%d,%d,%d],\"channels\":%d,\"source_iso\":%d,\"iso\":%d,\"k\":%.3f,\"gain_e_per_dn\":%.5f,\"read_noise_e\":%.3f,\"scale\":%d,\"black\":%d,\"white\":%d,\"sigma_dn_at_mid_range\":%.2f}",
                    out, src, s.x, s.y, s.width, s.height, s.channels, r.sourceISO, r.iso, r.k, r.gain, r.readNoise,
                    r.scale, r.black, r.white, r.sigma(signal: Double(r.white - r.black) / 2)))
        }
    }
}

/// One image of the steps table: its frame noise and, per quality, the default encode against the archival one.
struct StepRow {
    var image: String
    var sigma: Double?
    var quality: Int
    var bytes: Int
    var bpp: Double
    var mean: Double
    var worst: Double
}

/// `readback-ladder steps RAW... [--qualities ..] [--crop WxH] [--preset P] [--variant V] [--out TSV]`: each RAW's frame (the crop `run`
/// measures) encoded with the archival target's setting and with the default's at each quality; SSIM-Y after the 2×
/// downscale of the default encode against the archival one (mean, worst 64×64 block), and bit/px. σ is the whole
/// frame's, as `convert` measures it.
func steps(_ raws: [String], options: [String: String]) throws {
    let qualities = options["qualities"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? stepQualities
    let (cw, ch) = options["crop"] == nil ? (1024, 768) : cropSize(options)
    let out = options["out"] ?? "docs/quality-ladder-steps.tsv"
    let archival = EncodingTarget.archival
    let standard = EncodingTarget.visuallyLossless
    let archivalVariant = try Variant(archival.variant)
    let standardVariant = try Variant(options["variant"] ?? standard.variant)
    // Another x265 preset than the default target's, to ask whether a slower encoder meets the rule where it does not.
    let preset = options["preset"] ?? standard.preset
    guard HeifEncodeSettings.presets.contains(preset) else {
        fail("--preset takes an x265 preset (\(HeifEncodeSettings.presets.joined(separator: ", "))), not '\(preset)'")
    }
    var rows: [StepRow] = []
    var notes: [String] = ["# default encodes: preset \(preset), \(options["variant"] ?? standard.variant)"]
    for raw in raws {
        let url = URL(fileURLWithPath: raw)
        let name = url.lastPathComponent
        var o = ConvertOptions()
        o.bitDepth = 8
        let frame = cropped(
            try HEICConverter.renderedFrame(of: url, options: o, decoders: .inProcess), cropW: cw, cropH: ch)
        guard case .rgb8(let w, let h, _) = frame else { throw Failure("\(name): not an 8-bit RGB frame") }
        let sigma = try HEICConverter.noise(of: url, decoders: .inProcess).sigma
        func decodedLuma(_ file: [UInt8]) throws -> Plane {
            let dec = try HeifDecoder.decodePrimary(file, format: .rgb8)
            return try Luma.plane(rgb: dec.samples, width: w, height: h, maxCode: 255)
        }
        let archivalFile = try HeifEncoder.encode(
            frame, settings: archivalVariant.settings(preset: archival.preset, quality: archival.quality))
        let reference = try ViewingSize.Reference(try decodedLuma(archivalFile))
        let archBpp = Double(archivalFile.count * 8) / Double(w * h)
        notes.append(
            String(
                format: "# image %@: %dx%d crop; sigma %@; archival (%@ q%d %@) %.3f bit/px", name, w, h,
                sigma.map { String(format: "%.2f", $0) } ?? "-", archival.preset, archival.quality, archival.variant,
                archBpp))
        for q in qualities {
            let file = try HeifEncoder.encode(
                frame, settings: standardVariant.settings(preset: preset, quality: q))
            let s = try ViewingSize.compare(reference, try decodedLuma(file))
            let r = StepRow(
                image: name, sigma: sigma, quality: q, bytes: file.count, bpp: Double(file.count * 8) / Double(w * h),
                mean: s.mean, worst: s.worstBlock)
            rows.append(r)
            log(
                String(
                    format: "%@ (σ %@) q%d: %.3f bit/px, vs archival at ½: %.4f / %.4f", name,
                    sigma.map { String(format: "%.2f", $0) } ?? "-", q, r.bpp, r.mean, r.worst))
        }
    }
    var text = """
        # The noise steps on real images (docs/quality-ladder.md "Noise"): each image's frame (the centred crop) encoded
        # with the default target's setting at each quality, against its encode with the archival target's setting,
        # both decoded: SSIM-Y after a 2×2 box downscale (mean, worst 64×64 block); bit/px of the default encode.
        # sigma = the whole frame's noise as `readback convert` measures it. Written by `readback-ladder steps`.

        """
    text += notes.joined(separator: "\n") + "\n"
    text += "image\tsigma\tquality\tbytes\tbpp\tview_arch_mean\tview_arch_worst64\n"
    for r in rows {
        text += String(
            format: "%@\t%@\t%d\t%d\t%.4f\t%.6f\t%.6f\n", r.image, r.sigma.map { String(format: "%.2f", $0) } ?? "-",
            r.quality, r.bytes, r.bpp, r.mean, r.worst)
    }
    try writeFile(Array(text.utf8), to: out)
    log("wrote \(out) (\(rows.count) rows)")
}

/// The qualities `steps` measures by default.
let stepQualities = [35, 38, 41, 44, 47, 50, 52, 55]
