internal import CRaw
import Foundation

/// A region of a RAW's unpacked samples, before demosaicing: what the sensor recorded, as LibRaw holds it after
/// `LibRawDecoder.open` (linearisation and the DNG opcodes Readback applies already applied).
public struct RawSamples: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 for a CFA mosaic, 3 for LinearRaw (interleaved R, G, B).
    public var channels: Int
    /// Row-major, `channels` interleaved.
    public var samples: [UInt16]
    /// The black level (LibRaw's `black` plus the lowest per-channel and lowest pattern offset) and the white level.
    public var black: Int
    public var white: Int
    /// Offset of the region inside the visible area (even for a mosaic, so its CFA phase is the file's).
    public var x: Int
    public var y: Int
}

extension LibRawDecoder {
    /// The centred `width`×`height` region of the visible area (the whole area when it is smaller), with even offsets
    /// so a mosaic keeps its CFA phase. Call after `open`.
    /// - Throws: `RawDecodeError` `.noRawData` when LibRaw holds no unpacked buffer.
    public func visibleSamples(width cw: Int, height ch: Int) throws -> RawSamples {
        let d = handle.pointee
        let (vw, vh) = (Int(d.sizes.width), Int(d.sizes.height))
        let (left, top) = (Int(d.sizes.left_margin), Int(d.sizes.top_margin))
        let rw = Int(d.sizes.raw_width)
        let base: UnsafePointer<UInt16>
        let stride: Int
        let channels: Int
        if let raw = d.rawdata.raw_image {
            (base, stride, channels) = (UnsafePointer(raw), 1, 1)
        } else if let c4 = d.rawdata.color4_image {
            (base, stride, channels) = (UnsafeRawPointer(c4).assumingMemoryBound(to: UInt16.self), 4, 3)
        } else if let c3 = d.rawdata.color3_image {
            (base, stride, channels) = (UnsafeRawPointer(c3).assumingMemoryBound(to: UInt16.self), 3, 3)
        } else {
            throw RawDecodeError(file: fileName, reason: .noRawData)
        }
        let pitch = d.sizes.raw_pitch > 0 ? Int(d.sizes.raw_pitch) / 2 : rw * stride
        let w = min(cw, vw) & ~1
        let h = min(ch, vh) & ~1
        let x0 = ((vw - w) / 2) & ~1
        let y0 = ((vh - h) / 2) & ~1
        var out = [UInt16](repeating: 0, count: w * h * channels)
        for y in 0..<h {
            let row = base + (top + y0 + y) * pitch + (left + x0) * stride
            for x in 0..<w {
                for c in 0..<channels { out[(y * w + x) * channels + c] = row[x * stride + c] }
            }
        }
        // cblack[0…3] per channel, cblack[4]×cblack[5] a repeat pattern whose values follow from cblack[6].
        let pattern = Int(min(cblack(4), 64) * min(cblack(5), 64))
        let perChannel = (0..<4).map { cblack($0) }.min() ?? 0
        let perSite = (6..<(6 + pattern)).map { cblack($0) }.min() ?? 0
        let black = Int(d.color.black) + Int(perChannel) + Int(perSite)
        return RawSamples(
            width: w, height: h, channels: channels, samples: out, black: black, white: Int(d.color.maximum),
            x: x0, y: y0)
    }
}
