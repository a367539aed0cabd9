import Fidelity
import Foundation
import Testing

// Reference numbers: scikit-image 0.26.0 (numpy 2.4.6, scipy 1.17.1, from PyPI in a throwaway venv),
// `structural_similarity(x, y, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=1.0,
// full=True)`; the mean is its return value, the worst block is the minimum 64×64 block mean of its map with the
// 5-pixel border cropped (what skimage averages), and PSNR is `peak_signal_noise_ratio(x, y, data_range=1.0)`.
// The inputs come from the generators below, written identically in the Python script (values rounded to float32
// like `Plane` stores them):
//   base(r, c) = 0.5 + 0.25·sin(0.21·c)·cos(0.17·r) + 0.1·((7r + 13c) mod 17)/17
//   LCG: s ← (1664525·s + 1013904223) mod 2³², u = s / 2³², one draw per pixel in row-major order;
//   noisy = base + (u − 0.5)·amp (only inside the region when one is given; draws are made for every pixel).

/// The deterministic test picture (see the header).
func basePlane(_ w: Int, _ h: Int) throws -> Plane {
    var v = [Float](repeating: 0, count: w * h)
    for r in 0..<h {
        for c in 0..<w {
            v[r * w + c] = Float(
                0.5 + 0.25 * sin(0.21 * Double(c)) * cos(0.17 * Double(r)) + 0.1 * Double((r * 7 + c * 13) % 17) / 17)
        }
    }
    return try Plane(width: w, height: h, values: v)
}

/// `x` plus uniform noise of amplitude `amp` from the LCG, optionally only in rows r0..<r1, columns c0..<c1.
func noisy(_ x: Plane, seed: UInt32, amp: Double, region: (Int, Int, Int, Int)? = nil) throws -> Plane {
    var s = seed
    var v = x.values
    for r in 0..<x.height {
        for c in 0..<x.width {
            s = s &* 1_664_525 &+ 1_013_904_223
            let u = Double(s) / 4_294_967_296
            if let g = region, !(g.0..<g.1).contains(r) || !(g.2..<g.3).contains(c) { continue }
            v[r * x.width + c] = Float(Double(x.values[r * x.width + c]) + (u - 0.5) * amp)
        }
    }
    return try Plane(width: x.width, height: x.height, values: v)
}

@Test func identicalPlanesGiveSSIMOneAndInfinitePSNR() throws {
    let x = try basePlane(96, 80)
    let s = try SSIM.compare(x, x)
    #expect(s.mean == 1)
    #expect(s.worstBlock == 1)
    #expect(try PSNR.decibels(x.values, x.values) == .infinity)
}

@Test func constantOffsetMatchesScikitImage() throws {
    let x = try basePlane(96, 80)
    let y = try Plane(width: 96, height: 80, values: x.values.map { Float(Double($0) + 0.05) })
    let s = try SSIM.compare(x, y)
    #expect(abs(s.mean - 0.995656891291932) < 1e-6)
    // The 86×70 map holds one full 64×64 block, at the map's origin (image (5, 5)).
    #expect(abs(s.worstBlock - 0.9956338129452638) < 1e-6)
    #expect(s.worstBlockX == 5 && s.worstBlockY == 5)
    #expect(abs(try PSNR.decibels(x.values, y.values) - 26.02059814170876) < 1e-4)
}

@Test func additiveNoiseMatchesScikitImage() throws {
    let x = try basePlane(96, 80)
    let y = try noisy(x, seed: 12345, amp: 0.2)
    let s = try SSIM.compare(x, y)
    #expect(abs(s.mean - 0.6789347765577401) < 1e-6)
    #expect(abs(s.worstBlock - 0.6804946990859116) < 1e-6)
    #expect(abs(try PSNR.decibels(x.values, y.values) - 24.802149964746874) < 1e-4)
}

@Test func worstBlockFindsLocalDamageTheMeanHides() throws {
    let x = try basePlane(160, 140)
    let y = try noisy(x, seed: 777, amp: 0.4, region: (80, 140, 90, 150))
    let s = try SSIM.compare(x, y)
    #expect(abs(s.mean - 0.8852605008413577) < 1e-6)
    #expect(abs(s.worstBlock - 0.6200876608196041) < 1e-6)
    #expect(s.worstBlockX == 69 && s.worstBlockY == 69)
    #expect(abs(try PSNR.decibels(x.values, y.values) - 26.593558264206436) < 1e-4)
    // A precomputed reference gives the same numbers as the one-shot call.
    let again = try SSIM.compare(SSIM.Reference(x), y)
    #expect(again == s)
}

@Test func lumaUsesBT709WeightsOnCodes() throws {
    // One pixel each of pure R, G, B and white at 8 bits, and a 10-bit mid grey.
    let p = try Luma.plane(
        rgb: [UInt8]([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]), width: 4, height: 1, maxCode: 255)
    #expect(abs(Double(p.values[0]) - 0.2126) < 1e-6)
    #expect(abs(Double(p.values[1]) - 0.7152) < 1e-6)
    #expect(abs(Double(p.values[2]) - 0.0722) < 1e-6)
    #expect(abs(Double(p.values[3]) - 1) < 1e-6)
    let g = try Luma.plane(rgb: [UInt16]([512, 512, 512]), width: 1, height: 1, maxCode: 1023)
    #expect(abs(Double(g.values[0]) - 512.0 / 1023) < 1e-6)
}

@Test func mismatchedOrTinyInputsThrowInsteadOfTrapping() throws {
    let x = try basePlane(96, 80)
    let small = try basePlane(10, 40)
    #expect(throws: FidelityError.self) { try SSIM.compare(x, try basePlane(96, 79)) }
    #expect(throws: FidelityError.self) { try SSIM.compare(small, small) }
    #expect(throws: FidelityError.self) { try PSNR.decibels([1, 2], [1]) }
    #expect(throws: FidelityError.self) { try Plane(width: 3, height: 3, values: [0]) }
    #expect(throws: FidelityError.self) {
        try Luma.plane(rgb: [UInt8](repeating: 0, count: 5), width: 1, height: 2, maxCode: 255)
    }
    #expect(throws: FidelityError.self) { try x.cropped(x: 90, y: 0, width: 10, height: 10) }
}
