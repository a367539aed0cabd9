import ColorScience
import Foundation

// The embedded preview a generated DNG carries: the camera's own rendering the audit's render check compares with,
// and the one the converter's camera look follows.

extension DNGWriter {
    /// Long side of the embedded JPEG preview (the camera's own rendering the audit's render check compares with).
    public static let previewLongSide = 1024

    /// The camera-style preview SubIFD (DNG 1.4 §"Preview IFDs", as Adobe's converter and cameras write it):
    /// NewSubFileType 1, baseline JPEG (Compression 7, YCbCr), stored in sensor orientation like the raw data,
    /// PreviewColorSpace sRGB. The rendering is the scene clipped per channel to diffuse white with the sRGB
    /// transfer, box-averaged to at most `previewLongSide` — a legitimate rendering other than the converter's. With
    /// `tone` (stops at 18 % grey, contrast), each channel goes through that camera curve first.
    static func previewIFD(
        _ scene: some SceneSource, storedWidth sw: Int, storedHeight sh: Int, orientation o: Int,
        tone: (exposure: Double, contrast: Double) = (0, 1), saturation: Double = 1
    ) -> TIFFIFD {
        func look(_ c: Double) -> Double {
            tone == (0, 1) || c <= 0 ? c : 0.18 * exp2(tone.exposure) * pow(c / 0.18, tone.contrast)
        }
        func look(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
            let t = (look(c.0), look(c.1), look(c.2))
            if saturation == 1 { return t }
            let y = 0.2126 * t.0 + 0.7152 * t.1 + 0.0722 * t.2
            return (y + saturation * (t.0 - y), y + saturation * (t.1 - y), y + saturation * (t.2 - y))
        }
        let f = max(1, (max(sw, sh) + previewLongSide - 1) / previewLongSide)
        let (pw, ph) = (max(1, sw / f), max(1, sh / f))
        var rgb = [UInt8](repeating: 0, count: pw * ph * 3)
        for y in 0..<ph {
            for x in 0..<pw {
                var acc = (0.0, 0.0, 0.0)
                for dy in 0..<f {
                    for dx in 0..<f {
                        let (px, py) = ExifOrientation(exif: o).displayPosition(
                            x: min(sw - 1, x * f + dx), y: min(sh - 1, y * f + dy), storedWidth: sw, storedHeight: sh)
                        let c = scene.pixel(x: px, y: py)
                        acc = (acc.0 + c.r, acc.1 + c.g, acc.2 + c.b)
                    }
                }
                let n = Double(f * f)
                let i = 3 * (y * pw + x)
                let shown = look((acc.0 / n, acc.1 / n, acc.2 / n))
                rgb[i] = UInt8((ColorMath.srgbEncode(shown.0) * 255).rounded())
                rgb[i + 1] = UInt8((ColorMath.srgbEncode(shown.1) * 255).rounded())
                rgb[i + 2] = UInt8((ColorMath.srgbEncode(shown.2) * 255).rounded())
            }
        }
        var p = TIFFIFD()
        p[254] = .longs([1])
        p[256] = .longs([UInt32(pw)])
        p[257] = .longs([UInt32(ph)])
        p[258] = .shorts([8, 8, 8])
        p[259] = .shorts([7])  // JPEG
        p[262] = .shorts([6])  // YCbCr
        p[277] = .shorts([3])
        p[278] = .longs([UInt32(ph)])
        p[284] = .shorts([1])
        p[530] = .shorts([1, 1])  // YCbCrSubSampling: 4:4:4, as the JPEG is coded
        p[50966] = .ascii("Readback CorpusKit")  // PreviewApplicationName
        p[50970] = .longs([2])  // PreviewColorSpace: sRGB
        p.imageData = BaselineJPEG.encode(rgb: rgb, width: pw, height: ph, quality: 92)
        return p
    }
}
