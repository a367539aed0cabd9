import Foundation

// The quality ladder's data (docs/quality-ladder.tsv) and the rule that picks an encoder setting from it
// (docs/quality-ladder.md). Shared by the ladder tool, which writes the data, and the tests, which check that the
// converter's defaults and `--target` values are what the rule picks from the committed data.

/// One measured encode: one image × x265 preset × variant × quality.
public struct LadderRow: Sendable, Equatable {
    public var image: String
    public var width: Int
    public var height: Int
    public var preset: String
    /// What else the encode used, as `key=value` pairs joined by `,`: `tune` (libheif's x265 tune), x265 option
    /// names passed through (`nr-intra=200`), and `denoise` (a pre-encode filter). `tune=ssim` is HeifCodec's default.
    public var variant: String
    public var quality: Int
    /// Bytes of the coded HEVC item (the bitstream, without the HEIF wrapper).
    public var bytes: Int
    /// Encode wall-clock seconds (libheif + x265, this machine).
    public var encodeSeconds: Double
    /// SSIM of the decoded luma against the float render: mean, and worst 64×64 block.
    public var ssimMean: Double
    public var ssimWorst: Double
    /// PSNR of the decoded luma and of all RGB samples against the float render (peak 1).
    public var psnrY: Double
    public var psnrRGB: Double
    /// SSIM at viewing size (`ViewingSize`) of the decoded luma against the clean scene's render (the file's own
    /// render for a real camera file): mean, and worst 64×64 block of the downscaled map.
    public var viewMean: Double
    public var viewWorst: Double
    /// The same for the unencoded 8-bit frame: the most an encode of this image can score (below 1 when the image
    /// is noisy and the reference is the clean scene). The viewing-size thresholds are losses from these.
    public var viewFrameMean: Double
    public var viewFrameWorst: Double

    public init(
        image: String, width: Int, height: Int, preset: String, variant: String = Ladder.defaultVariant, quality: Int,
        bytes: Int, encodeSeconds: Double, ssimMean: Double, ssimWorst: Double, psnrY: Double, psnrRGB: Double,
        viewMean: Double = 1, viewWorst: Double = 1, viewFrameMean: Double = 1, viewFrameWorst: Double = 1
    ) {
        self.image = image
        self.width = width
        self.height = height
        self.preset = preset
        self.variant = variant
        self.quality = quality
        self.bytes = bytes
        self.encodeSeconds = encodeSeconds
        self.ssimMean = ssimMean
        self.ssimWorst = ssimWorst
        self.psnrY = psnrY
        self.psnrRGB = psnrRGB
        self.viewMean = viewMean
        self.viewWorst = viewWorst
        self.viewFrameMean = viewFrameMean
        self.viewFrameWorst = viewFrameWorst
    }

    /// SSIM lost at viewing size to the encode: the frame's score minus the encode's (negative when the encode is
    /// closer to the clean scene than the frame, e.g. when it smooths noise).
    public var viewLossMean: Double { viewFrameMean - viewMean }
    public var viewLossWorst: Double { viewFrameWorst - viewWorst }
    /// Whether the variant filters the frame before encoding (never allowed for `archival`).
    public var denoises: Bool { Ladder.denoise(of: variant) != nil }

    /// Bits per pixel of the coded item.
    public var bitsPerPixel: Double { Double(bytes * 8) / Double(width * height) }
    /// Encode seconds per megapixel.
    public var secondsPerMegapixel: Double { encodeSeconds / (Double(width * height) / 1e6) }
}

/// Which fidelity a threshold is judged on.
public enum LadderMeasure: String, Sendable, Equatable {
    /// SSIM-Y at 1:1 against the file's own (noisy) render: every grain counts.
    case archival
    /// SSIM-Y at viewing size (`ViewingSize`) against the clean scene, as a loss from the unencoded frame's score.
    case viewing
}

/// A fidelity threshold every image must meet.
public struct LadderThreshold: Sendable, Equatable {
    /// Lowest allowed mean SSIM-Y (`archival`); for `viewing`, 1 − the largest allowed loss of mean SSIM-Y.
    public var minMean: Double
    /// Lowest allowed worst-64×64-block SSIM-Y (`archival`); for `viewing`, 1 − the largest allowed loss.
    public var minWorst: Double
    /// Among passing settings, a faster one may be this much larger than the smallest (0.05 = 5 %).
    public var sizeTolerance: Double
    public var measure: LadderMeasure

