import ColorScience
import Foundation
import Testing

/// Sharma, Wu and Dalal (2005), Table 1: the 34 test pairs of their CIEDE2000 implementation notes (L*, a*, b* of
/// each colour and ΔE00 to four decimals). Pairs 7–16 exercise the hue discontinuities their notes warn about.
let sharmaPairs: [(Double, Double, Double, Double, Double, Double, Double)] = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
]

@Test func ciede2000MatchesSharmaWuDalalTestData() {
    #expect(sharmaPairs.count == 34)
    for (i, p) in sharmaPairs.enumerated() {
        let d = CIEDE2000.difference(p.0, p.1, p.2, p.3, p.4, p.5)
        let back = CIEDE2000.difference(p.3, p.4, p.5, p.0, p.1, p.2)
        #expect(abs(d - p.6) < 0.00005, "pair \(i + 1): \(d), published \(p.6)")
        #expect(abs(back - p.6) < 0.00005, "pair \(i + 1) reversed: \(back), published \(p.6)")
    }
}

/// A formula that drops the hue rotation term (R_T) or the a' rescaling (G) must fail the published data: the
/// data can tell a wrong implementation from the right one.
@Test func sharmaDataRejectsASimplerFormula() {
    // CIE76 on the same pairs: off by more than 0.5 on most pairs.
    let wrong = sharmaPairs.filter { p in
        let cie76 = ((p.0 - p.3) * (p.0 - p.3) + (p.1 - p.4) * (p.1 - p.4) + (p.2 - p.5) * (p.2 - p.5)).squareRoot()
        return abs(cie76 - p.6) > 0.0001
    }
    #expect(wrong.count >= 30)
}

@Test func cielabOfSRGBWhiteBlackAndPrimaries() {
    func lab(_ r: Double, _ g: Double, _ b: Double, _ s: ColorSpace = .sRGB) -> (Double, Double, Double) {
        let m = s.toXYZ
        let v = (s.transfer.decode(r), s.transfer.decode(g), s.transfer.decode(b))
        let c = CIELAB.lab(
            x: m[0] * v.0 + m[1] * v.1 + m[2] * v.2, y: m[3] * v.0 + m[4] * v.1 + m[5] * v.2,
            z: m[6] * v.0 + m[7] * v.1 + m[8] * v.2)
        return (c.l, c.a, c.b)
    }
    let white = lab(1, 1, 1)
    #expect(abs(white.0 - 100) < 1e-6 && abs(white.1) < 1e-6 && abs(white.2) < 1e-6)
    #expect(abs(lab(0, 0, 0).0) < 1e-9)
    // sRGB red, green and blue (D65 white): the published CIELAB values to 0.05.
    let red = lab(1, 0, 0)
    #expect(abs(red.0 - 53.24) < 0.05 && abs(red.1 - 80.09) < 0.05 && abs(red.2 - 67.20) < 0.05, "\(red)")
    let blue = lab(0, 0, 1)
    #expect(abs(blue.0 - 32.30) < 0.05 && abs(blue.1 - 79.19) < 0.05 && abs(blue.2 + 107.86) < 0.05, "\(blue)")
    // Display P3's white is the same white; its red is more saturated than sRGB's.
    let p3white = lab(1, 1, 1, .displayP3)
    #expect(abs(p3white.0 - 100) < 1e-6 && abs(p3white.1) < 1e-6)
    #expect(hypot(lab(1, 0, 0, .displayP3).1, lab(1, 0, 0, .displayP3).2) > hypot(red.1, red.2) + 10)
}
