import Foundation
import HEIF
import HeifCodec
import Testing

@testable import Converter

private struct Boom: Error {}

private func fakeItem(_ px: HeifPixels) -> CodedItem {
    guard case .mono8(let w, let h, let s) = px else {
        return CodedItem(properties: [], data: [], width: 0, height: 0)
    }
    return CodedItem(properties: [], data: [s[0]], width: w, height: h)
}

/// Results come back in submission order whatever order the workers finish in.
@Test func tilePoolReturnsTilesInSubmissionOrder() throws {
    let pool = TileEncodePool(workers: 3, capacity: 2) { px in
        guard case .mono8(_, _, let s) = px else { throw Boom() }
        usleep(UInt32((7 - Int(s[0]) % 7) * 300))  // later tiles finish sooner
        return fakeItem(px)
    }
    for i in 0..<40 { try pool.submit(i, .mono8(width: 1, height: 1, samples: [UInt8(i)])) }
    let out = try pool.finish(count: 40)
    #expect(out.map { Int($0.data[0]) } == Array(0..<40))
}

/// A failing tile stops the pool: the error reaches the producer (submit or finish), nothing hangs.
@Test func tilePoolPropagatesTheFirstError() {
    let pool = TileEncodePool(workers: 2, capacity: 1) { px in
        guard case .mono8(_, _, let s) = px, s[0] != 5 else { throw Boom() }
        return fakeItem(px)
    }
    var thrown = false
    do {
        for i in 0..<30 { try pool.submit(i, .mono8(width: 1, height: 1, samples: [UInt8(i)])) }
        _ = try pool.finish(count: 30)
    } catch is Boom {
        thrown = true
        pool.abandon()
    } catch {
        Issue.record("unexpected error \(error)")
    }
    #expect(thrown)
}

@Test func tileLayoutCoversTheImageWithEqualTiles() throws {
    #expect(try TileLayout.make(width: 6000, height: 4000, tileSize: 0, file: "x") == nil)
    #expect(try TileLayout.make(width: 512, height: 300, tileSize: 512, file: "x") == nil)
    // 6000 px: 512-px tiles overrun by 144 (576: 336, 448: 272); 4000 px: 576 and 448 overrun by 32 (512: 96),
    // and 576 comes first on a tie.
    let a = try #require(try TileLayout.make(width: 6000, height: 4000, tileSize: 512, file: "x"))
    #expect(a.columns == 12 && a.rows == 7 && a.tileWidth == 512 && a.tileHeight == 576)
    let b = try #require(try TileLayout.make(width: 1030, height: 40, tileSize: 512, file: "x"))
    #expect(b.columns == 2 && b.rows == 1 && b.tileWidth == 576 && b.tileHeight == 64)
    let c = try #require(try TileLayout.make(width: 513, height: 129, tileSize: 512, file: "x"))
    #expect(c.columns == 1 && c.rows == 1 && c.tileWidth == 576 && c.tileHeight == 192)
    #expect(throws: ConvertError.self) { try TileLayout.make(width: 64 * 257, height: 64, tileSize: 64, file: "x") }
}

/// Each side's tiles are the nominal size or 64 px more or less, whichever pads least: a 50 MP frame (8640×5760)
/// takes 576-px tiles and no padding where 512-px ones pad 6 % of its area, and a side never pads more than the
/// nominal size would.
@Test func tileSidesPadAsLittleAsTheNominalSizeOrLess() throws {
    let f = try #require(try TileLayout.make(width: 8640, height: 5760, tileSize: 512, file: "x"))
    #expect(f.tileWidth == 576 && f.tileHeight == 576 && f.columns == 15 && f.rows == 10)
    #expect(TileLayout.side(for: 8192, tileSize: 512) == 512)
    #expect(TileLayout.side(for: 6720, tileSize: 512) == 448)
    #expect(TileLayout.side(for: 300, tileSize: 512) == 320)
    #expect(TileLayout.side(for: 5000, tileSize: 64) == 64)
    #expect(TileLayout.side(for: 9000, tileSize: 4096) == 4032)
    // Never a side that needs more than 256 tiles when the nominal one does not.
    #expect(TileLayout.side(for: 20_000, tileSize: 128) == 128)
    for n in stride(from: 100, through: 12_000, by: 37) {
        for t in [64, 256, 512, 1024, 4096] where n > t {
            let s = TileLayout.side(for: n, tileSize: t)
            #expect([t - 64, t, t + 64].contains(s) && s >= 64 && s <= 4096 && s % 64 == 0)
            #expect((n + s - 1) / s * s <= (n + t - 1) / t * t, "\(n) px, nominal \(t): \(s)")
            #expect((n + s - 1) / s <= max(256, (n + t - 1) / t))
        }
    }
}

/// Edge tiles repeat the last column and row into their padding.
@Test func cutTileReplicatesEdges() {
    // A 5×2 band, one channel: values 10·row + column.
    let band: [UInt8] = [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]
    let t = band.withUnsafeBufferPointer {
        cutTile($0.baseAddress!, width: 5, bandRows: 2, x0: 3, tileWidth: 4, tileHeight: 3, channels: 1)
    }
    #expect(t == [3, 4, 4, 4, 13, 14, 14, 14, 13, 14, 14, 14])
}
