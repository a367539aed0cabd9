// `--target` shorthands: each names a fidelity requirement and maps to the x265 setting (preset, quality, x265
// options, chroma) that the quality ladder (docs/quality-ladder.md, data in docs/quality-ladder.tsv) picked for it by
// the stated rule. A test
// (Tests/FidelityTests/LadderDataTests.swift) re-applies the rule to the committed data and checks these numbers
// and `ConvertOptions`' defaults, so code and data cannot drift apart.

import Fidelity
import Foundation
import HeifCodec

/// A named encoding target: a fidelity requirement and the encoder setting measured to meet it.
public enum EncodingTarget: String, Sendable, CaseIterable, Codable {
    /// At viewing size (½ scale, against the clean scene) every ladder image loses at most 0.01 of mean SSIM-Y and
    /// 0.03 in every 64×64 block; the converter's default.
    case visuallyLossless = "visually-lossless"
    /// Faithful to the grain: at 1:1 against the file's own render, mean SSIM-Y ≥ 0.995 and every block ≥ 0.985.
    case archival
    /// Looser, at viewing size: losses of at most 0.02 (mean) and 0.05 (every block).
    case small

    /// The x265 preset the ladder picked.
    public var preset: String {
        switch self {
        case .visuallyLossless: return "ultrafast"
        case .archival: return "ultrafast"
        case .small: return "ultrafast"
        }
    }

    /// The libheif quality (x265 CRF = (100 − q) / 2) the ladder picked.
    public var quality: Int {
        switch self {
        case .visuallyLossless: return 55
        case .archival: return 85
        case .small: return 49
        }
    }

    /// The ladder variant of the pick (`LadderRow.variant`): libheif's tune, x265 options, no pre-encode filter.
    public var variant: String {
        switch self {
        case .visuallyLossless: return "tune=ssim,aq-strength=1.5"
        case .archival: return "tune=ssim,chroma=444"
        case .small: return "tune=ssim,aq-strength=1.5"
        }
    }

    /// The x265 options of `variant` (everything but `tune` and `chroma`; the converter has no pre-encode filter).
    public var x265Options: [String: String] {
        let pairs = Ladder.pairs(of: variant).filter { $0.key != "tune" && $0.key != "chroma" }
        return Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value) })
    }

    /// The chroma subsampling of `variant` (4:2:0 unless it says `chroma=444`).
    public var chroma: HeifChroma {
        Ladder.pairs(of: variant).first { $0.key == "chroma" }.flatMap { HeifChroma(rawValue: $0.value) } ?? .yuv420
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
        let requirement =
            t.measure == .archival
            ? "SSIM-Y at 1:1, grain included, mean ≥ \(t.minMean), every 64×64 block ≥ \(t.minWorst)"
            : "SSIM-Y at viewing size (½ scale) loses ≤ \(rounded(1 - t.minMean)) mean, ≤ \(rounded(1 - t.minWorst)) in every 64×64 block"
        let extras = x265Options.sorted { $0.key < $1.key }.map { ", \($0.key) \($0.value)" }.joined()
        let noisy =
            self == .visuallyLossless
            ? " ("
                + NoiseLevel.steps.map { "\($0.quality) from noise σ \(String(format: "%g", $0.minSigma))" }
                .joined(separator: ", ") + ")" : ""
        return
            "\(rawValue): \(requirement) → preset \(preset), quality \(quality)\(noisy)\(extras)\(chroma == .yuv444 ? ", 4:4:4" : "")"
    }

    private func rounded(_ v: Double) -> String { String(format: "%g", (v * 1000).rounded() / 1000) }

    /// Sets `options.speed`, `options.quality`, `options.x265Options` and `options.chroma` to this target's values,
    /// then applies `effort` (which sets the preset and bit depth and adds its x265 options).
    public func apply(to options: inout ConvertOptions, effort: EncodingEffort) {
        options.speed = preset
        options.quality = quality
        options.x265Options = x265Options
        options.chroma = chroma
        options.noiseAdaptive = self == .visuallyLossless
        effort.apply(to: &options)
    }

    /// The effort a target gets when none is asked for: `archival`'s setting was measured at 1:1 with the grain, at
    /// the fast effort, so it keeps it; the others get the default (balanced).
    public var defaultEffort: EncodingEffort { self == .archival ? .fast : .balanced }

    /// `apply(to:effort:)` at the target's default effort.
    public func apply(to options: inout ConvertOptions) {
        apply(to: &options, effort: defaultEffort)
    }
}
