import Foundation

/// Applying a gain map (ISO 21496-1): the alternate rendition, or one weighted for a display's headroom, from the
/// base and the map.
extension GainMapMath {
    /// Applies an ISO 21496-1 gain map to a linear base for a display of the given headroom.
    ///
    /// `out = (base + k_base)·2^(w·(min + (max − min)·g^(1/gamma))) − k_alt` per channel, w from `weight`
    /// (ISO 21496-1; libavif `avifRGBImageApplyGainMap`). The map is upsampled bilinearly (pixel centres
    /// aligned); a one-channel map drives all planes. No clamping: the caller encodes and clips.
    /// - Parameters:
    ///   - base: the linear base rendition.
    ///   - gainMap: the map in [0,1] (e.g. `ComputedGainMap.dequantized()` or a decoded plane / 255), any size.
    ///   - metadata: the ISO 21496-1 metadata.
    ///   - displayHeadroom: the display headroom (log2); use `alternate_hdr_headroom` for the full alternate.
    /// - Returns: the adapted rendition, same size and planes as `base`.
    /// - Throws: `GainMapError.invalidInput` when the metadata is unusable (zero denominators, no channels).
    public static func apply(
        base: LinearImage, gainMap: LinearImage, metadata: GainMapMetadata, displayHeadroom: Double
    ) throws(GainMapError) -> LinearImage {
        let w = weight(
            displayHeadroom: displayHeadroom, baseHeadroom: metadata.baseHdrHeadroom.doubleValue,
            alternateHeadroom: metadata.alternateHdrHeadroom.doubleValue)
        return try apply(base: base, gainMap: gainMap, metadata: metadata, weight: w)
    }

