import Foundation
import TestSupport
import Testing

@testable import RawDecoder

/// Readback's LibRaw runs two of LibRaw's per-pixel loops (white balance and black subtraction, the camera-to-working-
/// space matrix) on every core (scripts/libraw/readback_loops.cpp): every frame is LibRaw's own, sample for sample,
/// on every generated DNG of the corpus (every CFA, 12 to 16 bits, black levels, masked areas, lossless JPEG, linear
/// DNGs, every orientation) and on a frame without a black level.
@Suite struct ReadbackLoopsTests {
    static func frames(_ bytes: [UInt8], name: String) throws -> (RawFrame, RawFrame) {
        let ours = LibRawDecoder()
        _ = try ours.open(bytes: bytes, name: name)
        let upstream = LibRawDecoder(upstreamLoops: true)
        _ = try upstream.open(bytes: bytes, name: name)
        return (try ours.renderInPlace(), try upstream.renderInPlace())
    }

    @Test func everyCorpusFrameIsLibRawsOwn() throws {
        let folder = Repo.root.appendingPathComponent("Corpus/dng")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".dng") }
        #expect(names.count >= 20)
        for name in names.sorted() {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            let (ours, upstream) = try Self.frames(bytes, name: name)
            #expect(ours.width == upstream.width && ours.height == upstream.height, "\(name)")
            let differing = differingRows(ours, upstream)
            #expect(differing == 0, "\(name): \(differing) rows differ")
        }
    }

    @Test func aFrameWithoutABlackLevelIsLibRawsOwn() throws {
        var o = TestDNG.Options()
        o.black = 0
        o.width = 320
        let dng = TestDNG.make(o) { x, y in (Double(x) / 300, Double(y) / 150, Double(x * y % 97) / 90) }
        let (ours, upstream) = try Self.frames(dng, name: "black0.dng")
        #expect(differingRows(ours, upstream) == 0)
    }
}
