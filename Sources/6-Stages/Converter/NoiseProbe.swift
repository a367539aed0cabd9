import ColorScience
import Fidelity
import Foundation

// The frame's visible noise, measured before it is encoded (`NoiseLevel`): the quality depends on it.

extension RenderPass {
    /// 8-bit sRGB-transfer codes of linear values, indexed by `Renderer.tableIndex` (the render's 8-bit table).
    private static let codes8: [UInt16] = (0..<65536).map {
        UInt16((SRGBTransfer.encode(Float($0) / 65535) * 255).rounded())
    }

    /// σ of the frame's noise (`NoiseLevel`, 8-bit code values) from up to 64 evenly spaced bands of 18 rows across
    /// the whole width, rendered as the encoder receives them (SDR base, sRGB transfer, 8-bit) and weighted to luma
    /// (BT.709 weights on the coded values). About 7 M pixels of a 24 MP frame; nil before the frame is read or for a
    /// frame smaller than one block.
    func noiseSigma() -> Double? {
        guard let frame else { return nil }
        let rows = NoiseLevel.block + 2
        let w = width
        guard height >= rows, w >= rows else { return nil }
        let bands = min(64, height / rows)
        let r = renderer
        let h = height
        // Bands are independent: measured on every core, each into its own slot (the percentile ignores order).
        let perBand = UnsafeMutableBufferPointer<[Float]>.allocate(capacity: bands)
        perBand.initialize(repeating: [])
        defer { perBand.deallocate() }
        let slots = UnsafeSendable(perBand)
        Self.codes8.withUnsafeBufferPointer { table in
            let shared = UnsafeSendable(table)
            Parallel.forEach(bands) { b in
                let lut = shared.value
                var row = [UInt16](repeating: 0, count: 3 * w)
                var codes = [UInt8](repeating: 0, count: 3 * w)
                var luma = [Float](repeating: 0, count: w * rows)
                // The render's own vectorised row kernel (held equal to `Renderer.pixel`), into 8-bit codes.
                let kernel = RowKernel(width: w)
                defer { kernel.deallocate() }
                let y0 = bands == 1 ? 0 : b * (h - rows) / (bands - 1)
                for k in 0..<rows {
                    row.withUnsafeMutableBufferPointer { px in
                        let src = frame.rgbRow(y0 + k, scratch: px)
                        codes.withUnsafeMutableBytes { out in
                            _ = kernel.render(
                                src, renderer: r, lut: lut.baseAddress!, depth: 8, out: out.baseAddress!,
                                cells: nil, ka: 0, kb: 0)
                        }
                    }
                    for x in 0..<w {
                        let (cr, cg, cb) = (Float(codes[3 * x]), Float(codes[3 * x + 1]), Float(codes[3 * x + 2]))
                        luma[k * w + x] = 0.2126 * cr + 0.7152 * cg + 0.0722 * cb
                    }
                }
                slots.value[b] = luma.withUnsafeBufferPointer { NoiseLevel.blockSigmas($0, width: w, height: rows) }
            }
        }
        return NoiseLevel.sigma(ofBlocks: perBand.flatMap { $0 })
    }
}
