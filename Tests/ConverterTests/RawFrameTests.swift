import Foundation
import RawDecoder
import TestSupport
import Testing

/// `LibRawDecoder.renderInPlace` reads LibRaw's processed buffer directly; it must give exactly what
/// `dcraw_make_mem_image` gives (`render`), for every orientation (flip arithmetic), half size, and both a Bayer and
/// a linear DNG.
@Test(arguments: [1, 3, 6, 8], [false, true])
func inPlaceFrameEqualsLibRawMemImage(orientation: UInt16, halfSize: Bool) throws {
    for bayer in [true, false] {
        var o = TestDNG.Options()
        o.width = 130
        o.height = 94
        o.orientation = orientation
        o.bayer = bayer
        // Asymmetric content, so any flip or transpose error changes pixels.
        let dng = TestDNG.make(o) { x, y in
            (0.02 + 0.5 * Double(x) / 130, 0.02 + 0.4 * Double(y) / 94, x < 20 && y < 30 ? 0.6 : 0.05)
        }
        let dir = Repo.temporaryDirectory("rawframe")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("o\(orientation).dng")
        try Data(dng).write(to: url)
        let opts = RawDecodeOptions(halfSize: halfSize, workingSpace: .proPhoto)
        let (_, copied) = try LibRawDecoder.decode(url, options: opts)
        let (meta, frame) = try LibRawDecoder.decodeInPlace(url, options: opts)
        #expect(meta.exifOrientation == Int(orientation))
        #expect(frame.width == copied.width && frame.height == copied.height, "\(frame.width)×\(frame.height)")
        let inPlace = frame.copy()
        #expect(inPlace.pixels == copied.pixels, "orientation \(orientation) half \(halfSize) bayer \(bayer)")
        #expect(Set(inPlace.pixels).count > 50)
        let (x, y) = (frame.width - 1, frame.height / 2)
        let p = frame.pixel(x: x, y: y)
        let i = (y * frame.width + x) * 3
        #expect([p.0, p.1, p.2] == Array(copied.pixels[i..<(i + 3)]))
    }
}
