// `--effort`: how hard the HEVC encoder works for size at a fixed fidelity, orthogonal to `--target` (which fixes
// the fidelity, i.e. the quality). Each level is an x265 preset, a coded bit depth and x265 options layered over the
// target's, chosen from measurements against heif-enc at equal fidelity (docs/quality-ladder.md "Effort").

import Foundation

/// How much encoder work buys size at the target's fidelity.
public enum EncodingEffort: String, Sendable, CaseIterable, Codable {
    /// The speed of Readback before the ladder: preset ultrafast, 8-bit, the target's x265 options only.
    case fast
    /// The default: about heif-enc's default (preset slow) size at equal fidelity, at a fraction of its time.
    case balanced
    /// Smaller than heif-enc's default at equal fidelity, at about its encode time.
    case small

    /// The x265 preset.
    public var preset: String {
        switch self {
        case .fast, .balanced: return "ultrafast"
        case .small: return "veryfast"
        }
    }

    /// The coded bit depth of the primary. 10 bits code the 8-bit render's precision with fewer bits: x265's
    /// quantiser works at finer steps, and the frame carries the render's 10-bit values.
    public var bitDepth: Int {
        switch self {
        case .fast: return 8
        case .balanced, .small: return 10
        }
    }

    /// The x265 options the level adds to (and sets over) the target's: rate-distortion optimised quantisation
    /// (`rdoq-level` 2) without its psycho-visual bias toward keeping grain energy (`psy-rdoq` 0, which libheif would
    /// otherwise set to 1), a milder adaptive quantisation than the target's 1.5 (`aq-strength` 1.25: at equal
    /// fidelity 0.62× heif-enc's size on the 24 MP chart against 0.84× with 1.5, and 0.95–1.01× against 0.96–1.04×
    /// on the real DNGs measured), full rate-distortion checks of fewer intra-mode candidates (`rd` 1 against the
    /// presets' 2: 0.5–8 % smaller at the same fidelity within 0.0001 of SSIM-Y at ½, with 7–15 % less encode CPU on
    /// every image measured), and sign-bit hiding and sample-adaptive offset (`signhide` 1, `sao` 1: every preset
    /// from veryfast on has both, ultrafast neither; 1.8–2.6 % fewer bits and a lower ratio to heif-enc at equal
    /// fidelity on every image measured, for 2–4 % more encode CPU), and 16×16 coding trees (`ctu` 16 against the
    /// 64 libheif sets: no 64×64 or 32×32 units to weigh, each with a full rate-distortion check and RDOQ): 28–42 %
    /// less encode CPU at balanced, 13–28 % at small, a little more bits for a higher fidelity, and a ratio to
    /// heif-enc at equal fidelity from 5 % lower to 1 % higher on every photo measured; deblocking two steps milder
    /// (`deblock` −2:−2) and SAO decided on all the pixels of a tree (`sao-non-deblock` 1): the same bits for a
    /// slightly higher fidelity, a ratio to heif-enc up to 1 % lower on every image measured and never higher.
    /// Balanced also codes HEVC's default scaling lists (`scaling-list` default: the standard's frequency-weighted
    /// quantisation of 8×8 and larger transforms, high frequencies up to 7× coarser): with its 16×16 and 8×8
    /// transforms, 4–8 % fewer bits at equal fidelity on the real DNGs, a ratio to heif-enc 3–8 % lower on four of
    /// five and on the 50 MP chart. Small's 8×8 units code detail in 4×4 transforms, which the default lists leave
    /// flat (with them small was −2 % to +2 %): small codes the default lists with the 4×4 luma list weighted like
    /// the 8×8 one (`default-4x4`, `X265ScalingLists`): a ratio to heif-enc 2–5 % lower on four of the five real DNGs
    /// and the same on the fifth, at a higher fidelity than balanced's on each, for up to 23 % less encode CPU. With
    /// lists, a frame the noise step lowers is coded one CRF step finer (`ConvertOptions.frameQuality`).
    /// Small also weighs distortion 1.6× more heavily against bits in x265's rate-distortion decisions and RDOQ (its
    /// built-in 10-bit λ² table × 1.6, `lambda-file` `lambda2x1.6`, `X265Lambdas`) and codes one CRF step finer
    /// (`qualityStep`), which buys back the fidelity the λ² spends: at about small's fidelity before, 1–4 % fewer
    /// bits on every real DNG measured (docs/quality-ladder.md "Small: the λ² taken, one CRF step finer").
    /// docs/quality-ladder.md "Effort".
    public var x265Options: [String: String] {
        let common = [
            "aq-strength": "1.25", "rdoq-level": "2", "psy-rdoq": "0", "rd": "1", "signhide": "1", "sao": "1",
            "ctu": "16", "deblock": "-2:-2", "sao-non-deblock": "1",
        ]
        switch self {
        case .fast: return [:]
        case .balanced: return common.merging(["scaling-list": "default"]) { a, _ in a }
        case .small:
            return common.merging(["scaling-list": "default-4x4", "lambda-file": "lambda2x1.6"]) { a, _ in a }
        }
    }

