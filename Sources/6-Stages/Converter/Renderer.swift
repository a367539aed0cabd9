import ColorScience
import Fidelity
import Foundation
import RawDecoder

// The render: LibRaw's linear ProPhoto 16-bit → display-referred linear P3/sRGB (1.0 = SDR diffuse white), gamut
// mapped (GamutMap.swift), the SDR roll-off as one scale factor per pixel, the sRGB transfer. `RenderPass` and
// `RowKernel` apply it band by band.

extension HEICConverter {
    /// Stops between SDR diffuse white and the sensor clip before BaselineExposure: 1.5, i.e. a metered 18 %
    /// grey sits ≈ 4 stops under the clip, like a modern camera's default exposure.
    public static let clipStopsAboveWhite = 1.5
    /// Luminance where the SDR roll-off starts (linear).
    public static let shoulderStart: Float = 0.6
}

/// LibRaw's linear ProPhoto 16-bit → display-referred linear P3/sRGB, the camera's tone curve when there is one,
/// the SDR roll-off, statistics.
struct Renderer {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    /// Luminance weights of the output primaries.
    let lum: (Float, Float, Float)
    /// Linear value per LibRaw code (65535 = sensor clip).
    let scale: Float
    let clipStops: Double
    /// The camera's tone curve (`LookMode.camera`), applied to each channel before the roll-off, as a camera applies
    /// its curve (which carries the saturation a contrast curve brings); nil = neutral.
    private(set) var tone: ToneTable?
    /// The camera's saturation (`LookMode.camera`), 0.5…1: each channel moved toward the pixel's luminance after the
    /// tone curve, r' = Y + s · (r − Y), so luminance and hue stay; 1 = as rendered.
    private(set) var saturation: Float = 1

    init(meta: RawMetadata, space: ColorSpace.Output) {
        self.init(space: space, baselineExposure: meta.baselineExposure)
    }

    /// This render with the camera's tone curve `t` (nil: neutral).
    func with(tone t: ToneMatch?) -> Renderer {
        var r = self
        r.tone = t.map(ToneTable.init)
        return r
    }

    /// This render with the camera's saturation `s` (1: as rendered).
    func with(saturation s: Float) -> Renderer {
        var r = self
        r.saturation = s
        return r
    }

    /// This render without a tone curve or a saturation: the neutral render.
    func withoutTone() -> Renderer { with(tone: nil).with(saturation: 1) }

    init(space: ColorSpace.Output, baselineExposure: Double) {
        let a = space == .displayP3 ? Primaries.proPhotoToDisplayP3 : Primaries.proPhotoToSRGB
        m = (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
        let w = space == .displayP3 ? LuminanceWeights.displayP3Derived.float : LuminanceWeights.bt709Derived.float
        lum = (w.r, w.g, w.b)
        clipStops = HEICConverter.clipStopsAboveWhite + baselineExposure
        scale = Float(exp2(clipStops) / 65535)
    }

    /// One pixel: linear output RGB (HDR rendition, ≥ 0), its luminance and the SDR scale (SDR = rgb · scale).
    @inline(__always)
    func pixel(_ px: UnsafeBufferPointer<UInt16>, _ i: Int) -> (rgb: (Float, Float, Float), y: Float, scale: Float) {
        pixel(px[3 * i], px[3 * i + 1], px[3 * i + 2])
    }

    /// One pixel from its three 16-bit working-space samples (see `pixel(_:_:)`).
    @inline(__always)
    func pixel(_ r16: UInt16, _ g16: UInt16, _ b16: UInt16) -> (rgb: (Float, Float, Float), y: Float, scale: Float) {
        let r0 = Float(r16) * scale
        let g0 = Float(g16) * scale
        let b0 = Float(b16) * scale
        let (rm, gm, bm) = Self.gamutMap(
            m.0 * r0 + m.1 * g0 + m.2 * b0, m.3 * r0 + m.4 * g0 + m.5 * b0, m.6 * r0 + m.7 * g0 + m.8 * b0, lum: lum)
        let p = look(rm, gm, bm)
        return ((p.r, p.g, p.b), p.y, Self.sdrScale(p.r, p.g, p.b, p.y))
    }

    /// The camera's look on one gamut-mapped linear output pixel, with its luminance: the tone curve on each channel
    /// (then the luminance again), and the saturation toward that luminance (s ≤ 1 keeps every channel ≥ 0 and Y as
    /// it is). `RowKernel` applies the same operations row by row; the saturation fit reads pixels through it.
    @inline(__always)
    func look(_ r0: Float, _ g0: Float, _ b0: Float) -> (r: Float, g: Float, b: Float, y: Float) {
        var (r, g, b) = (r0, g0, b0)
        var y = lum.0 * r + lum.1 * g + lum.2 * b
        if let tone {
            r *= tone.gain(r)
            g *= tone.gain(g)
            b *= tone.gain(b)
            y = lum.0 * r + lum.1 * g + lum.2 * b
        }
        if saturation != 1 {
            r = y + saturation * (r - y)
            g = y + saturation * (g - y)
            b = y + saturation * (b - y)
        }
        return (r, g, b, y)
    }

    /// The SDR roll-off as one factor per pixel (hue kept): luminance above `shoulderStart` is compressed
    /// exponentially towards 1, and no channel may exceed 1.
    @inline(__always)
    static func sdrScale(_ r: Float, _ g: Float, _ b: Float, _ y: Float) -> Float {
        let k = HEICConverter.shoulderStart
        var s: Float = 1
        if y > k {
            let t = k + (1 - k) * (1 - exp(-(y - k) / (1 - k)))
            s = t / y
        }
        // Selects instead of max() and an if (the render's hot loop: they compile to maxss, not to branches that
        // mispredict on every colour edge); s / 1 is s exactly.
        let gb = g > b ? g : b
        let mx = (r > gb ? r : gb) * s
        return s / (mx > 1 ? mx : 1)
    }

    /// The index of linear value `v` (0…1) in a 65536-entry table, rounded to nearest: `v · 65535` plus 1.5 · 2²³
    /// leaves the rounded integer in the low mantissa bits (no checked float-to-integer conversion in the hot loop).
    @inline(__always)
    static func tableIndex(_ v: Float) -> Int {
        Int(((v < 1 ? v : 1) * 65535 + 12_582_912).bitPattern & 0xFFFF)
    }
}
