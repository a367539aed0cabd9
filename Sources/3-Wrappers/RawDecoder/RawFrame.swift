import Foundation

/// A demosaiced linear 16-bit RGB frame read in place from LibRaw's processed buffer, upright. It owns the decoder:
/// LibRaw's memory (raw buffer + 4 × 16-bit image) is freed when the last reference to the frame goes.
/// Reads never modify the buffer, so any thread may read any rows concurrently.
// unchecked: reads never modify LibRaw's buffer, and the frame frees it only in deinit.
public final class RawFrame: @unchecked Sendable {
    /// Upright width and height.
    public let width: Int
    public let height: Int
    public let workingSpace: RawWorkingSpace
    /// What keeps `base` valid: the decoder, or a mapping of pixels another process decoded.
    private let owner: AnyObject
    private let base: UnsafePointer<UInt16>
    /// Samples per pixel in `base`: 4 in LibRaw's buffer, 3 in a packed RGB frame.
    private let samples: Int
    /// Where upright pixels are in `base`, in pixels of `samples` samples each.
    private let layout: Layout
    /// Whether `base` is a view of a shared memory file (`MAP_SHARED`), whose pages this process may stop mapping
    /// without losing the pixels (`releasePages(before:)`).
    private let sharedView: Bool

    init(
        owner: AnyObject, base: UnsafePointer<UInt16>, width: Int, height: Int, layout: Layout,
        workingSpace: RawWorkingSpace, samples: Int = 4, sharedView: Bool = false
    ) {
        self.owner = owner
        self.sharedView = sharedView
        self.samples = samples
        self.base = base
        self.width = width
        self.height = height
        self.layout = layout
        self.workingSpace = workingSpace
    }

    /// A frame over packed, upright RGB rows (3 samples per pixel) that `owner` keeps valid: the pixels a decoder
    /// in another process wrote into shared memory (`copyRow(_:into:)`'s layout, row after row).
    /// `sharedView`: `base` lies in a `MAP_SHARED` mapping of a memory file (see `releasePages(before:)`).
    public convenience init(
        packedRGB base: UnsafePointer<UInt16>, width: Int, height: Int, workingSpace: RawWorkingSpace, owner: AnyObject,
        sharedView: Bool = false
    ) {
        self.init(
            owner: owner, base: base, width: width, height: height,
            layout: Layout(origin: 0, colStep: 1, rowStep: width), workingSpace: workingSpace, samples: 3,
            sharedView: sharedView)
    }

    /// Where a frame reads its pixels, as indices of pixels in its buffer.
    public struct Layout: Codable, Sendable, Equatable {
        /// The pixel index of upright (0, 0), and the index steps for one upright column and one upright row.
        public var origin: Int
        public var colStep: Int
        public var rowStep: Int

        public init(origin: Int, colStep: Int, rowStep: Int) {
            self.origin = origin
            self.colStep = colStep
            self.rowStep = rowStep
        }