    /// x265 options the level adds for a primary coded as one picture (a frame within HEVC level 4.1, which
    /// `ConvertOptions.primaryTileSize` leaves untiled), over `x265Options`. Balanced lets a 16×16 unit's transform
    /// split down to 4×4 (`tu-intra-depth` 3; libheif sets 2) with the 4×4 luma list weighted as small's
    /// (`default-4x4`): at equal fidelity 0.979× heif-enc on the Canon 6D (1.011 with 8×8 at the finest), better on
    /// five of seven real photographs downscaled to 1 MP and within 0.7 % on the other two, and better or within
    /// 0.2 % on every full-size real DNG and chart crop too; but on a 24 MP frame it costs 12 % of the conversion's
    /// time (encode +26 %), which the tiled frames' time goal cannot pay, while on a one-picture frame the wall time
    /// moved within run-to-run noise. docs/quality-ladder.md "The Canon 6D's balanced row".
    /// Small codes such a frame in libheif's own 64×64 trees (`ctu` 64; tiles keep 16): with its λ² at equal fidelity
    /// 2–3 % fewer bits on the two real DNGs coded so (the Canon 6D and 550D), at about the same encode CPU on
    /// frames that small (docs/quality-ladder.md "Small: the λ² taken, one CRF step finer").
    public var onePictureX265Options: [String: String] {
        switch self {
        case .fast: return [:]
        case .balanced: return ["tu-intra-depth": "3", "scaling-list": "default-4x4"]
        case .small: return ["ctu": "64"]
        }
    }

    /// Quality steps the level adds to the frame's quality (the target's, or the noise step's): small's 2 (one x265
    /// CRF step finer) buys back the fidelity its λ² (`x265Options`) spends.
    public var qualityStep: Int {
        switch self {
        case .fast, .balanced: return 0
        case .small: return 2
        }
    }

    /// The x265 options of a target's `options` at this level: the target's, then the level's over them.
    public func x265Options(over options: [String: String]) -> [String: String] {
        options.merging(x265Options) { _, level in level }
    }

    /// Sets `options.effort`, `options.speed`, `options.bitDepth`, `options.onePictureX265Options` and
    /// `options.qualityStep`, and adds the level's x265 options over the target's (those in `options.x265Options`).
    public func apply(to options: inout ConvertOptions) {
        options.effort = self
        options.speed = preset
        options.bitDepth = bitDepth
        options.x265Options = x265Options(over: options.x265Options)
        options.onePictureX265Options = onePictureX265Options
        options.qualityStep = qualityStep
    }

    /// What the level measured, for `--help` (docs/quality-ladder.md "Effort"): size against heif-enc's default at
    /// equal fidelity, and the encode's CPU time against heif-enc's.
    public var measured: String {
        switch self {
        case .fast:
            return "1.10–1.30× heif-enc's size on real DNGs, 1.62–1.67× on the 24/50 MP charts; 0.2–0.3× its CPU"
        case .balanced:
            return "0.86–0.98× heif-enc's size on real DNGs, about 0.58× on the 24 MP chart; 0.2–0.35× its CPU"
        case .small:
            return "0.82–0.89× heif-enc's size on real DNGs, about 0.43× on the 24 MP chart; 0.65–1.0× its CPU"
        }
    }

    /// One line for `--help`.
    public var summary: String {
        let extras = x265Options.sorted { $0.key < $1.key }.map { ", \($0.key) \($0.value)" }.joined()
        let single = onePictureX265Options.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let one = single.isEmpty ? "" : "; a frame coded as one picture: " + single.joined(separator: ", ")
        let step = qualityStep == 0 ? "" : "; quality +\(qualityStep)"
        return "\(rawValue): preset \(preset), \(bitDepth)-bit\(extras)\(one)\(step) (\(measured))"
    }
}
