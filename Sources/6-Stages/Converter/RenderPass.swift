import ColorScience
import Foundation
import GainMap
import HeifCodec
import RawDecoder

/// Read access to a linear 16-bit upright RGB frame (LibRaw's buffer in place, or a copy).
protocol LinearFrame: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    func pixel(x: Int, y: Int) -> (UInt16, UInt16, UInt16)
    func copyRow(_ y: Int, into dst: UnsafeMutableBufferPointer<UInt16>)
    /// Row `y` in place when the frame keeps it as `copyRow` would copy it, else nil.
    func row(_ y: Int) -> UnsafePointer<UInt16>?
    /// Lets this process stop mapping what only rows before `y` read, where that loses nothing (a frame in shared
    /// memory, `RawFrame.releasePages(before:)`); the rows read the same afterwards.
    func releasePages(before y: Int)
}

extension LinearFrame {
    func row(_ y: Int) -> UnsafePointer<UInt16>? { nil }
    func releasePages(before y: Int) {}

    /// Row `y` as interleaved RGB: in place when the frame keeps it so (a worker's packed frame), else copied into
    /// `scratch` (3 × width samples).
    func rgbRow(_ y: Int, scratch: UnsafeMutableBufferPointer<UInt16>) -> UnsafePointer<UInt16> {
        if let p = row(y) { return p }
        copyRow(y, into: scratch)
        return UnsafePointer(scratch.baseAddress!)
    }
}

extension RawFrame: LinearFrame {}

/// A streaming render of a frame, band by band: the SDR base as 8/10-bit interleaved RGB rows for the encoder, and,
/// accumulated on the way, what the gain map and the thumbnail need — so no full-size float plane and no full-size
/// output copy exist when the image is tiled.
///
/// Gain map: per 2×2 cell the sum of log2((Y_hdr + k) / (Y_sdr + k)) with k = GainMapComputeOptions' offsets (what
/// `GainMapMath.compute` averages at downscale 2), the HDR peak and mean luminance. Thumbnail: box sums of the output
/// codes over f×f blocks (f = ⌈long side / 320⌉).
///
/// `render(rows:into:)` may be called for consecutive bands only (from one thread); it uses all cores inside.
// unchecked: bands are rendered from one thread at a time; inside one, the threads write disjoint rows.
final class RenderPass: @unchecked Sendable {
    let renderer: Renderer
    private(set) var frame: (any LinearFrame)?
    let width: Int
    let height: Int
    let bitDepth: Int
    private let lut: [UInt16]

    let gainMap: Bool
    /// Gain-map cells: ⌈w/2⌉ × ⌈h/2⌉.
    let cellWidth: Int
    let cellHeight: Int
    private let cells: UnsafeMutablePointer<Float>
    private let offsetBase: Float
    private let offsetAlternate: Float
    private(set) var hdrPeak: Float = 0
    private(set) var hdrSum: Double = 0

    let thumbFactor: Int
    let thumbWidth: Int
    let thumbHeight: Int
    private var thumbSums: [Float]
    private var nextRow = 0

    /// What the look step did (nil where no RAW look applies).
    let look: LookSummary?

    init(frame: any LinearFrame, renderer: Renderer, bitDepth: Int, gainMap: Bool, look: LookSummary? = nil) {
        self.frame = frame
        self.look = look
        self.renderer = renderer
        width = frame.width
        height = frame.height
        self.bitDepth = bitDepth
        let maxCode = Float(bitDepth == 10 ? 1023 : 255)
        lut = (0..<65536).map { UInt16((SRGBTransfer.encode(Float($0) / 65535) * maxCode).rounded()) }
        self.gainMap = gainMap
        cellWidth = gainMap ? (width + 1) / 2 : 0
        cellHeight = gainMap ? (height + 1) / 2 : 0
        cells = .allocate(capacity: max(1, cellWidth * cellHeight))
        cells.initialize(repeating: 0, count: max(1, cellWidth * cellHeight))
        let o = GainMapComputeOptions()
        offsetBase = Float(o.baseOffset.doubleValue)
        offsetAlternate = Float(o.alternateOffset.doubleValue)
        // About 320 px on the long side, but never over 200 times fewer pixels than the image (MIAF §7.3.3): past
        // 320 × 14 px a side the box shrinks less, so a 50 MP image gets a thumbnail of about 600 px.
        var f = max(1, Int((Double(max(width, height)) / 320).rounded(.up)))
        // Even sides: a 4:2:0 thumbnail of odd size would be coded padded with an odd `clap` (MIAF §7.3.6.7 forbids
        // it) and an `ispe` other than the decoded size; dropping at most one column and row keeps it exact.
        while f > 1 && width * height > 200 * (width / f / 2 * 2) * (height / f / 2 * 2) { f -= 1 }
        let tw = width / f / 2 * 2
        let th = height / f / 2 * 2
        // At least 64 px a side: libheif 1.15 codes a smaller picture padded to 64 with an `ispe` of the smaller size.
        let thumb = f > 1 && tw >= 64 && th >= 64
        thumbFactor = f
        thumbWidth = thumb ? tw : 0
        thumbHeight = thumb ? th : 0
        thumbSums = [Float](repeating: 0, count: thumb ? tw * th * 3 : 0)
    }

    deinit { cells.deallocate() }

    /// Drops the frame (LibRaw's buffers go with the last reference) once every row is rendered.
    func releaseFrame() { frame = nil }

    /// Stops mapping the frame's pages where it is a worker's shared memory, before the render reads it band by band:
    /// the passes before it (the look, the HDR decision, the noise probe) mapped all of it, and the render maps each
    /// band again and lets it go once rendered, so the parent never holds the whole frame beside the encoders.
    func releaseFramePages() { frame?.releasePages(before: height) }

