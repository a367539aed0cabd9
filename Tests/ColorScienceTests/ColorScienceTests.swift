import ColorScience
import Foundation
import Testing

// MARK: - Transfer curves

/// IEC 61966-2-1 sRGB: the ends, the breakpoint on both sides, and mid-grey values computed from the standard's
/// formula (V = 1.055·L^(1/2.4) − 0.055 above 0.0031308, 12.92·L below).
@Test func srgbKnownValues() {
    #expect(SRGBTransfer.encode(0.0 as Double) == 0)
    #expect(abs(SRGBTransfer.encode(1.0 as Double) - 1) < 1e-15)
    #expect(abs(SRGBTransfer.encode(0.18 as Double) - 0.461356129500) < 1e-12)
    #expect(abs(SRGBTransfer.encode(0.5 as Double) - 0.735356983052) < 1e-12)
    #expect(abs(SRGBTransfer.decode(0.5 as Double) - 0.214041140482) < 1e-12)
    #expect(SRGBTransfer.decode(1.0 as Double) == 1)
    // The linear segment: 12.92 · 0.0031308 = 0.040449936, just under the decode threshold 0.04045.
    #expect(abs(SRGBTransfer.encode(0.0031308 as Double) - 0.040449936) < 1e-15)
    #expect(abs(SRGBTransfer.decode(0.04 as Double) - 0.04 / 12.92) < 1e-15)
    // The two segments nearly meet at the breakpoint (the standard's rounding leaves < 1e-7).
    let below = SRGBTransfer.encode(SRGBTransfer.linearThreshold)
    let above = SRGBTransfer.encode(SRGBTransfer.linearThreshold.nextUp)
    #expect(abs(above - below) < 1e-7)
}

/// Encode then decode returns the input over 0…1, in both precisions.
@Test func srgbRoundTrips() {
    for i in 0...1000 {
        let v = Double(i) / 1000
        #expect(abs(SRGBTransfer.decode(SRGBTransfer.encode(v)) - v) < 1e-12, "\(v)")
        let f = Float(v)
        #expect(abs(SRGBTransfer.decode(SRGBTransfer.encode(f)) - f) < 2e-6, "\(v)")
        #expect(abs(Double(SRGBTransfer.encode(f)) - SRGBTransfer.encode(Double(f))) < 1e-6, "\(v)")
    }
}

/// The named parameters are the ones the curves use (an ICC `para` type-3 curve is written from them).
@Test func srgbParametersMatchTheCurve() {
    let l = 0.3
    let viaParameters =
        SRGBTransfer.scale * pow(l, 1 / SRGBTransfer.gamma) - SRGBTransfer.offset
    #expect(SRGBTransfer.encode(l) == viaParameters)
    #expect(abs(SRGBTransfer.scale - SRGBTransfer.offset - 1) < 1e-15)
    #expect(abs(SRGBTransfer.linearThreshold * SRGBTransfer.linearSlope - SRGBTransfer.encodedThreshold) < 1e-7)
}

/// SMPTE ST 2084: 10,000 cd/m² is 1.0; 100 cd/m² ≈ 0.508 (10-bit code 520), 203 cd/m² (BT.2408 HDR reference
/// white) ≈ 0.581, 1,000 cd/m² ≈ 0.752; 0 cd/m² is the curve's floor c1^m2 ≈ 7.3e-7.
@Test func pqKnownValues() {
    #expect(abs(PQTransfer.encode(luminance: 10_000) - 1) < 1e-12)
    #expect(abs(PQTransfer.encode(luminance: 100) - 0.508078421517) < 1e-9)
    #expect(Int((PQTransfer.encode(luminance: 100) * 1023).rounded()) == 520)
    #expect(abs(PQTransfer.encode(luminance: 203) - 0.580688881042) < 1e-9)
    #expect(abs(PQTransfer.encode(luminance: 1000) - 0.751827096247) < 1e-9)
    #expect(abs(PQTransfer.encode(luminance: 0) - 7.309559e-7) < 1e-12)
    #expect(PQTransfer.decode(0) == 0)
    #expect(abs(PQTransfer.decode(1) - 10_000) < 1e-8)
    for l in [0.01, 0.1, 1, 48, 100, 203, 600, 1000, 4000, 10_000] {
        #expect(abs(PQTransfer.decode(PQTransfer.encode(luminance: l)) / l - 1) < 1e-9, "\(l) cd/m²")
    }
}

