import Foundation

/// An RGB colour space: linear RGB → CIE XYZ (relative to a D65 white of Y = 1) and the transfer from code values to
/// linear light. The render check brings every image to CIELAB (D65) through its own space, so a Display P3 output
/// and an sRGB or Adobe RGB reference are compared by what each signals; the converter writes one of `Output`.
public struct ColorSpace: Sendable, Equatable, CustomStringConvertible {
    /// Short name for reports ("sRGB", "Display P3", "ICC: …").
    public var name: String
    /// Linear RGB → XYZ (D65-relative), row-major 3×3.
    public var toXYZ: [Double]
    /// Code value (0…1) → linear light.
    public var transfer: TransferCurve

    public init(name: String, toXYZ: [Double], transfer: TransferCurve) {
        self.name = name
        self.toXYZ = toXYZ
        self.transfer = transfer
    }

    public var description: String { name }

    /// sRGB (IEC 61966-2-1): BT.709 primaries, D65, the sRGB transfer.
    public static let sRGB = ColorSpace(
        name: "sRGB", toXYZ: Chromaticity.rgbToXYZ(Chromaticity.bt709, white: Chromaticity.d65), transfer: .sRGB)
    /// Display P3: P3 primaries, D65, the sRGB transfer (Readback's default output).
    public static let displayP3 = ColorSpace(
        name: "Display P3", toXYZ: Chromaticity.rgbToXYZ(Chromaticity.p3, white: Chromaticity.d65), transfer: .sRGB)
    /// Adobe RGB (1998): its primaries, D65, gamma 563/256.
    public static let adobeRGB = ColorSpace(
        name: "Adobe RGB", toXYZ: Chromaticity.rgbToXYZ(Chromaticity.adobeRGB, white: Chromaticity.d65),
        transfer: .gamma(563.0 / 256))
    /// ProPhoto / ROMM RGB: its primaries with a D50 white, adapted to D65 (Bradford), gamma 1.8.
    public static let proPhoto = ColorSpace(
        name: "ProPhoto RGB",
        toXYZ: Matrix3.multiply(
            Matrix3.invert(Primaries.bradfordD65ToD50),
            Chromaticity.rgbToXYZ(Chromaticity.proPhoto, white: Chromaticity.d50)),
        transfer: .gamma(1.8))
    /// sRGB primaries with the BT.709 camera curve: what `dcraw_emu` writes by default (its gamma 0.45 / slope 4.5).
    public static let sRGBWithBT709Curve = ColorSpace(
        name: "sRGB primaries, BT.709 curve", toXYZ: sRGB.toXYZ, transfer: .bt709)

    /// The space an nclx signalling names, nil for primaries or a transfer the check does not read (PQ, HLG, …).
    public static func from(_ nclx: NCLX) -> ColorSpace? {
        let matrix: [Double]
        switch nclx.knownPrimaries {
        case .bt709: matrix = sRGB.toXYZ
        case .displayP3: matrix = displayP3.toXYZ
        case .bt2020: matrix = Chromaticity.rgbToXYZ(Chromaticity.bt2020, white: Chromaticity.d65)
        default: return nil
        }
        let transfer: TransferCurve
        switch nclx.knownTransfer {
        case .sRGB: transfer = .sRGB
        case .bt709: transfer = .bt709
        case .linear: transfer = .linear
        default: return nil
        }
        let primaries =
            nclx.knownPrimaries == .bt709 ? "BT.709" : nclx.knownPrimaries == .displayP3 ? "Display P3" : "BT.2020"
        return ColorSpace(
            name: "nclx \(primaries)/\(nclx.transferCharacteristics)", toXYZ: matrix, transfer: transfer)
    }

    /// The spaces the converter writes its SDR base in (`--color-space`-style option values "p3" and "srgb").
    public enum Output: String, Sendable, Codable, CaseIterable {
        case displayP3 = "p3"
        case sRGB = "srgb"

        /// The space itself.
        public var space: ColorSpace {
            switch self {
            case .displayP3: return .displayP3
            case .sRGB: return .sRGB
            }
        }
    }