    /// Renders rows `y0 ..< y1` (the next band; `y0` even) into `out`: interleaved RGB, `width × 3` samples a row,
    /// `UInt8` for 8-bit, `UInt16` (10-bit codes) for 10-bit.
    func render(rows y0: Int, _ y1: Int, into out: UnsafeMutableRawPointer) {
        precondition(
            y0 == nextRow && y1 > y0 && y1 <= height && y0 % 2 == 0, "bands must be consecutive and start even")
        guard let frame else { preconditionFailure("frame already released") }
        nextRow = y1
        let w = width
        let cw = cellWidth
        let depth = bitDepth
        let chunk = 16  // even, so a gain-map cell row never spans two chunks
        let chunks = (y1 - y0 + chunk - 1) / chunk
        var peaks = [Float](repeating: 0, count: chunks)
        var sums = [Double](repeating: 0, count: chunks)
        let r = renderer
        let gm = gainMap
        let kb = offsetBase
        let ka = offsetAlternate
        let cellPtr = UnsafeSendable(cells)
        lut.withUnsafeBufferPointer { lutP in
            peaks.withUnsafeMutableBufferPointer { pk in
                sums.withUnsafeMutableBufferPointer { sm in
                    let shared = (
                        lut: UnsafeSendable(lutP), pk: UnsafeSendable(pk.baseAddress!),
                        sm: UnsafeSendable(sm.baseAddress!), out: UnsafeSendable(out)
                    )
                    Parallel.forEach(chunks) { k in
                        let lut = shared.lut.value
                        var row = [UInt16](repeating: 0, count: 3 * w)
                        let kernel = RowKernel(width: w)
                        defer { kernel.deallocate() }
                        var peak: Float = 0
                        var sum = 0.0
                        let ys = y0 + k * chunk
                        let ye = min(y1, ys + chunk)
                        row.withUnsafeMutableBufferPointer { rb in
                            for y in ys..<ye {
                                let src = frame.rgbRow(y, scratch: rb)
                                let o = (y - y0) * 3 * w * (depth == 8 ? 1 : 2)
                                let (rowPeak, rowSum) = kernel.render(
                                    src, renderer: r, lut: lut.baseAddress!, depth: depth,
                                    out: shared.out.value + o, cells: gm ? cellPtr.value + (y / 2) * cw : nil, ka: ka,
                                    kb: kb)
                                peak = max(peak, rowPeak)
                                sum += Double(rowSum)
                            }
                        }
                        shared.pk.value[k] = peak
                        shared.sm.value[k] = sum
                    }
                }
            }
        }
        frame.releasePages(before: y1)
        if gm {
            hdrPeak = max(hdrPeak, peaks.max() ?? 0)
            hdrSum += sums.reduce(0, +)
        }
        accumulateThumbnail(rows: y0, y1, out)
    }

    private func accumulateThumbnail(rows y0: Int, _ y1: Int, _ out: UnsafeMutableRawPointer) {
        guard thumbWidth > 0 else { return }
        let f = thumbFactor
        let tw = thumbWidth
        let w = width
        // Integer sums per thumbnail pixel and row (no division per pixel), added to the float sums once per row.
        thumbSums.withUnsafeMutableBufferPointer { acc in
            for y in y0..<y1 where y / f < thumbHeight {
                let base = (y / f) * tw * 3
                let o = (y - y0) * 3 * w
                for t in 0..<tw {
                    let (r, g, b) =
                        bitDepth == 8
                        ? Self.sumRun(out.assumingMemoryBound(to: UInt8.self) + o + 3 * t * f, pixels: f)
                        : Self.sumRun(out.assumingMemoryBound(to: UInt16.self) + o + 3 * t * f, pixels: f)
                    acc[base + 3 * t] += Float(r)
                    acc[base + 3 * t + 1] += Float(g)
                    acc[base + 3 * t + 2] += Float(b)
                }
            }
        }
    }

    /// Sums of R, G and B over `pixels` interleaved pixels.
    @inline(__always)
    private static func sumRun<T: FixedWidthInteger>(_ start: UnsafePointer<T>, pixels: Int) -> (Int, Int, Int) {
        var (r, g, b) = (0, 0, 0)
        var p = start
        for _ in 0..<pixels {
            r += Int(p[0])
            g += Int(p[1])
            b += Int(p[2])
            p += 3
        }
        return (r, g, b)
    }

    /// The 8-bit thumbnail (about 320 px on the long side, more on images over 20 MP: MIAF §7.3.3), nil for images
    /// too small to need one.
    func thumbnail() -> HeifPixels? {
        guard thumbWidth > 0 else { return nil }
        let div = Float(thumbFactor * thumbFactor) * (bitDepth == 10 ? 4 : 1)
        let t = thumbSums.map { UInt8(min(255, ($0 / div).rounded())) }
        return .rgb8(width: thumbWidth, height: thumbHeight, samples: t)
    }

    /// The mean log2 ratio per gain-map cell (edge cells average fewer pixels), row by row.
    func cellMeans() -> [Float] {
        let cw = cellWidth
        let ch = cellHeight
        var out = [Float](repeating: 0, count: cw * ch)
        // x · (1/n) equals x / n exactly for n = 1, 2, 4.
        out.withUnsafeMutableBufferPointer { o in
            for gy in 0..<ch {
                let rows = min(2, height - 2 * gy)
                let inner: Float = rows == 2 ? 0.25 : 0.5
                let row = gy * cw
                for gx in 0..<cw { o[row + gx] = cells[row + gx] * inner }
                if width % 2 == 1 { o[row + cw - 1] = cells[row + cw - 1] * (rows == 2 ? 0.5 : 1) }
            }
        }
        return out
    }
}
