// `--target` shorthands: each names a fidelity requirement and maps to the x265 (preset, quality) that the quality
// ladder (docs/quality-ladder.md, data in docs/quality-ladder.tsv) picked for it by the stated rule. A test
// (Tests/FidelityTests/LadderDataTests.swift) re-applies the rule to the committed data and checks these numbers
// and `ConvertOptions`' defaults, so code and data cannot drift apart.

import Fidelity

/// A named encoding target: a fidelity requirement and the encoder setting measured to meet it.
public enum EncodingTarget: String, Sendable, CaseIterable, Codable {
    /// Every ladder image keeps mean SSIM-Y ≥ 0.99 and every 64×64 block ≥ 0.97; the converter's default.
    case visuallyLossless = "visually-lossless"
    /// Stricter: mean SSIM-Y ≥ 0.995 and every block ≥ 0.985.
    case archival
    /// Looser: mean SSIM-Y ≥ 0.98 and every block ≥ 0.95.
    case small

    /// The x265 preset the ladder picked.
    public var preset: String {
        switch self {
        case .visuallyLossless: return "ultrafast"
        case .archival: return "superfast"
        case .small: return "ultrafast"
        }
    }

    /// The libheif quality (x265 CRF = (100 − q) / 2) the ladder picked.
    public var quality: Int {
        switch self {
        case .visuallyLossless: return 65
        case .archival: return 80
        case .small: return 60
        }
    }

    /// The requirement, in numbers (`Ladder`'s thresholds: lowest mean SSIM-Y, lowest worst-64×64-block SSIM-Y).
    public var threshold: LadderThreshold {
        switch self {
        case .visuallyLossless: return Ladder.visuallyLossless
        case .archival: return Ladder.archival
        case .small: return Ladder.small
        }
    }

    /// One line for `--help`: the requirement and the setting.
    public var summary: String {
        let t = threshold
        return
            "\(rawValue): SSIM-Y mean ≥ \(t.minMean), every 64×64 block ≥ \(t.minWorst) → preset \(preset), quality \(quality)"
    }

    /// Sets `options.speed` and `options.quality` to this target's values.
    public func apply(to options: inout ConvertOptions) {
        options.speed = preset
        options.quality = quality
    }
}
