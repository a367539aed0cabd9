import ColorScience
import Exiv2Bridge
import Fidelity
import Foundation
import Isolation
import RenderIO

// The camera's look: the RAW's own embedded rendering gives the tone curve (`ToneMatch`), applied to each channel
// before the render's roll-off (`Renderer.tone`), so the SDR base, the HDR rendition and the gain map all carry it.

/// Whose tones a RAW is rendered with.
public enum LookMode: String, Sendable, Codable, CaseIterable {
    /// The camera's own rendering (the RAW's embedded preview) gives exposure and contrast; without a usable preview,
    /// the neutral render.
    case camera
    /// Scene-linear light with the sRGB transfer and a highlight shoulder only (colorimetric mid-tones).
    case neutral
}

/// What the look step did for one file.
public struct LookSummary: Sendable, Codable, Equatable {
    /// True when a camera curve was applied.
    public var applied: Bool
    /// The reference it was fitted on ("embedded preview 1024×683 (image/jpeg)"), nil when there was none.
    public var reference: String?
    /// Stops the curve moves 18 % grey, and its slope there (1 = neutral contrast); nil when not applied.
    public var midGreyStops: Double?
    public var contrast: Double?
    /// The camera's saturation the render takes (`Renderer.saturation`, 0.5…1); nil when it keeps its own.
    public var saturation: Double?
    /// One line: what was applied, or why not.
    public var reason: String

    public init(
        applied: Bool, reference: String? = nil, midGreyStops: Double? = nil, contrast: Double? = nil,
        saturation: Double? = nil, reason: String
    ) {
        self.applied = applied
        self.reference = reference
        self.midGreyStops = midGreyStops
        self.contrast = contrast
        self.saturation = saturation
        self.reason = reason
    }
}

/// `ToneMatch` as a table the render's hot loop reads: one gain per 1/1024 of each octave of luminance, indexed by
/// the float's exponent and top mantissa bits (no log in the loop), from 2⁻²⁰ to 2⁸.
// unchecked: filled in init and only read after: the render's threads share it read-only.
final class ToneTable: @unchecked Sendable {
    static let mantissaBits = 10
    static let lowExponent = 107  // 2^-20
    static let highExponent = 135  // 2^8
    static let count = (highExponent - lowExponent) << mantissaBits
    let curve: ToneMatch
    private let gains: UnsafeMutablePointer<Float>

    init(_ curve: ToneMatch) {
        self.curve = curve
        gains = .allocate(capacity: Self.count)
        for i in 0..<Self.count {
            let e = Self.lowExponent + i >> Self.mantissaBits
            let m = Double(i & ((1 << Self.mantissaBits) - 1)) + 0.5
            let y = exp2(Double(e - 127)) * (1 + m / Double(1 << Self.mantissaBits))
            gains[i] = Float(curve.gain(y))
        }
    }

    deinit { gains.deallocate() }

    /// The gain for luminance `y` ≥ 0 (values outside the table take its end gains: slope 1 there anyway).
    @inline(__always)
    func gain(_ y: Float) -> Float {
        let key = Int(y.bitPattern >> UInt32(23 - Self.mantissaBits)) &- (Self.lowExponent << Self.mantissaBits)
        let i = key < 0 ? 0 : (key >= Self.count ? Self.count - 1 : key)
        return gains[i]
    }
}

extension HEICConverter {
    /// Fits the camera's tone curve for a RAW from its embedded preview (see `ToneMatch`): the preview's luminance
    /// against the neutral render's, box-averaged to the preview's size.
    /// The lookup is made once per conversion (the preview decoded once), and handed on to the read-back's render
    /// check.
    static func cameraLook(
        _ lookup: ReferenceLookup, frame: any LinearFrame, renderer: Renderer, space: ColorSpace.Output,
        lab: CIELAB.Planes? = nil
    ) -> (Renderer, LookSummary) {
        switch lookup {
        case .none(let why): return (renderer, LookSummary(applied: false, reason: "neutral render: \(why)"))
        case .died(let failure): return (renderer, LookSummary(applied: false, reason: "neutral render: \(failure)"))
        case .found(let r): return cameraLook(reference: r, frame: frame, renderer: renderer, space: space, lab: lab)
        }
    }