/// BT.709 inverse OETF: the linear segment below 0.081 (= 4.5 · 0.018), the power segment above.
@Test func bt709InverseOETF() {
    #expect(BT709Transfer.decode(0) == 0)
    #expect(abs(BT709Transfer.decode(0.045) - 0.01) < 1e-7)
    #expect(abs(BT709Transfer.decode(0.5) - 0.2595894) < 1e-6)
    #expect(abs(BT709Transfer.decode(1) - 1) < 1e-6)
    // Both segments meet at 0.081 ↔ 0.018 (to the standard's rounding).
    #expect(abs(BT709Transfer.decode(0.081) - 0.018) < 1e-4)
}

// MARK: - NCLX

/// The presets carry the H.273 code points the converter writes, and the named codes are H.273's numbers.
@Test func nclxCodePointsAndNames() {
    let p3 = NCLX.displayP3
    #expect(
        [p3.colourPrimaries, p3.transferCharacteristics, p3.matrixCoefficients] == [12, 13, 6] && p3.fullRange)
    #expect(p3.knownPrimaries == .displayP3 && p3.knownTransfer == .sRGB && p3.knownMatrix == .bt601)
    let s = NCLX.sRGB
    #expect([s.colourPrimaries, s.transferCharacteristics, s.matrixCoefficients] == [1, 13, 6] && s.fullRange)
    let u = NCLX.unspecified
    #expect([u.colourPrimaries, u.transferCharacteristics, u.matrixCoefficients] == [2, 2, 6])
    #expect(NCLX.gainMap == u)
    #expect(NCLX.Primaries.allCases.map(\.rawValue) == [1, 2, 9, 12])
    #expect(NCLX.Transfer.allCases.map(\.rawValue) == [1, 2, 8, 13, 16, 18])
    #expect(NCLX.Matrix.allCases.map(\.rawValue) == [0, 1, 2, 6, 9])
    #expect(NCLX.Transfer(rawValue: 16) == .pq && NCLX.Transfer(rawValue: 18) == .hlg)
    #expect(NCLX.Primaries(rawValue: 12) == .displayP3 && NCLX.Matrix(rawValue: 9) == .bt2020NCL)
}

/// Unknown codes are kept as read (a file round-trips byte for byte) and are simply not named; only PQ and HLG
/// count as HDR transfers.
@Test func nclxKeepsUnknownCodesAndFlagsHDR() {
    let odd = NCLX(colourPrimaries: 22, transferCharacteristics: 300, matrixCoefficients: 14, fullRange: false)
    #expect(odd.knownPrimaries == nil && odd.knownTransfer == nil && odd.knownMatrix == nil)
    #expect(odd.colourPrimaries == 22 && odd.transferCharacteristics == 300 && !odd.hasHDRTransfer)
    let pq = NCLX(.bt2020, .pq, .bt2020NCL, fullRange: true)
    #expect([pq.colourPrimaries, pq.transferCharacteristics, pq.matrixCoefficients] == [9, 16, 9])
    #expect(pq.hasHDRTransfer)
    #expect(NCLX(.bt2020, .hlg, .bt2020NCL, fullRange: false).hasHDRTransfer)
    #expect(!NCLX.displayP3.hasHDRTransfer && !NCLX.unspecified.hasHDRTransfer)
}