    public init(minMean: Double, minWorst: Double, sizeTolerance: Double, measure: LadderMeasure = .archival) {
        self.minMean = minMean
        self.minWorst = minWorst
        self.sizeTolerance = sizeTolerance
        self.measure = measure
    }

    /// Whether `r` meets the threshold. A row of a pre-encode denoise variant never does: `archival` must keep the
    /// grain, and the converter has no such filter to ship (the ladder measures it for the record).
    public func passes(_ r: LadderRow) -> Bool {
        if r.denoises { return false }
        switch measure {
        case .archival:
            return r.ssimMean >= minMean && r.ssimWorst >= minWorst
        case .viewing:
            // A tiny epsilon: the TSV stores 6 decimals, so a loss of exactly the limit must not fail on rounding.
            return r.viewLossMean <= 1 - minMean + 1e-9 && r.viewLossWorst <= 1 - minWorst + 1e-9
        }
    }
}

/// The setting the rule picked and its figures over the ladder's images.
public struct LadderChoice: Sendable, Equatable {
    public var preset: String
    public var variant: String
    public var quality: Int
    /// Mean over the images of bits per pixel.
    public var meanBitsPerPixel: Double
    /// Mean over the images of encode seconds per megapixel.
    public var meanSecondsPerMegapixel: Double
    /// The lowest mean SSIM-Y and the lowest worst-block SSIM-Y over the images.
    public var lowestMean: Double
    public var lowestWorst: Double
    /// The largest viewing-size losses over the images (mean, worst block).
    public var largestViewLossMean: Double
    public var largestViewLossWorst: Double
}

/// The ladder's data format and selection rule.
public enum Ladder {
    /// "Visually lossless" (the default), judged at viewing size: on every image the encode loses at most 0.01 of
    /// mean SSIM-Y and at most 0.03 in every 64×64 block against the unencoded frame's own score.
    public static let visuallyLossless = LadderThreshold(
        minMean: 0.99, minWorst: 0.97, sizeTolerance: 0.05, measure: .viewing)
    /// "Archival", judged at 1:1 against the noisy render, grain included: mean ≥ 0.995 and every block ≥ 0.985,
    /// and no pre-encode denoise.
    public static let archival = LadderThreshold(minMean: 0.995, minWorst: 0.985, sizeTolerance: 0.05)
    /// "Small", judged at viewing size: losses of at most 0.02 (mean) and 0.05 (every block).
    public static let small = LadderThreshold(minMean: 0.98, minWorst: 0.95, sizeTolerance: 0.05, measure: .viewing)

    /// HeifCodec's encoder tuning when nothing else is asked (`HeifEncodeSettings.tune`).
    public static let defaultVariant = "tune=ssim"

    /// The TSV header line (after the `#` comments).
    public static let columns = [
        "image", "width", "height", "preset", "variant", "quality", "bytes", "bpp", "encode_s", "ssim_y_mean",
        "ssim_y_worst64", "psnr_y_db", "psnr_rgb_db", "view_ssim_mean", "view_ssim_worst64", "view_frame_mean",
        "view_frame_worst64",
    ]

    /// A variant's `key=value` pairs in order (`tune=ssim,nr-intra=200` → [("tune", "ssim"), ("nr-intra", "200")]).
    public static func pairs(of variant: String) -> [(key: String, value: String)] {
        variant.split(separator: ",").map { kv in
            let p = kv.split(separator: "=", maxSplits: 1).map(String.init)
            return (p[0], p.count > 1 ? p[1] : "")
        }
    }

    /// The variant's pre-encode denoise strength (`denoise=…`), or nil for none.
    public static func denoise(of variant: String) -> String? {
        pairs(of: variant).first { $0.key == "denoise" }?.value
    }

