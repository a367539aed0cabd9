import Foundation
import HEIF
import HeifCodec
import Testing

@testable import Audit

// The render check's reduced decode of a grid, tile by tile (`HeifDecoder.decodeGridReduced`), against libheif's
// whole-picture decode reduced the same way (`decodePrimaryReduced`), on our own tiled outputs.

/// Each tile's pixels converted and clipped as libheif converts them give the block means libheif's whole picture
/// gives: the same size and colour, no code more than 1 apart (measured: one sample in 4,000, by the conversion's
/// rounding), including the scene's clipped highlights. A tile placed at the wrong column or row is tens of codes
/// off on this scene. Blocks of 20 and 5 pixels.
@Test(arguments: [64, 256])
func aGridReducedTileByTileMatchesTheWholeDecode(minSide: Int) throws {
    let pair = try SharedPair.main.get()
    let bytes = pair.tiled.bytes
    let file = HEIFFile(bytes: bytes)
    let g = try #require(Rewrap.gridTiles(file, bytes: bytes))
    #expect(g.geometry == GridGeometry(columns: 3, rows: 2, tileWidth: 448, tileHeight: 448, width: 1300, height: 700))
    #expect(g.bytes.count == bytes.count + g.tileBytes.reduce(0, +))
    let whole = try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide)
    let tiled = try #require(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry, minSide: minSide))
    expectSameReduction(tiled, whole, "minSide \(minSide)")
}

/// 10-bit tiles (the balanced effort's, Readback's default) too: converted at 10 bits as libheif converts them, then
/// their low bits dropped as libheif drops them, their blocks are the whole decode's within a code, highlights included.
@Test(arguments: [64, 256])
func aTenBitGridReducedTileByTileMatchesTheWholeDecode(minSide: Int) throws {
    let pair = try TenBitPair.main.get()
    let bytes = pair.tiled.bytes
    let g = try #require(Rewrap.gridTiles(HEIFFile(bytes: bytes), bytes: bytes))
    #expect(g.geometry.columns * g.geometry.rows == 6)
    let whole = try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide)
    #expect(whole.size.codedBitDepth == 10)
    let tiled = try #require(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry, minSide: minSide))
    expectSameReduction(tiled, whole, "minSide \(minSide)")
}

/// A primary coded as one picture (as Readback codes a frame within HEVC level 4.1) goes the same way as a grid of one
/// tile, decoded by libde265 on worker threads and converted in bands: at every reduction, down to none (1300 px at
/// 1024: every pixel), 8- and 10-bit, its pixels are libheif's whole decode's within a code, highlights included.
@Test(arguments: [(8, 1024), (8, 256), (10, 1024), (10, 64)])
func aOnePicturePrimaryReducedThroughLibde265MatchesTheWholeDecode(depth: Int, minSide: Int) throws {
    let pair = try (depth == 8 ? SharedPair.main : TenBitPair.main).get()
    let bytes = pair.untiled.bytes
    let g = try #require(Rewrap.codedTiles(HEIFFile(bytes: bytes), bytes: bytes))
    #expect(g.geometry == GridGeometry(columns: 1, rows: 1, tileWidth: 1300, tileHeight: 700, width: 1300, height: 700))
    #expect(Rewrap.gridTiles(HEIFFile(bytes: bytes), bytes: bytes) == nil)
    let whole = try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide)
    #expect(whole.size.codedBitDepth == depth)
    let one = try #require(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry, minSide: minSide))
    expectSameReduction(one, whole, "depth \(depth), minSide \(minSide)")
}

/// A reduced decode against libheif's whole decode reduced the same way: the same size and colour, no code more than 1
/// apart, and under one sample in a hundred off at all.
func expectSameReduction(
    _ r: (image: HeifDecodedImage, size: HeifDecodedSize), _ whole: (image: HeifDecodedImage, size: HeifDecodedSize),
    _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(r.size == whole.size, sourceLocation: sourceLocation)
    #expect(r.image.width == whole.image.width && r.image.height == whole.image.height, sourceLocation: sourceLocation)
    #expect(r.image.nclx == whole.image.nclx && r.image.icc == whole.image.icc, sourceLocation: sourceLocation)
    let d = difference(r.image.samples, whole.image.samples)
    #expect(d.max <= 1 && d.mean < 0.01, "\(label): \(d)", sourceLocation: sourceLocation)
}

/// The shared 10-bit pair: the main pair's scene and size at 10 bits, the balanced effort's depth.
enum TenBitPair {
    static let main: Result<TiledPair, any Error> = Result {
        try TiledPair(width: 1300, height: 700, highlights: true, depth: 10, folder: SharedFolder.url("ten-bit"))
    }
}

/// What the tile-by-tile path does not take decodes whole: 4:4:4 tiles are not split, and blocks under 4 × 4 pixels
/// and a geometry that does not match the file fall back to the whole decode.
@Test func gridsTheTilePathDoesNotTakeDecodeWhole() throws {
    let chroma444 = try TiledPair(width: 700, height: 600, chroma: .yuv444)
    defer { chroma444.cleanup() }
    #expect(Rewrap.gridTiles(HEIFFile(bytes: chroma444.tiled.bytes), bytes: chroma444.tiled.bytes) == nil)
    #expect(Rewrap.codedTiles(HEIFFile(bytes: chroma444.untiled.bytes), bytes: chroma444.untiled.bytes) == nil)
    let pair = try SharedPair.main.get()
    let bytes = pair.tiled.bytes
    let g = try #require(Rewrap.gridTiles(HEIFFile(bytes: bytes), bytes: bytes))
    // Blocks under 4 × 4 pixels (1300 px at 1024: every pixel) are left to libheif's own conversion.
    #expect(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry, minSide: 1024) == nil)
    var wrong = g.geometry
    wrong.width -= 448
    #expect(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: wrong, minSide: 256) == nil)
    #expect(
        try HeifDecoder.decodeGridReduced(
            g.bytes, fileBytes: bytes.count, tileBytes: Array(g.tileBytes.dropLast()), geometry: g.geometry,
            minSide: 256) == nil)
    // What falls back is the whole decode's result.
    let r = try HeifDecoder.reducedGridOrWhole(
        g.bytes, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: wrong, minSide: 256)
    let whole = try HeifDecoder.decodePrimaryReduced(bytes, minSide: 256)
    #expect(r.image.samples == whole.image.samples && r.size == whole.size)
}

/// A tile whose bytes are damaged is libheif's error, as in the whole decode.
@Test func aDamagedTileIsLibheifsError() throws {
    let pair = try SharedPair.main.get()
    let bytes = pair.tiled.bytes
    let g = try #require(Rewrap.gridTiles(HEIFFile(bytes: bytes), bytes: bytes))
    var damaged = g.bytes
    let second = bytes.count + g.tileBytes[0]
    for i in (second + 8)..<(second + g.tileBytes[1]) { damaged[i] = 0 }
    #expect(throws: HeifError.self) {
        try HeifDecoder.decodeGridReduced(
            damaged, fileBytes: bytes.count, tileBytes: g.tileBytes, geometry: g.geometry, minSide: 256)
    }
}
