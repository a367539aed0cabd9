import ColorScience
import Foundation
import Testing

@testable import CorpusKit

/// Decoded sRGB codes go back to linear light through the sRGB EOTF; Display P3 goes through the four-decimal
/// P3 → sRGB matrix with negatives clipped (pure P3 red is outside sRGB: green and blue clip to 0).
@Test func sceneLinearDecodesTheTransferAndPrimaries() throws {
    let samples: [UInt16] = [0, 128, 255, 255, 0, 0]
    let img: SceneLinear.Samples = (2, 1, 3, 8, samples, nil, nil)
    let srgb = try SceneLinear.linear(img, displayP3: false)
    #expect(srgb.channels == 3 && srgb.width == 2)
    #expect(srgb.pixels[0] == 0)  // R of pixel 0
    #expect(abs(srgb.pixels[2] - 0.2158605) < 1e-6)  // G of pixel 0: code 128
    #expect(srgb.pixels[4] == 1)  // B of pixel 0
    let p3 = try SceneLinear.linear(img, displayP3: true)
    #expect(abs(p3.pixels[1] - 1.2249) < 1e-6)  // R of pixel 1: pure P3 red
    #expect(p3.pixels[3] == 0 && p3.pixels[5] == 0)  // its G and B: negative, clipped
    let rgb = SceneLinear.interleaved(p3)
    #expect(rgb.pixels.count == 6 && rgb.pixels[3] == p3.pixels[1] && rgb.pixels[2] == p3.pixels[4])
}

/// Display P3 is recognised from nclx primaries 12 or an ICC description naming it; anything else is sRGB.
@Test func sceneLinearRecognisesDisplayP3() {
    #expect(SceneLinear.isDisplayP3(nclx: .displayP3, icc: nil))
    #expect(!SceneLinear.isDisplayP3(nclx: .sRGB, icc: nil))
    #expect(!SceneLinear.isDisplayP3(nclx: nil, icc: nil))
    let icc: [UInt8] = [0, 0, 0, 0x44] + Array("desc".utf8) + [0, 0] + Array("Display P3".utf8).flatMap { [0, $0] }
    #expect(SceneLinear.isDisplayP3(nclx: nil, icc: icc))
    #expect(!SceneLinear.isDisplayP3(nclx: .sRGB, icc: Array("sRGB IEC61966-2.1".utf8)))
}

/// Without an Apple gain map only the primary is asked for, and the note says which primaries were converted.
@Test func sceneLinearWithoutAGainMapDecodesOnlyThePrimary() throws {
    var requests: [SceneLinear.Request] = []
    let (photo, note) = try SceneLinear.photo(heif: [UInt8](repeating: 0, count: 64)) { _, request in
        requests.append(request)
        return (1, 1, 3, 10, [1023, 1023, 1023], NCLX.displayP3, nil)
    }
    #expect(requests.count == 1 && note == "Display P3 → sRGB")
    #expect(abs(photo.pixels[0] - 1.0002) < 1e-4 && photo.width == 1)
}