/// The JSON keys are the H.273 field names (they were HEIF's `NCLX` keys before the type moved here).
@Test func nclxCodableKeys() throws {
    let e = JSONEncoder()
    e.outputFormatting = .sortedKeys
    let json = String(decoding: try e.encode(NCLX.displayP3), as: UTF8.self)
    #expect(
        json == #"{"colourPrimaries":12,"fullRange":true,"matrixCoefficients":6,"transferCharacteristics":13}"#)
    #expect(try JSONDecoder().decode(NCLX.self, from: Data(json.utf8)) == .displayP3)
}

// MARK: - Primaries and weights

/// RGB → XYZ from chromaticities (x, y) of R, G, B and the white: the columns are the primaries' XYZ scaled so
/// RGB (1, 1, 1) gives the white with Y = 1.
func rgbToXYZ(_ p: [(Double, Double)], white: (Double, Double)) -> [Double] {
    func xyz(_ c: (Double, Double)) -> (Double, Double, Double) { (c.0 / c.1, 1, (1 - c.0 - c.1) / c.1) }
    let r = xyz(p[0])
    let g = xyz(p[1])
    let b = xyz(p[2])
    let m = [r.0, g.0, b.0, r.1, g.1, b.1, r.2, g.2, b.2]
    let s = Matrix3.apply(Matrix3.invert(m), xyz(white))
    return [r.0 * s.0, g.0 * s.1, b.0 * s.2, r.1 * s.0, g.1 * s.1, b.1 * s.2, r.2 * s.0, g.2 * s.1, b.2 * s.2]
}

let d65 = (0.3127, 0.3290)
let bt709xy = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
let displayP3xy = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
let bt2020xy = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]

/// Each set of weights is the Y row of its primaries (BT.709-6, SMPTE EG 432-1, BT.2020-2 chromaticities, D65),
/// to the precision it is written with, and sums to 1 within the rounding of its three numbers.
@Test func luminanceWeightsComeFromThePrimaries() {
    let cases: [(LuminanceWeights, [(Double, Double)], Double)] = [
        (.bt709, bt709xy, 5e-5), (.bt2020, bt2020xy, 5e-5), (.displayP3, displayP3xy, 5e-5),
        (.bt709Derived, bt709xy, 5e-7), (.displayP3Derived, displayP3xy, 5e-7),
    ]
    for (w, xy, tolerance) in cases {
        let m = rgbToXYZ(xy, white: d65)
        #expect(abs(w.r - m[3]) < tolerance && abs(w.g - m[4]) < tolerance && abs(w.b - m[5]) < tolerance, "\(w)")
        #expect(abs(w.r + w.g + w.b - 1) <= 3 * tolerance, "\(w)")
    }
}

/// The Float view of every named set is exactly the Float its decimal literal gives (no double rounding), so the
/// Float callers (gain-map maths, the converter's renderer) keep their numbers bit for bit.
@Test func luminanceWeightsConvertToTheirFloatLiterals() {
    let cases: [(LuminanceWeights, (Float, Float, Float))] = [
        (.bt709, (0.2126, 0.7152, 0.0722)), (.bt2020, (0.2627, 0.6780, 0.0593)),
        (.displayP3, (0.2290, 0.6917, 0.0793)), (.bt709Derived, (0.212639, 0.715169, 0.072192)),
        (.displayP3Derived, (0.228975, 0.691739, 0.079287)),
    ]
    for (w, f) in cases {
        #expect(w.float.r.bitPattern == f.0.bitPattern, "\(w)")
        #expect(w.float.g.bitPattern == f.1.bitPattern, "\(w)")
        #expect(w.float.b.bitPattern == f.2.bitPattern, "\(w)")
    }
}

