import ColorScience
import Foundation

/// The HDR policy: whether a capture gets a gain map, from its measured headroom (luminance above SDR white). A gain
/// map is written only where the capture holds highlights above SDR white; no HDR is invented.
public enum HDRPolicy {
    /// A mosaic RAW gets a gain map when more than this fraction of pixels is more than one stop
    /// above SDR white.
    public static let mosaicHighlightFraction = 0.001
    /// A linear DNG gets its SDR/HDR pair when the 99.9th percentile is at least this many stops above SDR white.
    public static let linearDNGMinimumHeadroom = 0.1

    /// Measures the captured headroom on a subsample and applies the policy.
    static func decide(_ img: any LinearFrame, renderer: Renderer, kind: InputKind, hdr: HDRMode) -> HDRDecision {
        let step = max(1, Int((Double(img.width * img.height) / 250_000).squareRoot()))
        // The sampled rows in bands on the pool, each band's luminances in its own slot, joined in row order (the
        // percentile and the count do not depend on the order anyway).
        let rows = (img.height + step - 1) / step
        let bands = max(1, min(16, rows / 32))
        var slots = [(ys: [Float], above: Int)](repeating: ([], 0), count: bands)
        slots.withUnsafeMutableBufferPointer { buf in
            // unchecked: each band writes its own slot.
            let out = UnsafeSendable(buf.baseAddress!)
            Parallel.forEach(bands) { band in
                var ys: [Float] = []
                ys.reserveCapacity((rows / bands + 1) * (img.width / step + 1))
                var above = 0
                // Each sampled row through the render's vectorised kernel: `Renderer.pixel`'s luminance, bit for bit.
                let kernel = RowKernel(width: img.width)
                defer { kernel.deallocate() }
                var scratch = [UInt16](repeating: 0, count: 3 * img.width)
                for row in (rows * band / bands)..<(rows * (band + 1) / bands) {
                    let lum = scratch.withUnsafeMutableBufferPointer {
                        kernel.luminance(img.rgbRow(row * step, scratch: $0), renderer: renderer, step: step)
                    }
                    for i in 0..<lum.count {
                        ys.append(lum.y[i])
                        if lum.y[i] > 2 { above += 1 }
                    }
                }
                out.value[band] = (ys, above)
            }
        }
        var ys = slots.flatMap(\.ys)
        let above = slots.reduce(0) { $0 + $1.above }
        // The 99.9th percentile: the order statistic a sort would put there, selected.
        let p999 = ys.isEmpty ? 0 : OrderStatistic.value(&ys, min(ys.count - 1, Int(Double(ys.count) * 0.999)))
        let headroom = max(0, log2(Double(max(p999, 1e-6))))
        let frac = ys.isEmpty ? 0 : Double(above) / Double(ys.count)
        var d = HDRDecision(
            gainMap: false, reason: "", measuredHeadroomStops: headroom, fractionAboveOneStop: frac,
            clipHeadroomStops: renderer.clipStops)
        let measured = String(
            format: "headroom %.2f stops, %.3f%% of pixels > 1 stop over SDR white", headroom, frac * 100)
        switch (hdr, kind) {
        case (.off, _):
            d.reason = "HDR off by option: flat SDR (\(measured))"
        case (.auto, .linearDNG):
            d.gainMap = headroom >= linearDNGMinimumHeadroom
            d.reason =
                d.gainMap
                ? "linear DNG: SDR/HDR pair → gain map (\(measured))"
                : "linear DNG without highlights above SDR white: flat SDR (\(measured))"
        case (.auto, .mosaicRAW):
            d.gainMap = frac >= mosaicHighlightFraction
            d.reason =
                d.gainMap
                ? "RAW with captured highlights: gain map (\(measured))"
                : "RAW below the highlight threshold (0.1% of pixels > 1 stop): flat SDR, no invented HDR (\(measured))"
        case (.auto, .renderedHEIF):
            d.reason = "already-rendered input: flat SDR"
        }
        return d
    }
}
