import Foundation

/// The CIEDE2000 colour difference (CIE 142-2001), as Sharma, Wu and Dalal give it step by step ("The CIEDE2000
/// Color-Difference Formula: Implementation Notes, Supplementary Test Data, and Mathematical Observations", Color
/// Research & Application 30(1), 2005, eqs. 1–22), with kL = kC = kH = 1. Their notes' conventions are kept: the hue
/// of a neutral colour is 0, and the mean hue of a pair with one neutral member is the sum of the two hues.
public enum CIEDE2000 {
    /// ΔE00 between two CIELAB colours.
    public static func difference(
        _ l1: Double, _ a1: Double, _ b1: Double, _ l2: Double, _ a2: Double, _ b2: Double
    ) -> Double {
        let deg = Double.pi / 180
        let pow25to7 = 6_103_515_625.0  // 25^7
        // Eqs. 2–5: a' from the mean chroma, C', h'.
        let cMean = (hypot(a1, b1) + hypot(a2, b2)) / 2
        let c7 = pow(cMean, 7)
        let g = 0.5 * (1 - (c7 / (c7 + pow25to7)).squareRoot())
        let a1p = (1 + g) * a1
        let a2p = (1 + g) * a2
        let c1p = hypot(a1p, b1)
        let c2p = hypot(a2p, b2)
        let h1p = hue(b1, a1p)
        let h2p = hue(b2, a2p)
        // Eqs. 8–10: ΔL', ΔC', ΔH'.
        let dLp = l2 - l1
        let dCp = c2p - c1p
        var dhp = 0.0
        if c1p * c2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (c1p * c2p).squareRoot() * sin(dhp / 2 * deg)
        // Eqs. 12–14: means.
        let lMean = (l1 + l2) / 2
        let cpMean = (c1p + c2p) / 2
        var hpMean = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) <= 180 {
                hpMean /= 2
            } else {
                hpMean = hpMean < 360 ? (hpMean + 360) / 2 : (hpMean - 360) / 2
            }
        }
        // Eqs. 15–21: weights and the rotation term.
        let t =
            1 - 0.17 * cos((hpMean - 30) * deg) + 0.24 * cos(2 * hpMean * deg) + 0.32 * cos((3 * hpMean + 6) * deg)
            - 0.20 * cos((4 * hpMean - 63) * deg)
        let dTheta = 30 * exp(-((hpMean - 275) / 25) * ((hpMean - 275) / 25))
        let cp7 = pow(cpMean, 7)
        let rc = 2 * (cp7 / (cp7 + pow25to7)).squareRoot()
        let l50 = (lMean - 50) * (lMean - 50)
        let sl = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sc = 1 + 0.045 * cpMean
        let sh = 1 + 0.015 * cpMean * t
        let rt = -sin(2 * dTheta * deg) * rc
        // Eq. 22.
        let x = dLp / sl
        let y = dCp / sc
        let z = dHp / sh
        return (x * x + y * y + z * z + rt * y * z).squareRoot()
    }

    /// Hue angle in degrees, 0…360, 0 for a neutral (eq. 7).
    @inline(__always)
    static func hue(_ b: Double, _ ap: Double) -> Double {
        if b == 0 && ap == 0 { return 0 }
        let h = atan2(b, ap) * 180 / Double.pi
        return h >= 0 ? h : h + 360
    }
}