    /// The camera look fitted on `reference` (see `cameraLook(_:frame:renderer:space:)`): `renderer` with the
    /// camera's tone curve and saturation, and what was done.
    static func cameraLook(
        reference: ReferenceRender, frame: any LinearFrame, renderer: Renderer, space: ColorSpace.Output,
        lab planes: CIELAB.Planes? = nil
    ) -> (Renderer, LookSummary) {
        let (curve, summary, cells, lab) = toneLook(
            reference: reference, frame: frame, renderer: renderer, lab: planes)
        guard let cells, let lab else { return (renderer, summary) }
        let toned = renderer.with(tone: curve)
        let fit = SaturationFit(cells: cells, reference: lab, renderer: toned, space: space)
        guard let sat = fit.saturation() else { return (toned, summary) }
        var s = summary
        let shown = (Double(sat) * 100).rounded() / 100
        s.saturation = shown
        s.reason =
            s.applied
            ? s.reason + String(format: ", saturation ×%.2f", shown)
            : String(
                format: "camera saturation from the %@: ×%.2f (its tones match the neutral render)",
                reference.description, shown)
        s.applied = true
        return (toned.with(saturation: sat), s)
    }

    /// The tone curve fitted on `reference`, what was done, and (when the preview shows this frame) the neutral
    /// render's linear RGB at the preview's size with the preview's CIELAB planes, for the saturation fit.
    /// `lab`: the CIELAB planes of `reference.image` when they were computed already (`ReferencePrefetch`); used
    /// only when the image is not cut.
    static func toneLook(
        reference: ReferenceRender, frame: any LinearFrame, renderer: Renderer, lab planes: CIELAB.Planes? = nil
    ) -> (ToneMatch?, LookSummary, [Float]?, CIELAB.Planes?) {
        // Letterbox bars around a preview (`RenderImage.letterbox`, as the render check trims them) are no part of the
        // scene: cut them when what is left has the frame's shape.
        var img = reference.image
        var cutting = false
        let bars = img.letterbox()
        if bars != (0, 0, 0, 0) {
            let cut = img.cropped(x0: bars.left, y0: bars.top, x1: img.width - bars.right, y1: img.height - bars.bottom)
            let frameAspect = Double(frame.width) / Double(frame.height)
            if abs(log(cut.aspect / frameAspect)) < abs(log(img.aspect / frameAspect)) {
                img = cut
                cutting = true
            }
        }
        // The reference's display-linear luminance, read through its own space, against ours at its size.
        let lab = (cutting ? nil : planes) ?? CIELAB.planes(img)
        let r = lab.y.map { Float(max(0, $0)) }
        let (gw, gh) = (img.width, img.height)
        let cells = boxRGB(frame, renderer: renderer, width: gw, height: gh)
        let l = renderer.lum
        let o = (0..<(gw * gh)).map { l.0 * cells[3 * $0] + l.1 * cells[3 * $0 + 1] + l.2 * cells[3 * $0 + 2] }
        let what = reference.description
        // A placeholder ("no preview") or another picture is no rendering of this frame: its tones are not the look.
        let similar = ToneMatch.similarity(o, r, width: gw, height: gh)
        if similar < ToneMatch.minimumSimilarity {
            return (
                nil,
                LookSummary(
                    applied: false, reference: what,
                    reason: String(
                        format: "neutral render: the %@ does not show this frame (similarity %.2f < %.2f)", what,
                        similar, ToneMatch.minimumSimilarity)), nil, nil
            )
        }
        switch ToneMatch.fit(ours: o, reference: r) {
        case .unusable(let why):
            return (
                nil, LookSummary(applied: false, reference: what, reason: "neutral render: \(what): \(why)"), nil, nil
            )
        case .neutral(let shift):
            return (
                nil,
                LookSummary(
                    applied: false, reference: what,
                    reason: String(
                        format: "neutral render: the camera's tones match it (%.2f stop apart on average)", shift)),
                cells, lab
            )
        case .curve(let c):
            let (mid, contrast) = ((c.midGreyShift * 100).rounded() / 100, (c.midGreyContrast * 100).rounded() / 100)
            return (
                c,
                LookSummary(
                    applied: true, reference: what, midGreyStops: mid, contrast: contrast,
                    reason: String(
                        format: "camera tones from the %@: 18%% grey %+.2f stops, contrast ×%.2f", what, mid, contrast)),
                cells, lab
            )
        }
    }

    /// The neutral render's linear output RGB (before its roll-off and without a tone curve or saturation)
    /// box-averaged to `width × height` cells, interleaved, rows in parallel: a sample every third of a cell's side
    /// (rounded up), so about nine per cell once cells are 4 pixels wide, and every pixel below that. A 24 MP frame
    /// against a 1024-pixel preview has cells of 5.9 pixels: a sample every 2 pixels, a quarter of them (every pixel
    /// cost 0.19 s of CPU, and about 30 samples per cell averaged no better for a fit over a million cells).
    static func boxRGB(_ frame: any LinearFrame, renderer: Renderer, width gw: Int, height gh: Int) -> [Float] {
        let (w, h) = (frame.width, frame.height)
        let neutral = renderer.withoutTone()
        let step = max(1, (min(w / max(1, gw), h / max(1, gh)) + 2) / 3)
        // Written in place, every cell once (no zero fill and no copy: fresh pages are what costs here).
        return [Float](unsafeUninitializedCapacity: 3 * gw * gh) { out, count in
            boxRows(frame, neutral, step: step, width: gw, height: gh, into: UnsafeSendable(out))
            count = 3 * gw * gh
        }
    }

