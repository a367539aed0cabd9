import Foundation

/// The CIEDE2000 colour difference (CIE 142-2001), as Sharma, Wu and Dalal give it step by step ("The CIEDE2000
/// Color-Difference Formula: Implementation Notes, Supplementary Test Data, and Mathematical Observations", Color
/// Research & Application 30(1), 2005, eqs. 1–22), with kL = kC = kH = 1. Their notes' conventions are kept: the hue
/// of a neutral colour is 0, and the mean hue of a pair with one neutral member is the sum of the two hues.
public enum CIEDE2000 {
    /// ΔE00 between two CIELAB colours. The render check takes it at every pixel, so the transcendental calls are
    /// cut where algebra allows (within 1e-12 of the step-by-step form: CIEDE2000Tests): C^7 by multiplication, a
    /// chroma by its square root, and the four cosines of T from one sine and one cosine of the mean hue.
    public static func difference(
        _ l1: Double, _ a1: Double, _ b1: Double, _ l2: Double, _ a2: Double, _ b2: Double
    ) -> Double {
        let deg = Double.pi / 180
        // Eqs. 2–5: a' from the mean chroma, C', h'.
        let cMean = ((a1 * a1 + b1 * b1).squareRoot() + (a2 * a2 + b2 * b2).squareRoot()) / 2
        let g = 0.5 * (1 - sevenRatio(cMean).squareRoot())
        let a1p = (1 + g) * a1
        let a2p = (1 + g) * a2
        let c1p = (a1p * a1p + b1 * b1).squareRoot()
        let c2p = (a2p * a2p + b2 * b2).squareRoot()
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
        let t = weightT(hpMean * deg)
        let dTheta = 30 * exp(-((hpMean - 275) / 25) * ((hpMean - 275) / 25))
        let rc = 2 * sevenRatio(cpMean).squareRoot()
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

    /// C^7 / (C^7 + 25^7) (eqs. 4 and 17), C^7 by multiplication.
    @inline(__always)
    static func sevenRatio(_ c: Double) -> Double {
        let c2 = c * c
        let c7 = c2 * c2 * c2 * c
        return c7 / (c7 + 6_103_515_625.0)  // 25^7
    }

    /// Eq. 15's T = 1 − 0.17 cos(h − 30°) + 0.24 cos 2h + 0.32 cos(3h + 6°) − 0.20 cos(4h − 63°), for h in radians:
    /// the multiple angles from cos h and sin h, the offsets by the angle-sum identities.
    @inline(__always)
    static func weightT(_ h: Double) -> Double {
        let (c1, s1) = (cos(h), sin(h))
        let (c2, s2) = (2 * c1 * c1 - 1, 2 * s1 * c1)
        let (c3, s3) = (c1 * (4 * c1 * c1 - 3), s1 * (3 - 4 * s1 * s1))
        let (c4, s4) = (2 * c2 * c2 - 1, 2 * s2 * c2)
        // cos and sin of 30°, 6° and 63°, as libm gives them for those angles in radians.
        let term1 = c1 * 0.8660254037844387 + s1 * 0.49999999999999994
        let term3 = c3 * 0.9945218953682733 - s3 * 0.10452846326765346
        let term4 = c4 * 0.4539904997395468 + s4 * 0.8910065241883678
        return 1 - 0.17 * term1 + 0.24 * c2 + 0.32 * term3 - 0.20 * term4
    }

    /// Hue angle in degrees, 0…360, 0 for a neutral (eq. 7).
    @inline(__always)
    static func hue(_ b: Double, _ ap: Double) -> Double {
        if b == 0 && ap == 0 { return 0 }
        let h = atan2(b, ap) * 180 / Double.pi
        return h >= 0 ? h : h + 360
    }
}
