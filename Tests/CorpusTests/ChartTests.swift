import ColorScience
import Foundation
import Testing

@testable import CorpusKit

/// The pose detector reads every orientation: an upright chart stored for orientation o is detected as o, and
/// applying o's display transform to it makes it upright.
@Test(arguments: 1...8)
func poseDetectorReadsEveryOrientation(_ o: Int) throws {
    let upright = RGBImage(rendering: Chart(width: 128, height: 96, highlightStops: 3))
    #expect(ChartPose.detect(in: upright)?.isUpright == true)
    // Stored data for orientation o: the inverse transform of the upright image.
    let inverse = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6][o]!
    #expect(ExifOrientation(exif: o).inverse.exif == inverse)
    let stored = upright.applyingOrientation(ExifOrientation(exif: inverse))
    let pose = try #require(ChartPose.detect(in: stored))
    #expect(pose.orientation == o, "\(pose)")
    #expect(ChartPose.detect(in: stored.applyingOrientation(ExifOrientation(exif: o)))?.isUpright == true)
}

/// Rotating twice (irot 90° plus Exif 6) gives an upside-down chart; the detector sees it.
@Test func doubleRotationIsDetected() throws {
    let upright = RGBImage(rendering: Chart(width: 128, height: 96, highlightStops: nil))
    let six = ExifOrientation(exif: 6)
    #expect(six.then(six).exif == 3)
    let twice = upright.applyingOrientation(six).applyingOrientation(six)
    let pose = try #require(ChartPose.detect(in: twice))
    #expect(pose.arrow == .down)
    #expect(pose.orientation == 3)
    #expect(!pose.isUpright)
}

/// The detector works on sRGB-encoded images too (what a HEIC decodes to), and not on a grey image.
@Test func poseDetectorOnEncodedImage() {
    var img = RGBImage(rendering: Chart(width: 96, height: 72, highlightStops: 3))
    for i in img.pixels.indices { img.pixels[i] = Float(ColorMath.srgbEncode(Double(img.pixels[i]))) }
    #expect(ChartPose.detect(in: img)?.isUpright == true)
    #expect(ChartPose.detect(in: RGBImage(width: 32, height: 32, fill: .grey(0.5))) == nil)
}

/// The truth holds what the brief promises: patches inside the frame, the highlight 3 stops above white, and the
/// SDR variant with nothing above white.
@Test func truthIsConsistent() throws {
    let hdr = Chart.truth(highlightStops: 3)
    #expect(hdr.hasHighlightsAboveWhite)
    #expect(hdr.patch("highlight")?.linear.g == 8)
    #expect(hdr.patch("diffuse-white")?.linear.g == 1)
    let sdr = Chart.truth(highlightStops: nil)
    #expect(!sdr.hasHighlightsAboveWhite)
    #expect(sdr.patches.allSatisfy { $0.linear.max <= 1 })
    let chart = Chart(width: 200, height: 150, highlightStops: 3)
    for p in hdr.patches {
        #expect(p.rect.x0 >= 0 && p.rect.x1 <= 1 && p.rect.y0 >= 0 && p.rect.y1 <= 1)
        let c = chart.sample((p.rect.x0 + p.rect.x1) / 2, (p.rect.y0 + p.rect.y1) / 2)
        #expect(c == p.linear, "\(p.name)")
    }
}

/// TIFF: a parsed DNG written back gives the same bytes (the reader keeps everything the writer wrote).
@Test func tiffRoundTripIsIdentical() throws {
    for file in ["dng/chart-rggb-12bit-o1.dng", "dng/chart-bggr-16bit-o6-mm.dng", "dng/linear-16bit-o6.dng"] {
        let b = try readBytes(corpusRoot.appendingPathComponent(file))
        let r = try #require(TIFFReader(bytes: b))
        let tree = try #require(r.readTree())
        #expect(TIFFWriter.serialize(tree, order: r.order) == b, "\(file)")
    }
}

/// The reader never traps on hostile input: truncations and byte flips of a real DNG.
@Test func tiffReaderSurvivesHostileInput() throws {
    let b = try readBytes(corpusRoot.appendingPathComponent("dng/chart-rggb-12bit-o1.dng"))
    var rng = SplitMix64(seed: 7)
    for n in stride(from: 0, to: 3000, by: 37) { _ = TIFFReader(bytes: Array(b.prefix(n)))?.readTree() }
    for _ in 0..<200 {
        var m = Array(b.prefix(3000))
        for _ in 0..<8 { m[Int(rng.next() % UInt64(m.count))] = UInt8(truncatingIfNeeded: rng.next()) }
        _ = TIFFReader(bytes: m)?.readTree()
    }
    #expect(TIFFReader(bytes: Array("not a tiff".utf8)) == nil)
}

/// 12- and 14-bit packing is an MSB-first bit stream, each row starting on a byte boundary.
@Test func bitPacking() {
    #expect(DNGWriter.pack([0xABC, 0x123], bits: 12, rowSamples: 2, rows: 1, bigEndian: false) == [0xAB, 0xC1, 0x23])
    #expect(
        DNGWriter.pack([0x3FFF, 0, 0x3FFF, 0], bits: 14, rowSamples: 4, rows: 1, bigEndian: false)
            == [0xFF, 0xFC, 0x00, 0x0F, 0xFF, 0xC0, 0x00])
    #expect(DNGWriter.pack([0x1234], bits: 16, rowSamples: 1, rows: 1, bigEndian: true) == [0x12, 0x34])
}
