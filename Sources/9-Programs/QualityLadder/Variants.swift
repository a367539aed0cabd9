import ColorScience
import Fidelity
import Foundation
import HeifCodec

// Encoder variants of the ladder: what x265 offers for noise (libheif's `tune`, x265 options passed through as
// `x265:NAME`), the chroma subsampling (`chroma=444`; 4:2:0 otherwise), the YCbCr matrix (`matrix=1`; BT.601
// otherwise) and an optional light pre-encode denoise, written `key=value,key=value` (Ladder.pairs).

/// A parsed variant.
struct Variant {
    var text: String
    var tune = "ssim"
    var chroma = HeifChroma.yuv420
    var x265: [String: String] = [:]
    /// Pre-encode denoise strength: nil (off), or a multiple of the estimated noise variance the filter removes.
    var denoise: Double?
    /// Bits per sample coded (`depth=10`: the converter's 10-bit frame); 8 otherwise.
    var depth = 8
    /// Tile side for `effort` (`tile=N`, 0 = untiled); nil = the converter's default.
    var tile: Int?
    /// x265 options over `x265` when `effort` codes the frame as one picture (`untiled.NAME=VALUE`), as the converter
    /// adds its level's `onePictureX265Options` to an untiled primary.
    var untiledX265: [String: String] = [:]
    /// The YCbCr matrix coded and signalled (`matrix=1`: BT.709; H.273 code point), BT.601 (6) otherwise, as the
    /// converter writes.
    var matrix = NCLX.displayP3.matrixCoefficients

    init(_ text: String) throws {
        self.text = text
        for (k, v) in Ladder.pairs(of: text) {
            switch k {
            case "tune":
                guard ["psnr", "ssim", "grain", "fastdecode"].contains(v) else { throw Failure("unknown tune '\(v)'") }
                tune = v
            case "chroma":
                guard v == "420" || v == "444", let c = HeifChroma(rawValue: v) else {
                    throw Failure("chroma takes 420 or 444")
                }
                chroma = c
            case "depth":
                guard v == "8" || v == "10" else { throw Failure("depth takes 8 or 10") }
                depth = Int(v) ?? 8
            case "tile":
                guard let t = Int(v), t == 0 || (t >= 64 && t % 64 == 0) else {
                    throw Failure("tile takes 0 or a multiple of 64")
                }
                tile = t
            case "matrix":
                guard let m = UInt16(v), m == 1 || m == 6 else {
                    throw Failure("matrix takes 1 (BT.709) or 6 (BT.601)")
                }
                matrix = m
            case "denoise":
                guard let s = Variant.denoiseStrengths[v] else {
                    throw Failure("denoise takes \(Variant.denoiseStrengths.keys.sorted().joined(separator: ", "))")
                }
                denoise = s
            case _ where k.hasPrefix("untiled."):
                guard !v.isEmpty else { throw Failure("variant '\(text)': \(k) needs a value") }
                untiledX265[String(k.dropFirst("untiled.".count))] = v
            default:
                guard !v.isEmpty else { throw Failure("variant '\(text)': \(k) needs a value") }
                x265[k] = v
            }
        }
    }

    /// Named strengths: the share of the estimated noise variance the local Wiener filter takes out.
    static let denoiseStrengths = ["light": 0.5, "full": 1.0]

    /// The encoder settings; `untiled`: for a frame coded as one picture (with `untiledX265` over `x265`).
    func settings(preset: String, quality: Int, untiled: Bool = false) -> HeifEncodeSettings {
        HeifEncodeSettings(
            quality: quality, bitDepth: depth, chroma: chroma, preset: preset, tune: tune, nclx: nclx,
            x265: untiled ? x265.merging(untiledX265) { _, one in one } : x265)
    }

    /// Display P3 as the converter signals it, with this variant's matrix.
    var nclx: NCLX {
        var n = NCLX.displayP3
        n.matrixCoefficients = matrix
        return n
    }

    /// The frame this variant encodes: `frame` itself, or its denoised copy.
    func input(_ frame: HeifPixels) -> HeifPixels {
        guard let s = denoise, case .rgb8(let w, let h, let samples) = frame else { return frame }
        return .rgb8(width: w, height: h, samples: Denoise.wiener(samples, width: w, height: h, strength: s))
    }
}

/// A light pre-encode denoise: a local (3×3) Wiener filter per channel (Lee, "Digital image enhancement and noise
/// filtering by use of local statistics", IEEE PAMI 2(2), 1980), out = μ + max(0, σ² − k·σn²) / σ² · (x − μ), with
/// the channel's noise variance σn² estimated by Immerkær's method ("Fast noise variance estimation", CVIU 64(2),
/// 1996: σn = √(π/2) / (6 (W−2)(H−2)) · Σ |I ∗ N|, N the 3×3 Laplacian difference mask). Flat areas lose noise; on
/// edges and texture σ² ≫ σn², so they pass nearly untouched.
enum Denoise {
    static func wiener(_ s: [UInt8], width w: Int, height h: Int, strength k: Double) -> [UInt8] {
        guard w >= 3, h >= 3 else { return s }
        var out = s
        for c in 0..<3 {
            let noiseVar = k * pow(immerkaer(s, w, h, c), 2)
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    var sum = 0.0
                    var sq = 0.0
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let v = Double(s[3 * ((y + dy) * w + x + dx) + c])
                            sum += v
                            sq += v * v
                        }
                    }
                    let mu = sum / 9
                    let variance = max(0, sq / 9 - mu * mu)
                    let i = 3 * (y * w + x) + c
                    guard variance > 0 else { continue }
                    let g = max(0, variance - noiseVar) / variance
                    out[i] = UInt8(min(255, max(0, (mu + g * (Double(s[i]) - mu)).rounded())))
                }
            }
        }
        return out
    }

    /// Immerkær's σn of channel `c`.
    static func immerkaer(_ s: [UInt8], _ w: Int, _ h: Int, _ c: Int) -> Double {
        let mask: [Double] = [1, -2, 1, -2, 4, -2, 1, -2, 1]
        var total = 0.0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                var acc = 0.0
                for j in 0..<9 { acc += mask[j] * Double(s[3 * ((y + j / 3 - 1) * w + x + j % 3 - 1) + c]) }
                total += abs(acc)
            }
        }
        return (Double.pi / 2).squareRoot() / (6 * Double(w - 2) * Double(h - 2)) * total
    }
}