    /// Applies an ISO 21496-1 gain map with an explicit weight (see `apply(base:gainMap:metadata:displayHeadroom:)`).
    /// - Parameters:
    ///   - base: the linear base rendition.
    ///   - gainMap: the map in [0,1], any size, 1 or 3 planes.
    ///   - metadata: the ISO 21496-1 metadata.
    ///   - weight: w in [−1, 1].
    /// - Returns: the adapted rendition.
    /// - Throws: `GainMapError.invalidInput` when the metadata is unusable.
    public static func apply(
        base: LinearImage, gainMap: LinearImage, metadata: GainMapMetadata, weight: Double
    ) throws(GainMapError) -> LinearImage {
        guard !metadata.channels.isEmpty, gainMap.width > 0, gainMap.height > 0, gainMap.channels > 0 else {
            throw .invalidInput("gain map or metadata is empty")
        }
        let invalid = GainMapValidation.validate(ToneMapImage(metadata: metadata)).filter {
            [.gainmapTmapDenominatorZero, .gainmapTmapGammaZero, .gainmapTmapChannelCount].contains($0.code)
        }
        guard invalid.isEmpty else { throw .invalidMetadata(invalid) }
        var out = base
        let wf = Float(weight)
        let plane = base.planeSize
        let w = base.width
        let sampler = GainSampler(baseWidth: base.width, baseHeight: base.height, map: gainMap)
        var row = [Float](repeating: 0, count: w)
        out.pixels.withUnsafeMutableBufferPointer { op in
            base.pixels.withUnsafeBufferPointer { bp in
                gainMap.pixels.withUnsafeBufferPointer { gp in
                    row.withUnsafeMutableBufferPointer { rb in
                        if metadata.channels.count == 1 && gainMap.channels == 1 {
                            // One map, one set of parameters: one exp2 per pixel for all planes.
                            let p = metadata.channels[0]
                            let lo = Float(p.min.doubleValue)
                            let span = Float(p.max.doubleValue) - lo
                            let invGamma = Float(1 / p.gamma.doubleValue)
                            let kb = Float(p.baseOffset.doubleValue)
                            let ka = Float(p.alternateOffset.doubleValue)
                            for y in 0..<base.height {
                                sampler.sampleRow(y, plane: 0, from: gp, into: rb)
                                let o = y * w
                                for x in 0..<w {
                                    let g = rb[x]
                                    let gg = invGamma == 1 ? g : pow(Swift.max(g, 0), invGamma)
                                    let f = exp2((lo + span * gg) * wf)
                                    for c in 0..<base.channels {
                                        let i = c * plane + o + x
                                        op[i] = (bp[i] + kb) * f - ka
                                    }
                                }
                            }
                            return
                        }
                        for c in 0..<base.channels {
                            let p = metadata.channel(Swift.min(c, 2))
                            let lo = Float(p.min.doubleValue)
                            let span = Float(p.max.doubleValue) - lo
                            let invGamma = Float(1 / p.gamma.doubleValue)
                            let kb = Float(p.baseOffset.doubleValue)
                            let ka = Float(p.alternateOffset.doubleValue)
                            let mapPlane = Swift.min(c, gainMap.channels - 1)
                            for y in 0..<base.height {
                                sampler.sampleRow(y, plane: mapPlane, from: gp, into: rb)
                                let o = c * plane + y * w
                                for x in 0..<w {
                                    let g = rb[x]
                                    let gg = invGamma == 1 ? g : pow(Swift.max(g, 0), invGamma)
                                    op[o + x] = (bp[o + x] + kb) * exp2((lo + span * gg) * wf) - ka
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Bilinear sampling of a gain-map plane at base resolution, pixel centres aligned (identity when the
    /// sizes match), or nearest (both indices the same, weight 0); index and weight tables are built once.
    struct GainSampler {
        let w: Int, gw: Int, gh: Int, same: Bool
        let x0: [Int], x1: [Int], fx: [Float], y0: [Int], y1: [Int], fy: [Float]

        init(baseWidth: Int, baseHeight: Int, map: LinearImage, nearest: Bool = false) {
            w = baseWidth
            gw = map.width
            gh = map.height
            same = map.width == baseWidth && map.height == baseHeight
            func axis(_ n: Int, _ gn: Int) -> ([Int], [Int], [Float]) {
                var i0 = [Int](repeating: 0, count: n)
                var i1 = i0
                var f = [Float](repeating: 0, count: n)
                let scale = Double(gn) / Double(n)
                for x in 0..<n {
                    if nearest {
                        i0[x] = Swift.min(gn - 1, x * gn / n)
                        i1[x] = i0[x]
                        continue
                    }
                    let s = Swift.min(Swift.max((Double(x) + 0.5) * scale - 0.5, 0), Double(gn - 1))
                    let a = Int(s.rounded(.down))
                    i0[x] = a
                    i1[x] = Swift.min(a + 1, gn - 1)
                    f[x] = Float(s - Double(a))
                }
                return (i0, i1, f)
            }
            (x0, x1, fx) = axis(baseWidth, map.width)
            (y0, y1, fy) = axis(baseHeight, map.height)
        }

        /// Writes row `y` of plane `plane`, upsampled to the base width, into `out`.
        func sampleRow(
            _ y: Int, plane: Int, from g: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>
        ) {
            let base = plane * gw * gh
            if same {
                for x in 0..<w { out[x] = g[base + y * w + x] }
                return
            }
            let r0 = base + y0[y] * gw
            let r1 = base + y1[y] * gw
            let ty = fy[y]
            x0.withUnsafeBufferPointer { x0 in
                x1.withUnsafeBufferPointer { x1 in
                    fx.withUnsafeBufferPointer { fx in
                        for x in 0..<w {
                            let a = g[r0 + x0[x]]
                            let b = g[r0 + x1[x]]
                            let c = g[r1 + x0[x]]
                            let d = g[r1 + x1[x]]
                            let tx = fx[x]
                            let top = a + (b - a) * tx
                            let bottom = c + (d - c) * tx
                            out[x] = top + (bottom - top) * ty
                        }
                    }
                }
            }
        }
    }
}
