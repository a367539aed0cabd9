import CorpusKit
import Foundation
import TestSupport
import Testing

@testable import RawDecoder

/// Readback's LibRaw runs LibRaw's per-pixel loops (white balance and black subtraction, the camera-to-working-space
/// matrix), its reader of packed DNGs and its AHD demosaic on every core (scripts/libraw/readback_loops.cpp): every
/// frame is LibRaw's own, sample for sample, on every generated DNG of the corpus (every CFA, 12 to 16 bits, black
/// levels, masked areas, lossless JPEG, linear DNGs, every orientation), on a frame without a black level, on packed
/// rows that end inside a byte, on a packed DNG cut inside its frame, and on a frame of several AHD tiles (the
/// demosaic shared out by tile).
@Suite struct ReadbackLoopsTests {
    /// The frame Readback's LibRaw (`upstream` false) or stock LibRaw decodes.
    static func frame(_ bytes: [UInt8], name: String, upstream: Bool) throws -> RawFrame {
        let d = LibRawDecoder(upstreamLoops: upstream)
        _ = try d.open(bytes: bytes, name: name)
        return try d.renderInPlace()
    }

    static func frames(_ bytes: [UInt8], name: String) throws -> (RawFrame, RawFrame) {
        (try frame(bytes, name: name, upstream: false), try frame(bytes, name: name, upstream: true))
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

    /// A packed DNG of `bits` per sample, `width` × `height` (300: two of the reader's 256-row blocks), with noise.
    static func packedDNG(bits: Int, width: Int, height: Int = 300) -> [UInt8] {
        let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: bits, noiseSigma: 3, seed: UInt64(bits * 1000 + width))
        return DNGWriter.write(scene: Chart(width: width, height: height, highlightStops: 2), spec: spec)
    }

    /// AHD by tile: a frame of 3 × 3 of LibRaw's 512 px AHD tiles (the last row and column short), the tiles run in
    /// any order on every thread, is LibRaw's AHD, sample for sample.
    @Test func aFrameOfManyDemosaicTilesIsLibRawsOwn() throws {
        let dng = Self.packedDNG(bits: 14, width: 1100, height: 1040)
        let (ours, upstream) = try Self.frames(dng, name: "tiles.dng")
        #expect(ours.width == 1100 && ours.height == 1040)
        #expect(differingRows(ours, upstream) == 0)
    }

    /// 10 and 14 bits at 330 px end each row inside a byte (3300 and 4620 bits), so every row starts on a padded
    /// byte; 12 bits at 330 px and 14 bits at 332 px do not.
    @Test(arguments: [(10, 330), (12, 330), (14, 330), (14, 332)])
    func packedRowsAreLibRawsOwn(bits: Int, width: Int) throws {
        let dng = Self.packedDNG(bits: bits, width: width)
        let (ours, upstream) = try Self.frames(dng, name: "packed-\(bits).dng")
        #expect(ours.width == width && ours.height == 300)
        #expect(differingRows(ours, upstream) == 0)
    }

    /// Cut inside the frame (the raw data is nine tenths of the file), LibRaw's own reader runs: the same frame, or
    /// the same refusal.
    @Test func aPackedDNGCutInsideItsFrameIsReadAsLibRawReadsIt() throws {
        let dng = Self.packedDNG(bits: 14, width: 330)
        for fraction in [0.5, 0.8] {
            let cut = Array(dng.prefix(Int(Double(dng.count) * fraction)))
            let ours = Result { try Self.frame(cut, name: "cut.dng", upstream: false) }
            let upstream = Result { try Self.frame(cut, name: "cut.dng", upstream: true) }
            switch (ours, upstream) {
            case (.success(let a), .success(let b)): #expect(differingRows(a, b) == 0, "cut at \(fraction)")
            case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "cut at \(fraction)")
            default: Issue.record("cut at \(fraction): ours \(ours), LibRaw's \(upstream)")
            }
        }
    }
}