    /// The space a DNG `PreviewColorSpace` (tag 0xC71A) names: 1 grey gamma 2.2, 2 sRGB, 3 Adobe RGB, 4 ProPhoto.
    public static func fromDNGPreviewColorSpace(_ code: Int) -> ColorSpace? {
        switch code {
        case 1: return ColorSpace(name: "gamma 2.2", toXYZ: sRGB.toXYZ, transfer: .gamma(2.2))
        case 2: return sRGB
        case 3: return adobeRGB
        case 4: return proPhoto
        default: return nil
        }
    }
}

/// A transfer from code values to linear light.
public enum TransferCurve: Sendable, Equatable {
    case sRGB
    /// The BT.709 camera curve inverted.
    case bt709
    case linear
    /// A pure power: linear = code^γ.
    case gamma(Double)
    /// An ICC `para` curve (ICC.1:2010 §10.18): function type 0–4 and its parameters g, a, b, c, d, e, f.
    case parametric(type: Int, params: [Double])
    /// An ICC `curv` table: `n` samples of linear light over equally spaced codes, linearly interpolated.
    case table([Double])

    /// Linear light of code value `v` (0…1).
    public func decode(_ v: Double) -> Double {
        switch self {
        case .sRGB: return SRGBTransfer.decode(v)
        case .bt709: return Double(BT709Transfer.decode(Float(v)))
        case .linear: return v
        case .gamma(let g): return pow(max(0, v), g)
        case .parametric(let type, let p): return Self.parametric(type, p, v)
        case .table(let t):
            guard t.count > 1 else { return t.first.map { pow(max(0, v), $0) } ?? v }
            let x = min(max(v, 0), 1) * Double(t.count - 1)
            let i = min(Int(x), t.count - 2)
            return t[i] + (t[i + 1] - t[i]) * (x - Double(i))
        }
    }

    static func parametric(_ type: Int, _ p: [Double], _ x: Double) -> Double {
        func at(_ i: Int) -> Double { i < p.count ? p[i] : 0 }
        let (g, a, b, c, d, e, f) = (at(0), at(1), at(2), at(3), at(4), at(5), at(6))
        switch type {
        case 1: return x >= -b / a ? pow(max(0, a * x + b), g) : 0
        case 2: return x >= -b / a ? pow(max(0, a * x + b), g) + c : c
        case 3: return x >= d ? pow(max(0, a * x + b), g) : c * x
        case 4: return x >= d ? pow(max(0, a * x + b), g) + e : c * x + f
        default: return pow(max(0, x), g)
        }
    }

    /// A 256-entry table of linear light for 8-bit codes.
    public var table8: [Double] { (0..<256).map { decode(Double($0) / 255) } }
}

/// CIE 1931 xy chromaticities of the spaces the check names, and the RGB → XYZ matrix they define.
public enum Chromaticity {
    public typealias XY = (x: Double, y: Double)
    public static let d65: XY = (0.3127, 0.3290)
    public static let d50: XY = (0.3457, 0.3585)
    public static let bt709: [XY] = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
    public static let p3: [XY] = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    public static let adobeRGB: [XY] = [(0.640, 0.330), (0.210, 0.710), (0.150, 0.060)]
    public static let proPhoto: [XY] = [(0.7347, 0.2653), (0.1596, 0.8404), (0.0366, 0.0001)]
    public static let bt2020: [XY] = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]

    /// The linear RGB → XYZ matrix of three primaries and a white (white maps to Y = 1), row-major.
    public static func rgbToXYZ(_ primaries: [XY], white: XY) -> [Double] {
        let cols = primaries.map { [$0.x / $0.y, 1, (1 - $0.x - $0.y) / $0.y] }
        let m = [
            cols[0][0], cols[1][0], cols[2][0], cols[0][1], cols[1][1], cols[2][1], cols[0][2], cols[1][2], cols[2][2],
        ]
        let w = (white.x / white.y, 1.0, (1 - white.x - white.y) / white.y)
        let s = Matrix3.apply(Matrix3.invert(m), w)
        return (0..<9).map { m[$0] * [s.0, s.1, s.2][$0 % 3] }
    }
}