    /// `boxRGB`'s cell rows, in parallel, into `slots` (each cell written once; 0 where no sample fell). Each sampled
    /// row goes through the render's vectorised `RowKernel` (the values `Renderer.pixel` gives, bit for bit), and
    /// each cell sums its samples left to right. The cell rows go in groups from the top, and the frame's rows above
    /// each group's end are let go after it (`LinearFrame.releasePages`): a frame in a worker's shared memory is never
    /// mapped in whole in the parent by this pass, the only one before the render that reads every row.
    private static func boxRows(
        _ frame: any LinearFrame, _ neutral: Renderer, step: Int, width gw: Int, height gh: Int,
        into slots: UnsafeSendable<UnsafeMutableBufferPointer<Float>>
    ) {
        let group = 64
        for g0 in stride(from: 0, to: gh, by: group) {
            let g1 = min(gh, g0 + group)
            boxRows(frame, neutral, step: step, width: gw, height: gh, cellRows: g0..<g1, into: slots)
            frame.releasePages(before: g1 * frame.height / gh)
        }
    }

    /// The cell rows `cellRows` of `boxRows`, in parallel.
    private static func boxRows(
        _ frame: any LinearFrame, _ neutral: Renderer, step: Int, width gw: Int, height gh: Int, cellRows: Range<Int>,
        into slots: UnsafeSendable<UnsafeMutableBufferPointer<Float>>
    ) {
        let (w, h) = (frame.width, frame.height)
        // The cell of each sampled pixel (pixel i is x = i · step).
        let cellOf = stride(from: 0, to: w, by: step).map { $0 * gw / w }
        let first = cellRows.lowerBound
        Parallel.forEach(cellRows.count) { i in
            let cy = first + i
            let y0 = cy * h / gh
            let y1 = max(y0 + 1, (cy + 1) * h / gh)
            var sums = [Float](repeating: 0, count: 3 * gw)
            var counts = [Int](repeating: 0, count: gw)
            var row = [UInt16](repeating: 0, count: 3 * w)
            let kernel = RowKernel(width: w)
            defer { kernel.deallocate() }
            for y in stride(from: y0, to: y1, by: step) {
                let px = row.withUnsafeMutableBufferPointer {
                    kernel.linear(frame.rgbRow(y, scratch: $0), renderer: neutral, step: step)
                }
                for i in 0..<px.count {
                    let c = cellOf[i]
                    sums[3 * c] += px.r[i]
                    sums[3 * c + 1] += px.g[i]
                    sums[3 * c + 2] += px.b[i]
                    counts[c] += 1
                }
            }
            for c in 0..<gw {
                let n = Float(max(1, counts[c]))
                for k in 0..<3 { slots.value[3 * (cy * gw + c) + k] = sums[3 * c + k] / n }
            }
        }
    }
}

/// The camera look's reference looked up on its own thread while LibRaw decodes: exiv2 lists the RAW's previews and
/// libjpeg-turbo decodes the chosen one (in the pool's other worker, or here without a pool), then the preview's
/// CIELAB planes are computed. LibRaw's unpack runs on one core, so the look's lookup costs the decode no wall time.
/// The same lookup, and the same planes, as `toneLook` would make after the decode.
// unchecked: its thread writes the lookup before signalling `done`; it is read only after `wait()`.
final class ReferencePrefetch: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var lookup: ReferenceLookup = .none(reason: "not looked up")
    private var planes: CIELAB.Planes?

    /// Starts the lookup on `bytes`, the RAW's bytes (`path` names it in messages and the read-once tally).
    init(bytes: [UInt8], path: String, decoders: any Decoders) {
        let t = Thread { [self] in
            let found = ReferenceExtractor.fromRAW(
                Result { () throws(DecodeFailure) in try decoders.exiv2(bytes: bytes, label: path, previews: true) },
                path: path, decoders: decoders)
            if case .found(let r) = found, r.image.letterbox() == (0, 0, 0, 0) { planes = CIELAB.planes(r.image) }
            lookup = found
            done.signal()
        }
        t.stackSize = 1 << 20
        t.start()
    }

    /// Blocks until the lookup is done (at once on later calls). The planes are those of the uncut preview (nil when
    /// it has bars).
    func wait() -> (ReferenceLookup, CIELAB.Planes?) {
        done.wait()
        done.signal()
        return (lookup, planes)
    }
}