    /// Picks the setting for `threshold` (docs/quality-ladder.md, "The rule"):
    /// 1. a (preset, variant, quality) passes when EVERY image meets the threshold at it;
    /// 2. per (preset, variant), the passing quality with the smallest mean bits per pixel is its candidate;
    /// 3. among candidates within `sizeTolerance` of the smallest candidate, the fastest (mean encode seconds per
    ///    megapixel) wins; ties go to the smaller, then to the lower quality.
    /// - Parameters:
    ///   - rows: the ladder (every image at every setting; a setting missing for some image never passes).
    ///   - threshold: the fidelity requirement.
    /// - Returns: the choice, or nil when no setting passes on every image.
    public static func choose(_ rows: [LadderRow], threshold: LadderThreshold) -> LadderChoice? {
        let images = Set(rows.map(\.image))
        struct Key: Hashable {
            var preset: String
            var variant: String
            var quality: Int
        }
        var bySetting: [Key: [LadderRow]] = [:]
        for r in rows {
            bySetting[Key(preset: r.preset, variant: r.variant, quality: r.quality), default: []].append(r)
        }
        var candidates: [String: LadderChoice] = [:]
        for (k, rs) in bySetting {
            guard Set(rs.map(\.image)) == images, rs.count == images.count, rs.allSatisfy(threshold.passes) else {
                continue
            }
            let n = Double(rs.count)
            let c = LadderChoice(
                preset: k.preset, variant: k.variant, quality: k.quality,
                meanBitsPerPixel: rs.map(\.bitsPerPixel).reduce(0, +) / n,
                meanSecondsPerMegapixel: rs.map(\.secondsPerMegapixel).reduce(0, +) / n,
                lowestMean: rs.map(\.ssimMean).min() ?? 0, lowestWorst: rs.map(\.ssimWorst).min() ?? 0,
                largestViewLossMean: rs.map(\.viewLossMean).max() ?? 0,
                largestViewLossWorst: rs.map(\.viewLossWorst).max() ?? 0)
            let group = k.preset + "\t" + k.variant
            if let old = candidates[group], (old.meanBitsPerPixel, old.quality) <= (c.meanBitsPerPixel, c.quality) {
                continue
            }
            candidates[group] = c
        }
        guard let smallest = candidates.values.map(\.meanBitsPerPixel).min() else { return nil }
        let eligible = candidates.values.filter { $0.meanBitsPerPixel <= smallest * (1 + threshold.sizeTolerance) }
        return eligible.min { a, b in
            (a.meanSecondsPerMegapixel, a.meanBitsPerPixel, a.quality, a.preset + a.variant)
                < (b.meanSecondsPerMegapixel, b.meanBitsPerPixel, b.quality, b.preset + b.variant)
        }
    }

    /// Parses docs/quality-ladder.tsv: `#` comment lines, one header line (`columns`), then one row per encode.
    /// - Throws: `FidelityError.sizeMismatch` naming the line when a row is malformed.
    public static func parse(_ text: String) throws -> [LadderRow] {
        var rows: [LadderRow] = []
        var header: [String]?
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let h = header else {
                guard f == columns else {
                    throw FidelityError.sizeMismatch("line \(i + 1): header is not \(columns.joined(separator: " "))")
                }
                header = f
                continue
            }
            let d = f.count == h.count ? f[8...].compactMap(Double.init) : []
            guard d.count == 9, let w = Int(f[1]), let hh = Int(f[2]), let q = Int(f[5]), let b = Int(f[6]), w > 0,
                hh > 0, !f[4].isEmpty
            else { throw FidelityError.sizeMismatch("line \(i + 1): malformed ladder row") }
            rows.append(
                LadderRow(
                    image: f[0], width: w, height: hh, preset: f[3], variant: f[4], quality: q, bytes: b,
                    encodeSeconds: d[0], ssimMean: d[1], ssimWorst: d[2], psnrY: d[3], psnrRGB: d[4], viewMean: d[5],
                    viewWorst: d[6], viewFrameMean: d[7], viewFrameWorst: d[8]))
        }
        guard header != nil else { throw FidelityError.sizeMismatch("no header line") }
        return rows
    }

    /// One TSV line for `row` (see `columns`).
    public static func line(_ r: LadderRow) -> String {
        func f(_ v: Double, _ d: Int) -> String { v.isInfinite ? "inf" : String(format: "%.\(d)f", v) }
        return [
            r.image, "\(r.width)", "\(r.height)", r.preset, r.variant, "\(r.quality)", "\(r.bytes)",
            f(r.bitsPerPixel, 4),
            f(r.encodeSeconds, 3), f(r.ssimMean, 6), f(r.ssimWorst, 6), f(r.psnrY, 3), f(r.psnrRGB, 3),
            f(r.viewMean, 6), f(r.viewWorst, 6), f(r.viewFrameMean, 6), f(r.viewFrameWorst, 6),
        ].joined(separator: "\t")
    }
}
