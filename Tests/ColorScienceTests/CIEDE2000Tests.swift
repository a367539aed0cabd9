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

/// The step-by-step form of Sharma, Wu and Dalal's eqs. 1–22 (hypot, pow and the four cosines as written), which the
/// library's `difference` rearranges for speed.
func stepByStepCIEDE2000(_ l1: Double, _ a1: Double, _ b1: Double, _ l2: Double, _ a2: Double, _ b2: Double) -> Double {
    let deg = Double.pi / 180
    func hueOf(_ b: Double, _ a: Double) -> Double {
        if b == 0 && a == 0 { return 0 }
        let h = atan2(b, a) / deg
        return h >= 0 ? h : h + 360
    }
    let c7 = pow((hypot(a1, b1) + hypot(a2, b2)) / 2, 7)
    let g = 0.5 * (1 - (c7 / (c7 + pow(25, 7))).squareRoot())
    let (c1, c2) = (hypot((1 + g) * a1, b1), hypot((1 + g) * a2, b2))
    let (h1, h2) = (hueOf(b1, (1 + g) * a1), hueOf(b2, (1 + g) * a2))
    var dh = 0.0
    var hMean = h1 + h2
    if c1 * c2 != 0 {
        dh = h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 < -180 ? h2 - h1 + 360 : h2 - h1
        hMean = abs(h1 - h2) <= 180 ? hMean / 2 : hMean < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2
    }
    let dH = 2 * (c1 * c2).squareRoot() * sin(dh / 2 * deg)
    let cMean = (c1 + c2) / 2
    let t =
        1 - 0.17 * cos((hMean - 30) * deg) + 0.24 * cos(2 * hMean * deg) + 0.32 * cos((3 * hMean + 6) * deg)
        - 0.20 * cos((4 * hMean - 63) * deg)
    let theta = 30 * exp(-pow((hMean - 275) / 25, 2))
    let rc = 2 * (pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7))).squareRoot()
    let l50 = pow((l1 + l2) / 2 - 50, 2)
    let (x, y, z) = (
        (l2 - l1) / (1 + 0.015 * l50 / (20 + l50).squareRoot()), (c2 - c1) / (1 + 0.045 * cMean),
        dH / (1 + 0.015 * cMean * t)
    )
    return (x * x + y * y + z * z - sin(2 * theta * deg) * rc * y * z).squareRoot()
}

/// The library's rearranged form (C^7 multiplied out, T from one sine and cosine) is the step-by-step formula's within
/// 1e-12 over 300,000 colour pairs across CIELAB (a fixed seed) and the Sharma pairs, their neutral and hue-wrap cases
/// included.
@Test func ciede2000RearrangedMatchesTheStepByStepFormula() {
    var rng = SplitMix(state: 0x00C1_EDE2_0000)
    var worst = 0.0
    for p in sharmaPairs {
        let d = CIEDE2000.difference(p.0, p.1, p.2, p.3, p.4, p.5)
        worst = max(worst, abs(d - stepByStepCIEDE2000(p.0, p.1, p.2, p.3, p.4, p.5)))
    }
    for i in 0..<300_000 {
        // A third of the pairs near neutral, where the hue turns fastest.
        let span = i % 3 == 0 ? 8.0 : 260.0
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func lab() -> (Double, Double, Double) { (unit() * 100, (unit() - 0.5) * span, (unit() - 0.5) * span) }
        let (p, q) = (lab(), lab())
        let d = CIEDE2000.difference(p.0, p.1, p.2, q.0, q.1, q.2)
        worst = max(worst, abs(d - stepByStepCIEDE2000(p.0, p.1, p.2, q.0, q.1, q.2)))
    }
    #expect(worst < 1e-12, "largest difference \(worst)")
    #expect(CIEDE2000.difference(50, 0, 0, 50, 0, 0) == 0)
}
