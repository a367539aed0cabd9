import ColorScience
import Foundation

/// Apple's gain-map formula (`hdr = sdr · (1 + (headroom − 1)·gain)`), beside the ISO 21496-1 maths.
extension GainMapMath {
    /// How Apple's gain-map samples are linearised before the formula (sources disagree; docs/platform.md, gain-map
    /// formats).
    public enum AppleGainEncoding: Sendable, Hashable {
        /// Use the normalised sample as is (tev).
        case linear
        /// Sample^2.2 (the heifer crate's reading of ImageIO).
        case gamma22
        /// Inverse Rec.709 OETF (Apple's doc wording).
        case rec709
    }

    /// How a gain map smaller than its base is sampled at base resolution.
    public enum Sampling: Sendable, Hashable {
        /// Bilinear, pixel centres aligned.
        case bilinear
        /// The map pixel `⌊x · mapWidth / width⌋` (and the same for rows), no interpolation.
        case nearest
    }

    /// Applies an Apple gain map: `hdr = sdr · (1 + (headroom − 1)·gain)` (Apple "Applying Apple HDR effect").
    /// - Parameters:
    ///   - base: the linear SDR base.
    ///   - gainMap: the map in [0, `mapMaximum`], any size (one plane is used for all channels).
    ///   - headroom: Apple's linear headroom (HDRGainMapHeadroom or 2^MakerNote stops).
    ///   - encoding: how to linearise the map samples.
    ///   - sampling: how the map is brought to the base's size.
    ///   - mapMaximum: the map value of full gain: 1 for a map in [0,1], or 2^bits − 1 for a map of code values
    ///     (the linear gain is then `(headroom − 1)·code / mapMaximum`, multiplied before it is divided).
    /// - Returns: the HDR rendition, linear.
    public static func applyApple(
        base: LinearImage, gainMap: LinearImage, headroom: Double, encoding: AppleGainEncoding = .linear,
        sampling: Sampling = .bilinear, mapMaximum: Float = 1
    ) -> LinearImage {
        var out = base
        guard gainMap.width > 0, gainMap.height > 0, gainMap.channels > 0 else { return out }
        let hm1 = Float(headroom - 1)
        let plane = base.planeSize
        let w = base.width
        let sampler = GainSampler(
            baseWidth: base.width, baseHeight: base.height, map: gainMap, nearest: sampling == .nearest)
        var row = [Float](repeating: 0, count: w)
        out.pixels.withUnsafeMutableBufferPointer { op in
            base.pixels.withUnsafeBufferPointer { bp in
                gainMap.pixels.withUnsafeBufferPointer { gp in
                    row.withUnsafeMutableBufferPointer { rb in
                        for y in 0..<base.height {
                            sampler.sampleRow(y, plane: 0, from: gp, into: rb)
                            for x in 0..<w {
                                let g = Swift.min(Swift.max(rb[x], 0), mapMaximum)
                                let gain: Float
                                switch encoding {
                                case .linear: gain = hm1 * g / mapMaximum
                                case .gamma22: gain = hm1 * pow(g / mapMaximum, 2.2)
                                case .rec709: gain = hm1 * BT709Transfer.decode(g / mapMaximum)
                                }
                                let f = 1 + gain
                                let i = y * w + x
                                for c in 0..<base.channels { op[c * plane + i] = bp[c * plane + i] * f }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
