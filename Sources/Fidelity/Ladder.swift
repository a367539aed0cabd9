import Foundation

// The quality ladder's data (docs/quality-ladder.tsv) and the rule that picks an encoder setting from it
// (docs/quality-ladder.md). Shared by the ladder tool, which writes the data, and the tests, which check that the
// converter's defaults and `--target` values are what the rule picks from the committed data.

/// One measured encode: one image × x265 preset × quality.
public struct LadderRow: Sendable, Equatable {
    public var image: String
    public var width: Int
    public var height: Int
    public var preset: String
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

    public init(
        image: String, width: Int, height: Int, preset: String, quality: Int, bytes: Int, encodeSeconds: Double,
        ssimMean: Double, ssimWorst: Double, psnrY: Double, psnrRGB: Double
    ) {
        self.image = image
        self.width = width
        self.height = height
        self.preset = preset
        self.quality = quality
        self.bytes = bytes
        self.encodeSeconds = encodeSeconds
        self.ssimMean = ssimMean
        self.ssimWorst = ssimWorst
        self.psnrY = psnrY
        self.psnrRGB = psnrRGB
    }

    /// Bits per pixel of the coded item.
    public var bitsPerPixel: Double { Double(bytes * 8) / Double(width * height) }
    /// Encode seconds per megapixel.
    public var secondsPerMegapixel: Double { encodeSeconds / (Double(width * height) / 1e6) }
}

/// A fidelity threshold every image must meet.
public struct LadderThreshold: Sendable, Equatable {
    /// Lowest allowed mean SSIM-Y.
    public var minMean: Double
    /// Lowest allowed worst-64×64-block SSIM-Y.
    public var minWorst: Double
    /// Among passing settings, a faster one may be this much larger than the smallest (0.05 = 5 %).
    public var sizeTolerance: Double

    public init(minMean: Double, minWorst: Double, sizeTolerance: Double) {
        self.minMean = minMean
        self.minWorst = minWorst
        self.sizeTolerance = sizeTolerance
    }

    public func passes(_ r: LadderRow) -> Bool { r.ssimMean >= minMean && r.ssimWorst >= minWorst }
}

/// The setting the rule picked and its figures over the ladder's images.
public struct LadderChoice: Sendable, Equatable {
    public var preset: String
    public var quality: Int
    /// Mean over the images of bits per pixel.
    public var meanBitsPerPixel: Double
    /// Mean over the images of encode seconds per megapixel.
    public var meanSecondsPerMegapixel: Double
    /// The lowest mean SSIM-Y and the lowest worst-block SSIM-Y over the images.
    public var lowestMean: Double
    public var lowestWorst: Double
}

/// The ladder's data format and selection rule.
public enum Ladder {
    /// "Visually lossless" (the default): every image keeps mean SSIM-Y ≥ 0.99 and no 64×64 block under 0.97.
    public static let visuallyLossless = LadderThreshold(minMean: 0.99, minWorst: 0.97, sizeTolerance: 0.05)
    /// "Archival": stricter, mean ≥ 0.995 and every block ≥ 0.985.
    public static let archival = LadderThreshold(minMean: 0.995, minWorst: 0.985, sizeTolerance: 0.05)
    /// "Small": looser, mean ≥ 0.98 and every block ≥ 0.95.
    public static let small = LadderThreshold(minMean: 0.98, minWorst: 0.95, sizeTolerance: 0.05)

    /// The TSV header line (after the `#` comments).
    public static let columns = [
        "image", "width", "height", "preset", "quality", "bytes", "bpp", "encode_s", "ssim_y_mean", "ssim_y_worst64",
        "psnr_y_db", "psnr_rgb_db",
    ]

    /// Picks the setting for `threshold` (docs/quality-ladder.md, "The rule"):
    /// 1. a (preset, quality) passes when EVERY image meets the threshold at it;
    /// 2. per preset, the passing quality with the smallest mean bits per pixel is its candidate;
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
            var quality: Int
        }
        var bySetting: [Key: [LadderRow]] = [:]
        for r in rows { bySetting[Key(preset: r.preset, quality: r.quality), default: []].append(r) }
        var candidates: [String: LadderChoice] = [:]
        for (k, rs) in bySetting {
            guard Set(rs.map(\.image)) == images, rs.count == images.count, rs.allSatisfy(threshold.passes) else {
                continue
            }
            let n = Double(rs.count)
            let c = LadderChoice(
                preset: k.preset, quality: k.quality, meanBitsPerPixel: rs.map(\.bitsPerPixel).reduce(0, +) / n,
                meanSecondsPerMegapixel: rs.map(\.secondsPerMegapixel).reduce(0, +) / n,
                lowestMean: rs.map(\.ssimMean).min() ?? 0, lowestWorst: rs.map(\.ssimWorst).min() ?? 0)
            if let old = candidates[k.preset],
                (old.meanBitsPerPixel, old.quality) <= (c.meanBitsPerPixel, c.quality)
            {
                continue
            }
            candidates[k.preset] = c
        }
        guard let smallest = candidates.values.map(\.meanBitsPerPixel).min() else { return nil }
        let eligible = candidates.values.filter { $0.meanBitsPerPixel <= smallest * (1 + threshold.sizeTolerance) }
        return eligible.min { a, b in
            (a.meanSecondsPerMegapixel, a.meanBitsPerPixel, a.quality)
                < (b.meanSecondsPerMegapixel, b.meanBitsPerPixel, b.quality)
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
            guard f.count == h.count, let w = Int(f[1]), let hh = Int(f[2]), let q = Int(f[4]), let b = Int(f[5]),
                let t = Double(f[7]), let sm = Double(f[8]), let sw = Double(f[9]), let py = Double(f[10]),
                let pr = Double(f[11]), w > 0, hh > 0
            else { throw FidelityError.sizeMismatch("line \(i + 1): malformed ladder row") }
            rows.append(
                LadderRow(
                    image: f[0], width: w, height: hh, preset: f[3], quality: q, bytes: b, encodeSeconds: t,
                    ssimMean: sm, ssimWorst: sw, psnrY: py, psnrRGB: pr))
        }
        guard header != nil else { throw FidelityError.sizeMismatch("no header line") }
        return rows
    }

    /// One TSV line for `row` (see `columns`).
    public static func line(_ r: LadderRow) -> String {
        func f(_ v: Double, _ d: Int) -> String { v.isInfinite ? "inf" : String(format: "%.\(d)f", v) }
        return [
            r.image, "\(r.width)", "\(r.height)", r.preset, "\(r.quality)", "\(r.bytes)", f(r.bitsPerPixel, 4),
            f(r.encodeSeconds, 3), f(r.ssimMean, 6), f(r.ssimWorst, 6), f(r.psnrY, 3), f(r.psnrRGB, 3),
        ].joined(separator: "\t")
    }
}
