import ColorScience
import Findings
import Foundation

/// The deliberate pixel failures the render check must catch, applied to a rendering: what a broken converter would
/// write while every tag stays right. Used to measure the thresholds' margins (`readback-render failures`, the
/// real-world suite) and by the tests.
public enum DeliberateFailure: String, CaseIterable, Sendable {
    /// The pixels turned 90° clockwise, the orientation signalling unchanged.
    case turned90 = "turned-90"
    /// Red and blue ×1.4 in linear light.
    case castRedBlue = "cast-rb-40"
    /// 1.5 stops under: every channel × 2^−1.5 in linear light.
    case under = "under-1.5"
    /// A constant frame: the image's mean colour (in linear light) everywhere.
    case constant

    /// The finding code that must catch it.
    public var expectedCode: String { expectedFindingCode.rawValue }

    /// The catalogue's code that must catch it.
    public var expectedFindingCode: FindingCode {
        switch self {
        case .turned90: .renderOrientation
        case .castRedBlue: .renderCast
        case .under: .renderExposure
        case .constant: .renderBlank
        }
    }

    /// `img` with this failure applied, in the same space.
    public func apply(to img: RenderImage) -> RenderImage {
        switch self {
        case .turned90: return img.oriented(ExifOrientation(exif: 6))
        case .castRedBlue: return Self.linear(img) { rgb in [rgb[0] * 1.4, rgb[1], rgb[2] * 1.4] }
        case .under: return Self.linear(img) { rgb in rgb.map { $0 * pow(2, -1.5) } }
        case .constant:
            let n = img.width * img.height
            var mean = [0.0, 0.0, 0.0]
            for i in 0..<n { for c in 0..<3 { mean[c] += img.space.transfer.decode(Double(img.samples[3 * i + c])) } }
            let m = mean.map { $0 / Double(n) }
            return Self.linear(img) { _ in m }
        }
    }

    /// Applies `f` to each pixel's linear RGB and re-encodes with the image's transfer (clipped to 0…1).
    static func linear(_ img: RenderImage, _ f: ([Double]) -> [Double]) -> RenderImage {
        let tf = img.space.transfer
        // The transfer inverted on a fine table (monotonic curves only, which every RGB space's is).
        let steps = 4096
        let table = (0...steps).map { tf.decode(Double($0) / Double(steps)) }
        func encode(_ v: Double) -> Float {
            let x = min(max(v, 0), table[steps])
            var lo = 0
            var hi = steps
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if table[mid] <= x { lo = mid } else { hi = mid }
            }
            let span = table[hi] - table[lo]
            let t = span > 0 ? (x - table[lo]) / span : 0
            return Float((Double(lo) + t) / Double(steps))
        }
        var out = img.samples
        for i in 0..<(img.width * img.height) {
            let rgb = (0..<3).map { tf.decode(Double(img.samples[3 * i + $0])) }
            let mapped = f(rgb)
            for c in 0..<3 { out[3 * i + c] = encode(mapped[c]) }
        }
        return RenderImage(width: img.width, height: img.height, samples: out, space: img.space)
    }
}
