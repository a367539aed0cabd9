import Foundation
import RawDecoder
import TestSupport
import Testing

private func writeTemp(_ bytes: [UInt8], _ name: String) throws -> URL {
    let dir = Repo.temporaryDirectory("rawdecoder")
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

@Test(arguments: [true, false])
func rawDecoderDecodesGeneratedDNG(bayer: Bool) throws {
    var o = TestDNG.Options()
    o.bayer = bayer
    // Grey ramp left→right, 0…0.5 of white.
    let dng = TestDNG.make(o) { x, _ in
        let v = Double(x) / 255 * 0.5
        return (v, v, v)
    }
    let url = try writeTemp(dng, bayer ? "bayer.dng" : "linear.dng")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let (meta, img) = try LibRawDecoder.decode(url, options: RawDecodeOptions(workingSpace: .sRGB))
    #expect(meta.make == "Readback")
    #expect(meta.model == "TestCam 1")
    #expect(meta.isDNG)
    #expect(meta.isLinearDNG == !bayer)
    #expect(meta.whiteLevel == 16383 - 512 || meta.whiteLevel == 16383)
    #expect(img.width == 256 && img.height == 192)
    // Linear output: the right edge (0.5 of white) is about half of 65535, left edge near 0.
    let y = 96
    let right = Double(img.pixels[(y * 256 + 250) * 3 + 1]) / 65535
    let left = Double(img.pixels[(y * 256 + 2) * 3 + 1]) / 65535
    #expect(abs(right - 0.49) < 0.05, "right \(right)")
    #expect(left < 0.02, "left \(left)")
}

@Test func rawDecoderAppliesOrientation6() throws {
    var o = TestDNG.Options()
    o.orientation = 6
    // Stored left columns red: orientation 6 makes stored column 0 the visual top.
    let dng = TestDNG.make(o) { x, _ in x < 64 ? (0.4, 0.02, 0.02) : (0.02, 0.02, 0.4) }
    let url = try writeTemp(dng, "o6.dng")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let (meta, img) = try LibRawDecoder.decode(url, options: RawDecodeOptions(workingSpace: .sRGB))
    #expect(meta.exifOrientation == 6)
    #expect(img.width == 192 && img.height == 256)
    let top = img.pixels[(10 * img.width + 96) * 3..<(10 * img.width + 96) * 3 + 3]
    let bottom = img.pixels[(240 * img.width + 96) * 3..<(240 * img.width + 96) * 3 + 3]
    #expect(top[top.startIndex] > top[top.startIndex + 2], "top should be red: \(Array(top))")
    #expect(bottom[bottom.startIndex + 2] > bottom[bottom.startIndex], "bottom should be blue: \(Array(bottom))")
}

@Test func rawDecoderRejectsConstantFrameAndStubAndNonRaw() throws {
    // Constant frame: every sample the same.
    let flat = TestDNG.make(TestDNG.Options()) { _, _ in (0, 0, 0) }
    let u1 = try writeTemp(flat, "flat.dng")
    defer { try? FileManager.default.removeItem(at: u1.deletingLastPathComponent()) }
    do {
        _ = try LibRawDecoder.decode(u1)
        Issue.record("constant frame accepted")
    } catch let e as RawDecodeError {
        #expect(e.file == "flat.dng")
        #expect(e.reason == .constantFrame(value: 512))
    }
    // Stub: the header of a real DNG, pixel data cut away.
    let real = TestDNG.make(TestDNG.Options()) { x, y in (Double(x % 7) / 10, Double(y % 5) / 10, 0.2) }
    let u2 = try writeTemp(Array(real.prefix(1200)), "stub.dng")
    defer { try? FileManager.default.removeItem(at: u2.deletingLastPathComponent()) }
    #expect {
        _ = try LibRawDecoder.decode(u2)
    } throws: { e in
        guard let e = e as? RawDecodeError, case .stub = e.reason else { return false }
        return e.description.hasPrefix("stub.dng: ")
    }
    // Not a RAW at all.
    let u3 = try writeTemp(Array("hello, not a raw file\n".utf8), "text.nef")
    defer { try? FileManager.default.removeItem(at: u3.deletingLastPathComponent()) }
    #expect {
        _ = try LibRawDecoder.decode(u3)
    } throws: { e in
        guard let e = e as? RawDecodeError, case .libraw(let f, _, _) = e.reason else { return false }
        return f == "libraw_open_file" && !e.description.contains("\n")
    }
}
