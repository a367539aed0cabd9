import ColorScience
import Foundation
import GainMap
import HEIF
import HeifCodec

// The gain map of a RAW with captured highlights: its values from the render pass's cell statistics, coded as a
// monochrome HEVC image (a grid when larger than one tile), and described for both views, ISO 21496-1 and Apple's.

/// A coded gain map and what describes it: the ISO metadata, the alternate rendition, Apple's headroom.
struct EncodedGainMap {
    var image: CodedImage
    var metadata: GainMapMetadata
    var alternate: AlternateRendition
    var appleHeadroom: Double
}

/// Computes and codes the gain map.
enum GainMapEncoder {
    /// The gain map's metadata and 8-bit values from the render pass's cell statistics (every band rendered).
    ///
    /// `GainMapMath.compute` at downscale 2 averages log2((Y_hdr + k_hdr)/(Y_sdr + k_sdr)) over 2×2 cells; the pass
    /// accumulated exactly those means while rendering, so no full-size luminance planes exist.
    /// `GainMapMath.fromLogRatios` turns them into the map, with the alternate headroom `compute` would have measured
    /// on the full-size plane (log2 of the HDR peak).
    static func compute(_ pass: RenderPass, file: String) throws -> ComputedGainMap {
        var o = GainMapComputeOptions()
        o.channels = 1
        o.downscale = 1
        o.baseHdrHeadroom = 0
        o.alternateHdrHeadroom = max(0, log2(Double(max(pass.hdrPeak, 1e-6))))
        do {
            // The render pass already averaged log2((hdr + k_alt) / (sdr + k_base)) per cell (offsets as in `o`).
            return try GainMapMath.fromLogRatios(
                pass.cellMeans(), width: pass.cellWidth, height: pass.cellHeight, baseHdrHeadroom: 0,
                alternateHdrHeadroom: o.alternateHdrHeadroom ?? 0, options: o)
        } catch {
            throw ConvertError(file: file, reason: "gain map: \(error)")
        }
    }

    /// Codes the computed gain map (a grid when larger than one tile) and describes it: the ISO metadata, the
    /// alternate rendition, Apple's headroom and the result's summary.
    static func encode(
        _ pass: RenderPass, _ computed: ComputedGainMap, options: ConvertOptions, file: String
    ) throws -> (EncodedGainMap, GainMapSummary) {
        let (gw, gh, q) = (computed.width, computed.height, computed.quantized)
        let gmSettings = HeifEncodeSettings(
            quality: options.gainMapQuality, preset: options.gainMapSpeed, nclx: .gainMap)
        let image: CodedImage
        let bytes: Int
        if let layout = try TileLayout.coding(width: gw, height: gh, tileSize: options.tileSize, file: file) {
            let tiles = try q.withUnsafeBytes { src in
                try TiledEncoder.encodeGrid(
                    layout: layout, channels: 1, bitDepth: 8, settings: gmSettings, options: options, file: file
                ) { y0, y1, band in
                    band.copyMemory(from: src.baseAddress! + y0 * layout.width, byteCount: (y1 - y0) * layout.width)
                }
            }
            image = .grid(layout, tiles)
            bytes = tiles.reduce(0) { $0 + $1.data.count }
        } else {
            // Even and at least 64 px a side (an odd or smaller map is a 1×1 grid above: no padding, no `clap`).
            // At most one tile's size: one thread, no x265 pool, as for the tiles.
            let item = try TiledEncoder.encodeItem(
                .mono8(width: gw, height: gh, samples: q), settings: gmSettings, threads: 1, file: file)
            image = .single(item)
            bytes = item.data.count
        }
        let chMeta = computed.metadata.channel(0)
        let ha = computed.metadata.alternateHdrHeadroom.doubleValue
        // Apple's view carries the same headroom as the ISO view (libavif's Apple ↔ ISO mapping,
        // HDRGainMapHeadroom = 2^alternate_hdr_headroom; docs/platform.md), so the auditor's consistency check
        // (log2(Apple headroom) ≈ alternate_hdr_headroom) holds for our own files.
        let appleH = max(1, exp2(ha))
        let mean = pass.hdrSum / Double(max(1, pass.width * pass.height))
        let clli = (
            UInt16(clamping: Int((Double(pass.hdrPeak) * 203).rounded())), UInt16(clamping: Int((mean * 203).rounded()))
        )
        let summary = GainMapSummary(
            width: gw, height: gh, gainMin: chMeta.min.doubleValue, gainMax: chMeta.max.doubleValue,
            alternateHeadroom: ha, appleHeadroom: appleH, bytes: bytes)
        // The alternate rendition: the base's primaries, shown through PQ on an HDR display (never coded, only described).
        let alternate = AlternateRendition(
            nclx: NCLX(options.colorSpace == .displayP3 ? .displayP3 : .bt709, .pq, .identity, fullRange: true),
            bitsPerChannel: [10, 10, 10], contentLightLevel: clli.0 > 0 ? (clli.0, clli.1) : nil)
        return (
            EncodedGainMap(image: image, metadata: computed.metadata, alternate: alternate, appleHeadroom: appleH),
            summary
        )
    }
}
