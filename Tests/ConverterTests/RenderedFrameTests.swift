import Converter
import Foundation
import HeifCodec
import TestSupport
import Testing

/// `HEICConverter.renderedFrame` returns the upright frame the converter encodes, not a constant image.
@Test(arguments: [8, 10])
func renderedFrameIsUprightAndNotConstant(depth: Int) throws {
    var o = TestDNG.Options()
    o.orientation = 6  // stored 256×192 → upright 192×256
    let f = try Fixture("frame\(depth).dng", options: o, highlights: false)
    defer { f.cleanup() }
    var opts = ConvertOptions()
    opts.bitDepth = depth
    let frame = try HEICConverter.renderedFrame(of: f.url, options: opts, decoders: .inProcess)
    #expect(frame.width == 192 && frame.height == 256)
    switch frame {
    case .rgb8(let w, let h, let s):
        #expect(depth == 8)
        #expect(s.count == w * h * 3)
        #expect(Set(s).count > 10, "frame is (nearly) constant")
    case .rgb16(let w, let h, let bits, let s):
        #expect(depth == 10 && bits == 10)
        #expect(s.count == w * h * 3)
        #expect(Set(s).count > 10, "frame is (nearly) constant")
        #expect(s.max()! <= 1023)
    case .mono8:
        Issue.record("expected RGB, got mono")
    }
}

/// The frame matches the converter's output within the codec's error (it is what the primary encodes).
@Test func renderedFrameMatchesTheDecodedPrimary() throws {
    let f = try Fixture("frame-vs-out.dng", highlights: false)
    defer { f.cleanup() }
    for depth in [8, 10] {
        var opts = ConvertOptions()
        opts.quality = 90
        opts.bitDepth = depth
        let frame = try HEICConverter.renderedFrame(of: f.url, options: opts, decoders: .inProcess)
        let out = try HEICConverter.convert(source: f.url, options: opts, decoders: .inProcess)
        let dec = try HeifDecoder.decodePrimary(out.bytes, format: .rgbNative)
        let w: Int
        let h: Int
        let s: [Int]
        switch frame {
        case .rgb8(let fw, let fh, let samples): (w, h, s) = (fw, fh, samples.map(Int.init))
        case .rgb16(let fw, let fh, _, let samples): (w, h, s) = (fw, fh, samples.map(Int.init))
        case .mono8:
            Issue.record("expected RGB")
            return
        }
        #expect(dec.width == w && dec.height == h && dec.bitDepth == depth)
        #expect(dec.samples.count == s.count)
        var sum = 0
        for i in 0..<min(s.count, dec.samples.count) { sum += abs(s[i] - Int(dec.samples[i])) }
        let mean = Double(sum) / Double(max(1, s.count))
        // The codec's error, in codes of the depth (×4 at 10 bits).
        #expect(mean < (depth == 10 ? 8.0 : 2.0), "\(depth)-bit: mean abs diff \(mean)")
    }
}