/// The matrices agree with the chromaticities: sRGB → XYZ (dcraw's table, rounded from a slightly different
/// derivation) and its inverse, Display P3 → sRGB (four decimals, likewise within 5e-4); the Bradford-adapted ones
/// keep white: ProPhoto white → the D65 white (rows sum to 1), the D50 colorants sum to the ICC's D50 and `chad`
/// takes D65 to it (Z within 5e-4: the ICC rounds D50's Z to 0.8249, Bradford gives 0.8252).
@Test func matricesAgreeWithThePrimaries() {
    let srgb = rgbToXYZ(bt709xy, white: d65)
    for i in 0..<9 { #expect(abs(Primaries.sRGBToXYZ[i] - srgb[i]) < 5e-4, "sRGB→XYZ [\(i)]") }
    let identity = Matrix3.multiply(Primaries.xyzToSRGB, Primaries.sRGBToXYZ)
    for i in 0..<9 { #expect(abs(identity[i] - (i % 4 == 0 ? 1 : 0)) < 1e-12, "[\(i)]") }
    let p3ToSRGB = Matrix3.multiply(Matrix3.invert(srgb), rgbToXYZ(displayP3xy, white: d65))
    for i in 0..<9 { #expect(abs(Primaries.displayP3ToSRGB[i] - p3ToSRGB[i]) < 5e-4, "P3→sRGB [\(i)]") }
    for m in [Primaries.proPhotoToDisplayP3, Primaries.proPhotoToSRGB] {
        for row in 0..<3 { #expect(abs(Double(m[3 * row] + m[3 * row + 1] + m[3 * row + 2]) - 1) < 1e-5) }
    }
    let d50 = WhitePoint.d50
    for m in [Primaries.displayP3ToXYZD50, Primaries.sRGBToXYZD50] {
        let w = Matrix3.apply(m, (1, 1, 1))
        #expect(abs(w.0 - d50.x) < 1e-4 && abs(w.1 - d50.y) < 1e-4 && abs(w.2 - d50.z) < 5e-4)
    }
    let adapted = Matrix3.apply(Primaries.bradfordD65ToD50, (0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290))
    #expect(abs(adapted.0 - d50.x) < 2e-4 && abs(adapted.1 - d50.y) < 2e-4 && abs(adapted.2 - d50.z) < 5e-4)
    #expect(Matrix3.scaleRows([2, 3, 4], [1, 1, 1, 1, 1, 1, 1, 1, 1]) == [2, 2, 2, 3, 3, 3, 4, 4, 4])
}

/// An image capped straight from its codes is, value for value, the one made in floats and capped after: 8- and 16-bit
/// codes, a frame large enough to be resized in two halves and a small one, each side the long one, and a frame
/// already within the cap (returned as made). A resize that read a row from the wrong place, or scaled it twice,
/// fails it.
@Test func cappingFromCodesIsCappingTheFloatImage() {
    var rng = SplitMix(state: 23)
    for (w, h, maxSide) in [(1224, 816, 1024), (300, 700, 256), (97, 61, 40), (64, 48, 1024)] {
        let bytes = (0..<(w * h * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let words = bytes.map { UInt16($0) * 4 + UInt16.random(in: 0...3, using: &rng) }
        let a = RenderImage(width: w, height: h, codes: bytes, space: .sRGB).capped(maxSide: maxSide)
        let b = RenderImage.capped(width: w, height: h, codes: bytes, maxCode: 255, space: .sRGB, maxSide: maxSide)
        #expect(a.width == b.width && a.height == b.height && a.samples == b.samples, "8-bit \(w)×\(h) → \(maxSide)")
        let c = RenderImage(width: w, height: h, codes: words, maxCode: 1023, space: .sRGB).capped(maxSide: maxSide)
        let d = RenderImage.capped(width: w, height: h, codes: words, maxCode: 1023, space: .sRGB, maxSide: maxSide)
        #expect(c.width == d.width && c.height == d.height && c.samples == d.samples, "10-bit \(w)×\(h) → \(maxSide)")
        #expect(max(b.width, b.height) == min(maxSide, max(w, h)))
    }
}
