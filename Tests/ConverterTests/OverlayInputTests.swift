import Converter
import Foundation
import HEIF
import HeifCodec
import RenderIO
import TestSupport
import Testing

/// A HEIF input whose primary is an overlay (`iovl`) is never handed to libheif 1.15 (which can crash the process on
/// one): `convert` refuses it with one line naming the overlay, and the render check calls it unreadable.
@Test func anOverlayPrimaryIsRefusedByConvertAndTheRenderCheckWithoutReachingLibheif() throws {
    let dir = Repo.temporaryDirectory("overlay-in")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (w, h) = (64, 48)
    let plain = try HeifEncoder.encode(
        .rgb8(width: w, height: h, samples: (0..<(w * h * 3)).map { UInt8($0 % 251) }),
        settings: HeifEncodeSettings(quality: 90, nclx: .sRGB))
    let f = HEIFFile(bytes: plain)
    let p = try #require(f.primaryItemID)
    var b = HEIFBuilder(file: f)
    b.updateItem(p) { $0.hidden = true }
    let o = b.addOverlay(
        width: UInt32(w), height: UInt32(h), fill: (0, 0, 0xFFFF, 0xFFFF), inputs: [p, p],
        offsets: [(x: -70_000, y: 0), (x: 20, y: 10)])
    b.setPrimary(o)
    let bytes = b.build()
    // The 32-bit form: an offset beyond 16 bits sets flag bit 0.
    #expect(HEIFFile(bytes: bytes).payload(of: o)?.prefix(2) == [0, 1])
    let url = dir.appendingPathComponent("ov.heic")
    try Data(bytes).write(to: url)
    #expect {
        _ = try HEICConverter.convert(source: url, decoders: .inProcess)
    } throws: { e in
        "\(e)".contains("overlay (iovl, item \(o))")
    }
    #expect {
        _ = try OutputImage.fromHEIF(bytes, decoders: .inProcess)
    } throws: { e in
        "\(e)".contains("libheif 1.15 crashes")
    }
    // The same file with its coded primary back in place converts.
    b.setPrimary(p)
    b.updateItem(p) { $0.hidden = false }
    let back = dir.appendingPathComponent("back.heic")
    try Data(b.build()).write(to: back)
    #expect(try HEICConverter.convert(source: back, decoders: .inProcess).result.width == w)
}