        /// The lowest and highest pixel index a `width` × `height` frame reads; nil when the sum overflows.
        func span(width: Int, height: Int) -> ClosedRange<Int>? {
            guard width > 0, height > 0 else { return nil }
            var corners: [Int] = []
            for (x, y) in [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)] {
                let (a, o1) = y.multipliedReportingOverflow(by: rowStep)
                let (b, o2) = x.multipliedReportingOverflow(by: colStep)
                let (c, o3) = origin.addingReportingOverflow(a)
                let (d, o4) = c.addingReportingOverflow(b)
                if o1 || o2 || o3 || o4 { return nil }
                corners.append(d)
            }
            return corners.min()!...corners.max()!
        }
    }

    /// LibRaw's image under this frame and how the frame reads it: nil for a packed RGB frame. `base` is valid while
    /// the frame lives.
    public var libRawImage: (base: UnsafePointer<UInt16>, layout: Layout)? {
        samples == 4 ? (base, layout) : nil
    }

    /// A frame over LibRaw's 4-sample image that a decoder in another process left in shared memory (`libRawImage`),
    /// kept valid by `owner`. Nil when `layout` reads outside the `count` samples at `base`, which is then not
    /// touched: the layout comes from the other process, which is not trusted. `sharedView`: as `init(packedRGB:…)`.
    public convenience init?(
        libRawImage base: UnsafePointer<UInt16>, count: Int, layout: Layout, width: Int, height: Int,
        workingSpace: RawWorkingSpace, owner: AnyObject, sharedView: Bool = false
    ) {
        guard let span = layout.span(width: width, height: height), span.lowerBound >= 0,
            span.upperBound < count / 4
        else { return nil }
        self.init(
            owner: owner, base: base, width: width, height: height, layout: layout, workingSpace: workingSpace,
            sharedView: sharedView)
    }

    /// Tells the kernel this process no longer needs its mappings of the pages that only upright rows before `y`
    /// lie in (`MADV_DONTNEED`), when the frame is a view of shared memory: the pixels stay in the memory file and
    /// read the same, a later read maps their pages again, and the process's resident memory no longer counts
    /// them. A render that went past those rows gives them back as it goes, so a frame decoded in a worker is not
    /// resident in whole in the parent too. Nothing for a frame over this process's own memory (LibRaw's buffer in
    /// process), whose pages would read as zeros.
    public func releasePages(before y: Int) {
        let y = min(max(y, 0), height)
        guard sharedView, y > 0, let done = layout.span(width: width, height: y) else { return }
        var lower = done.lowerBound
        var upper = done.upperBound + 1
        if y < height {
            // The rows still to read keep their pages: only what lies wholly on one side of them goes.
            let next = Layout(
                origin: layout.origin + y * layout.rowStep, colStep: layout.colStep, rowStep: layout.rowStep)
            guard let rest = next.span(width: width, height: height - y) else { return }
            if upper <= rest.lowerBound {
                upper = rest.lowerBound
            } else if lower > rest.upperBound {
                lower = rest.upperBound + 1
            } else {
                return
            }
        }
        let page = Int(getpagesize())
        let start = (Int(bitPattern: base + samples * lower) + page - 1) / page * page
        let end = Int(bitPattern: base + samples * upper) / page * page
        guard end > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(p, end - start, MADV_DONTNEED)
    }

    /// The R, G, B samples at upright (x, y); 65535 = the sensor's white level.
    @inline(__always)
    public func pixel(x: Int, y: Int) -> (UInt16, UInt16, UInt16) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the frame")
        let p = base + samples * (layout.origin + y * layout.rowStep + x * layout.colStep)
        return (p[0], p[1], p[2])
    }

    /// Copies upright row `y` as interleaved RGB (3 × width samples) into `dst`.
    /// - Parameters:
    ///   - y: the row, 0 ..< height.
    ///   - dst: room for at least 3 × width samples.
    public func copyRow(_ y: Int, into dst: UnsafeMutableBufferPointer<UInt16>) {
        precondition(y >= 0 && y < height && dst.count >= 3 * width, "row outside the frame or buffer too small")
        var p = base + samples * (layout.origin + y * layout.rowStep)
        let step = samples * layout.colStep
        for x in 0..<width {
            dst[3 * x] = p[0]
            dst[3 * x + 1] = p[1]
            dst[3 * x + 2] = p[2]
            p += step
        }
    }

    /// Upright row `y` in place, as `copyRow(_:into:)` would copy it (3 × width samples), when the frame keeps its
    /// rows that way (the packed RGB a worker wrote); nil for LibRaw's 4-sample buffer. Valid while the frame lives.
    public func row(_ y: Int) -> UnsafePointer<UInt16>? {
        precondition(y >= 0 && y < height, "row outside the frame")
        guard samples == 3, layout.colStep == 1 else { return nil }
        return base + 3 * (layout.origin + y * layout.rowStep)
    }

    /// The whole frame copied into a `LinearImage16` (3 × width × height samples).
    public func copy() -> LinearImage16 {
        let n = 3 * width
        let pixels = [UInt16](unsafeUninitializedCapacity: n * height) { buf, count in
            for y in 0..<height { copyRow(y, into: UnsafeMutableBufferPointer(rebasing: buf[(y * n)..<((y + 1) * n)])) }
            count = n * height
        }
        return LinearImage16(width: width, height: height, pixels: pixels, workingSpace: workingSpace)
    }
}
