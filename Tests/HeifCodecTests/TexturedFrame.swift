import HeifCodec

/// A frame with detail at every scale (a seeded pseudo-random texture over a gradient), 10-bit.
func texturedFrame(_ w: Int, _ h: Int) -> HeifPixels {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var s = [UInt16](repeating: 0, count: w * h * 3)
    for i in 0..<(w * h) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Int(state >> 58)  // 0…63
        let base = (i % w) * 600 / w + (i / w) * 300 / h
        for c in 0..<3 { s[3 * i + c] = UInt16(min(1023, base + noise * (c + 2))) }
    }
    return .rgb16(width: w, height: h, bitDepth: 10, samples: s)
}
