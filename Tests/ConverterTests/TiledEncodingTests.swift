import Audit
import Converter
import FileFacts
import Foundation
import GainMap
import HEIF
import HeifCodec
import ReportModel
import TestSupport
import Testing

// Tiled (grid) encoding: the same generated RAW coded untiled and as 512² tiles must decode to the same pixels
// within the codec's error, in libheif 1.15 and through our reader, and the grid must be laid out as
// ISO/IEC 23008-12 §6.6.2.3 and Apple's files have it.

/// A scene with detail everywhere (so tile edges are visible if misplaced): coloured 37-px blocks over a ramp, and
/// optionally a highlight disc at the sensor clip (→ a gain map).
func tiledScene(width w: Int, height h: Int, highlights: Bool) -> (Int, Int) -> (Double, Double, Double) {
    { x, y in
        if highlights {
            let dx = Double(x) - Double(w) * 0.7
            let dy = Double(y) - Double(h) * 0.4
            let r = Double(min(w, h)) / 6
            if dx * dx + dy * dy < r * r { return (1.0, 1.0, 1.0) }
        }
        let v = 0.04 + 0.2 * Double(x + y) / Double(w + h)
        switch (x / 37 + 2 * (y / 37)) % 5 {
        case 0: return (v * 2.2, v * 0.5, v * 0.4)
        case 1: return (v * 0.4, v * 1.8, v * 0.6)
        case 2: return (v * 0.5, v * 0.6, v * 2.4)
        default: return (v, v, v * 0.9)
        }
    }
}

/// A generated DNG converted twice: tiled (512) and untiled.
struct TiledPair: Sendable {
    let dir: URL
    let dng: URL
    let tiled: ConvertedImage
    let untiled: ConvertedImage

    /// In `folder`, or a fresh temporary one (which `cleanup` removes).
    init(
        width: Int, height: Int, highlights: Bool = false, depth: Int = 8, chroma: HeifChroma = .yuv420,
        quality: Int = 90, folder: URL? = nil
    ) throws {
        dir = folder ?? Repo.temporaryDirectory("tiles")
        dng = dir.appendingPathComponent("t\(width)x\(height).dng")
        var o = TestDNG.Options()
        o.width = width
        o.height = height
        try Data(TestDNG.make(o, scene: tiledScene(width: width, height: height, highlights: highlights))).write(
            to: dng)
        var c = ConvertOptions()
        c.quality = quality
        c.bitDepth = depth
        c.chroma = chroma
        c.tileSize = 512
        c.encodeWorkers = 2
        tiled = try HEICConverter.convert(source: dng, options: c, decoders: .inProcess)
        c.tileSize = 0
        untiled = try HEICConverter.convert(source: dng, options: c, decoders: .inProcess)
    }

    func cleanup() { try? FileManager.default.removeItem(at: dir) }
}

/// The shared 1300×700 pair with highlights: a 3×2 grid of 448-px tiles (the side that pads 1300 and 700 least)
/// whose right and bottom tiles are partly padding, and a 650×350 gain map coded as a 2×1 grid.
enum SharedPair {
    static let main: Result<TiledPair, any Error> = Result {
        try TiledPair(width: 1300, height: 700, highlights: true, folder: SharedFolder.url("main"))
    }
}

/// The folders of the shared pairs: they live as long as the statics that hold them, to the end of the test process,
/// so they are removed when it exits (a test process that crashes leaves them, under its process ID).
enum SharedFolder {
    static var base: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("readback-shared-pairs-\(getpid())")
    }

    static func url(_ name: String) -> URL {
        _ = removedAtExit
        let url = base.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let removedAtExit: Void = { atexit { try? FileManager.default.removeItem(at: SharedFolder.base) } }()
}

/// Mean and maximum absolute difference of two sample arrays.
func difference(_ a: [UInt16], _ b: [UInt16]) -> (mean: Double, max: Int) {
    var sum = 0
    var mx = 0
    for i in 0..<min(a.count, b.count) {
        let d = abs(Int(a[i]) - Int(b[i]))
        sum += d
        mx = max(mx, d)
    }
    return (Double(sum) / Double(max(1, min(a.count, b.count))), mx)
}

/// Bounds asserted between the tiled and the untiled output at quality 90 (x265 CRF 5), in 8-bit codes (×4 for
/// 10-bit): the two are independent encodes of the same frame, so they differ by the codec's error on both sides.
/// Measured on these scenes: mean 0.0004–0.009, max 3–4 (8-bit 4:2:0 and 4:4:4); 10-bit mean 0.14, max 7 codes.
/// A misplaced or mis-cropped tile gives mean differences of tens of codes.
let tiledVsUntiledMeanBound = 0.25
let tiledVsUntiledMaxBound = 12

@Test func tiledAndUntiledDecodeToTheSamePixelsInLibheif() throws {
    let pair = try SharedPair.main.get()
    #expect(pair.tiled.result.primaryTiles == 6)
    #expect(pair.untiled.result.primaryTiles == 0)
    let t = try HeifDecoder.decodePrimary(pair.tiled.bytes, format: .rgb8)
    let u = try HeifDecoder.decodePrimary(pair.untiled.bytes, format: .rgb8)
    #expect(t.width == 1300 && t.height == 700)
    #expect(u.width == 1300 && u.height == 700)
    let d = difference(t.samples, u.samples)
    #expect(d.mean < tiledVsUntiledMeanBound, "mean abs diff \(d.mean)")
    #expect(d.max <= tiledVsUntiledMaxBound, "max abs diff \(d.max)")
    // Both are within the codec's error of the frame they encode (the frame at 8 bits, as they are decoded here).
    var o = ConvertOptions()
    o.quality = 90
    o.bitDepth = 8
    guard case .rgb8(_, _, let frame) = try HEICConverter.renderedFrame(of: pair.dng, options: o, decoders: .inProcess)
    else {
        Issue.record("expected an 8-bit frame")
        return
    }
    let f = frame.map(UInt16.init)
    let dt = difference(t.samples, f)
    let du = difference(u.samples, f)
    #expect(dt.mean < 2.5 && du.mean < 2.5, "tiled \(dt), untiled \(du) against the rendered frame")
}

/// Assembles a grid from its tiles decoded one by one (each re-wrapped alone), as our reader lays them out.
func assembleThroughOurReader(_ file: HEIFFile, grid id: UInt32, format: HeifDecodeFormat = .rgb8) throws -> (
    width: Int, height: Int, channels: Int, samples: [UInt16]
) {
    let g = try #require(file.grid(of: id))
    #expect(g.tiles.count == g.rows * g.columns)
    let w = Int(g.outputWidth)
    let h = Int(g.outputHeight)
    var out: [UInt16] = []
    var channels = 0
    for (k, tile) in g.tiles.enumerated() {
        let single = try #require(file.standaloneFile(for: tile))
        let img = try HeifDecoder.decodePrimary(single, format: format)
        if out.isEmpty {
            channels = img.channels
            out = [UInt16](repeating: 0, count: w * h * channels)
        }
        let ispe = try #require(file.imageSize(of: tile))
        #expect(img.width == Int(ispe.width) && img.height == Int(ispe.height))
        let x0 = (k % g.columns) * img.width
        let y0 = (k / g.columns) * img.height
        for y in 0..<img.height where y0 + y < h {
            for x in 0..<img.width where x0 + x < w {
                for c in 0..<channels {
                    out[((y0 + y) * w + x0 + x) * channels + c] = img.samples[(y * img.width + x) * channels + c]
                }
            }
        }
    }
    return (w, h, channels, out)
}

@Test func ourReaderSeesTheGridAsLibheifDecodesIt() throws {
    let pair = try SharedPair.main.get()
    let file = HEIFFile(bytes: pair.tiled.bytes)
    #expect(!file.hasErrors, "\(file.findings)")
    let p = try #require(file.primaryItemID)
    #expect(file.item(p)?.type == "grid")
    #expect(file.item(p)?.hidden == false)
    // ImageGrid payload: version 0, flags 0 (16-bit sizes), rows − 1 = 1, columns − 1 = 2, 1300 × 700.
    #expect(file.payload(of: p) == [0, 0, 1, 2, 0x05, 0x14, 0x02, 0xBC])
    let g = try #require(file.grid(of: p))
    #expect(g.rows == 2 && g.columns == 3 && g.outputWidth == 1300 && g.outputHeight == 700 && !g.largeFields)
    #expect(file.imageSize(of: p).map { [$0.width, $0.height] } == [1300, 700])
    #expect(file.references(from: p, type: "dimg").count == 1)
    // Tiles: hidden hvc1, 448×448, in raster order (ascending ids as written), one shared hvcC in ipco.
    #expect(g.tiles == g.tiles.sorted())
    var hvcCIndices = Set<Int>()
    for t in g.tiles {
        #expect(file.item(t)?.type == "hvc1")
        #expect(file.item(t)?.hidden == true)
        #expect(file.imageSize(of: t).map { [$0.width, $0.height] } == [448, 448])
        let cfg = try #require(file.properties(of: t).first { $0.property.type == "hvcC" })
        #expect(cfg.essential)
        hvcCIndices.insert(cfg.index)
    }
    #expect(hvcCIndices.count == 1, "tiles should share one hvcC, got \(hvcCIndices.count)")
    // The grid repeats the tiles' colour (ICC + nclx) and pixi, and has no hvcC of its own.
    #expect(file.property("hvcC", of: p) == nil)
    #expect(file.colours(of: p).count == 2)
    #expect(file.property("pixi", of: p) == .pixi(bitsPerChannel: [8, 8, 8]))
    // Metadata and thumbnail point at the grid.
    let uf = HEIFFile(bytes: pair.untiled.bytes)
    #expect(
        file.metadataItems(describing: p).count == uf.metadataItems(describing: try #require(uf.primaryItemID)).count)
    #expect(file.metadataItems(describing: p).contains { file.item($0)?.type == "Exif" })
    #expect(file.thumbnails(of: p).count == 1)

    // Tiles decoded one by one and placed by our reader's grid == libheif's decode of the whole file.
    let ours = try assembleThroughOurReader(file, grid: p)
    let lib = try HeifDecoder.decodePrimary(pair.tiled.bytes, format: .rgb8)
    #expect(ours.width == lib.width && ours.height == lib.height && ours.channels == 3)
    let d = difference(ours.samples, lib.samples)
    #expect(d.max <= 1, "our reader's assembly vs libheif: \(d)")
    // …and both are the untiled output within the codec's error.
    let u = try HeifDecoder.decodePrimary(pair.untiled.bytes, format: .rgb8)
    let du = difference(ours.samples, u.samples)
    #expect(du.mean < tiledVsUntiledMeanBound && du.max <= tiledVsUntiledMaxBound, "\(du)")
}

@Test func gainMapGridIsWiredLikeTheSingleItem() throws {
    let pair = try SharedPair.main.get()
    let file = HEIFFile(bytes: pair.tiled.bytes)
    let p = try #require(file.primaryItemID)
    // ISO: tmap dimg [primary grid, gain-map grid], altr [tmap, primary].
    let tmap = try #require(file.toneMapItems.first)
    let inputs = try #require(file.toneMapInputs(of: tmap))
    #expect(inputs.base == p)
    let gm = inputs.gainMap
    #expect(file.item(gm)?.type == "grid")
    #expect(file.item(gm)?.hidden == true)
    #expect(file.alternativeGroups(containing: tmap).first?.entities == [tmap, p])
    // Apple: the same grid is the hdrgainmap auxiliary of the primary grid (auxl → primary), with its XMP.
    #expect(file.appleGainMap(of: p) == gm)
    #expect(file.references(from: gm, type: "auxl").first?.to == [p])
    #expect(file.property("hvcC", of: gm) == nil)
    let xmp = file.metadataItems(describing: gm)
    #expect(xmp.contains { String(decoding: file.payload(of: $0) ?? [], as: UTF8.self).contains("HDRGainMapHeadroom") })
    // The map is 650×350 (half of 1300×700): 2×1 tiles of 448×384, monochrome.
    let g = try #require(file.grid(of: gm))
    #expect(g.rows == 1 && g.columns == 2 && g.outputWidth == 650 && g.outputHeight == 350)
    for t in g.tiles {
        #expect(file.item(t)?.hidden == true)
        #expect(file.chromaFormat(of: t) == 0)
        #expect(file.imageSize(of: t).map { [$0.width, $0.height] } == [448, 384])
    }
    // Same metadata as the untiled run (the same render pass statistics), and the maps agree within the codec error.
    let ts = try #require(pair.tiled.result.gainMap)
    let us = try #require(pair.untiled.result.gainMap)
    #expect(ts.gainMin == us.gainMin && ts.gainMax == us.gainMax && ts.alternateHeadroom == us.alternateHeadroom)
    let ours = try assembleThroughOurReader(file, grid: gm)
    let uf = HEIFFile(bytes: pair.untiled.bytes)
    let utmap = try #require(uf.toneMapItems.first)
    let ugm = try #require(uf.toneMapInputs(of: utmap)?.gainMap)
    let single = try HeifDecoder.decodePrimary(try #require(uf.standaloneFile(for: ugm)), format: .rgb8)
    #expect(single.width == 650 && single.height == 350)
    #expect(ours.width == 650 && ours.height == 350)
    let d = difference(ours.samples, single.samples)
    #expect(d.mean < 1.0 && d.max <= 8, "gain map tiled vs untiled: \(d)")
}

/// The primary as a grid with the gain map as a grid (1300×700 → 650×350 map) and as one item (700×600 → 350×300).
@Test(arguments: [true, false])
func tiledOutputAuditsClean(gainMapGrid: Bool) throws {
    let pair = gainMapGrid ? try SharedPair.main.get() : try TiledPair(width: 700, height: 600, highlights: true)
    defer { if !gainMapGrid { pair.cleanup() } }
    let file = HEIFFile(bytes: pair.tiled.bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.item(p)?.type == "grid")
    let gm = try #require(file.appleGainMap(of: p))
    #expect(file.item(gm)?.type == (gainMapGrid ? "grid" : "hvc1"))
    let out = pair.dir.appendingPathComponent("audit-tiled.heic")
    try writeFile(pair.tiled.bytes, to: out)
    // Published as Batch publishes: with the source's file facts (times, mode, xattrs) carried.
    #expect(try FileFacts.read(path: pair.dng.path).carry(to: out.path).lines.isEmpty)
    let r = FileAuditor(
        options: AuditOptions(policy: .readbackOutputs, decode: true, thumbnails: false, jobs: 1), decoders: .inProcess
    )
    .audit(AuditJob(name: out.lastPathComponent, source: pair.dng, output: out))
    let serious = r.findings.filter { $0.severity >= .warning }
    #expect(serious.isEmpty, "\(serious.map { "\($0.code): \($0.message)" })")
    let primary = try #require(r.decode.first { $0.target == .primary })
    #expect(
        primary.status == .ok && primary.width == pair.tiled.result.width && primary.height == pair.tiled.result.height
    )
    #expect(r.decode.contains { $0.target == .gainmap && $0.status == .ok })
    #expect(!r.gainMaps.isEmpty)
    let incomplete = r.gainMaps.filter { !$0.isComplete }
    #expect(incomplete.isEmpty, "\(incomplete)")
    #expect(!r.metadata.isEmpty)
}

@Test func libheifToolsOpenTheTiledFile() throws {
    let pair = try SharedPair.main.get()
    let url = pair.dir.appendingPathComponent("tools.heic")
    try writeFile(pair.tiled.bytes, to: url)
    let (code, text) = run("heif-info", [url.path])
    #expect(code == 0, "\(text)")
    #expect(text.contains("1300x700"), "\(text)")
    let png = pair.dir.appendingPathComponent("tools.png")
    let (c2, t2) = run("heif-convert", [url.path, png.path])
    #expect(c2 == 0, "\(t2)")
    let size = (try? FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
    #expect(size > 10_000, "heif-convert wrote \(size) bytes")
}

/// Sizes that are not multiples of the tile: odd sizes over one tile, a strip under 64 px high (tiles shrink to
/// 64 rows), an even image that fits in one tile (coded untiled whatever the tile size) and an odd one (a 1×1 grid
/// over a 64×64 tile, so no item is coded at an odd size).
@Test(arguments: [(1031, 579, 4), (1030, 40, 2), (300, 200, 0), (63, 47, 1)])
func sizesThatAreNotTileMultiples(width: Int, height: Int, tiles: Int) throws {
    let pair = try TiledPair(width: width, height: height)
    defer { pair.cleanup() }
    #expect(pair.tiled.result.primaryTiles == tiles)
    let file = HEIFFile(bytes: pair.tiled.bytes)
    #expect(!file.hasErrors, "\(file.findings)")
    let p = try #require(file.primaryItemID)
    #expect(file.item(p)?.type == (tiles > 0 ? "grid" : "hvc1"))
    if tiles > 0 {
        let g = try #require(file.grid(of: p))
        #expect(g.rows * g.columns == tiles)
        #expect(Int(g.outputWidth) == width && Int(g.outputHeight) == height)
        let tileSize = try #require(file.imageSize(of: g.tiles[0]))
        #expect(Int(tileSize.width) * g.columns >= width && Int(tileSize.height) * g.rows >= height)
        #expect(tileSize.width % 64 == 0 && tileSize.height % 64 == 0)
        let ours = try assembleThroughOurReader(file, grid: p)
        let lib = try HeifDecoder.decodePrimary(pair.tiled.bytes, format: .rgb8)
        #expect(difference(ours.samples, lib.samples).max <= 1)
    }
    let t = try HeifDecoder.decodePrimary(pair.tiled.bytes, format: .rgb8)
    let u = try HeifDecoder.decodePrimary(pair.untiled.bytes, format: .rgb8)
    #expect(t.width == width && t.height == height && u.width == width && u.height == height)
    let d = difference(t.samples, u.samples)
    #expect(d.mean < tiledVsUntiledMeanBound && d.max <= tiledVsUntiledMaxBound, "\(width)×\(height): \(d)")
    if tiles == 0 { #expect(pair.tiled.bytes == pair.untiled.bytes) }
}

/// 10-bit 4:2:0 and 8-bit 4:4:4 tiles: the tiles' hvcC carries the depth and chroma, the grid decodes like the
/// untiled image. Bounds in codes of the decoded depth (10-bit: 4× the 8-bit bounds).
@Test(arguments: [(10, HeifChroma.yuv420), (8, HeifChroma.yuv444)])
func tenBitAndFourFourFourTiles(depth: Int, chroma: HeifChroma) throws {
    let pair = try TiledPair(width: 700, height: 600, depth: depth, chroma: chroma)
    defer { pair.cleanup() }
    let file = HEIFFile(bytes: pair.tiled.bytes)
    let p = try #require(file.primaryItemID)
    let g = try #require(file.grid(of: p))
    #expect(g.rows == 2 && g.columns == 2)
    for t in g.tiles {
        guard case .hvcC(let c)? = file.property("hvcC", of: t) else {
            Issue.record("tile \(t) has no hvcC")
            continue
        }
        #expect(Int(c.bitDepthLuma) == depth)
        #expect(Int(c.chromaFormat) == (chroma == .yuv444 ? 3 : 1))
    }
    #expect(file.bitDepth(of: p) == depth)
    let t = try HeifDecoder.decodePrimary(pair.tiled.bytes, format: .rgbNative)
    let u = try HeifDecoder.decodePrimary(pair.untiled.bytes, format: .rgbNative)
    #expect(t.bitDepth == (depth == 10 ? 10 : 8) && u.bitDepth == t.bitDepth)
    #expect(t.width == 700 && t.height == 600)
    let scale = depth == 10 ? 4.0 : 1.0
    let d = difference(t.samples, u.samples)
    #expect(d.mean < tiledVsUntiledMeanBound * scale && Double(d.max) <= Double(tiledVsUntiledMaxBound) * scale, "\(d)")
    let ours = try assembleThroughOurReader(file, grid: p, format: .rgbNative)
    #expect(difference(ours.samples, t.samples).max <= 1)
}

@Test func tiledOutputIsDeterministic() throws {
    let pair = try SharedPair.main.get()
    var c = ConvertOptions()
    c.quality = 90
    c.bitDepth = 8  // the pair's options (TiledPair)
    c.tileSize = 512
    c.encodeWorkers = 2
    let again = try HEICConverter.convert(source: pair.dng, options: c, decoders: .inProcess)
    let same = again.bytes == pair.tiled.bytes  // a Bool: a failure must not diff two files byte by byte
    #expect(same, "\(again.bytes.count) vs \(pair.tiled.bytes.count) bytes")
}

@Test func tileSizeIsValidated() {
    var o = ConvertOptions()
    #expect(o.tileSize == 512)
    for bad in [-64, 32, 100, 8192] {
        o.tileSize = bad
        #expect(o.validationProblem()?.contains("tile size") == true, "\(bad)")
    }
    for good in [0, 64, 512, 4096] {
        o.tileSize = good
        #expect(o.validationProblem() == nil, "\(good)")
    }
}

/// An already-rendered HEIC larger than one tile is re-encoded as a grid too, and decodes like its input.
@Test func renderedHEICInputIsTiledToo() throws {
    let pair = try SharedPair.main.get()
    let input = pair.dir.appendingPathComponent("rendered-input.heic")
    try writeFile(pair.untiled.bytes, to: input)
    var c = ConvertOptions()
    c.quality = 90
    c.tileSize = 512
    let out = try HEICConverter.convert(source: input, options: c, decoders: .inProcess)
    #expect(out.result.inputKind == .renderedHEIF)
    #expect(out.result.primaryTiles == 6)
    let file = HEIFFile(bytes: out.bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.item(p)?.type == "grid")
    let a = try HeifDecoder.decodePrimary(pair.untiled.bytes, format: .rgb8)
    let b = try HeifDecoder.decodePrimary(out.bytes, format: .rgb8)
    #expect(a.width == b.width && a.height == b.height)
    let d = difference(a.samples, b.samples)
    // A second generation at q90: one more codec error on top of the first.
    #expect(d.mean < 1.5, "\(d)")
}

/// By default a RAW's primary within HEVC level 4.1 (at most 2,228,224 pixels, no side over 4222) is coded as one
/// picture, a larger one in tiles; a tile size set is the tile size used.
@Test func primariesWithinLevel41AreUntiledByDefault() throws {
    var o = ConvertOptions()
    #expect(o.untiledWithinLevel41)
    #expect(o.primaryTileSize(width: 1224, height: 816) == 0)
    #expect(o.primaryTileSize(width: 1728, height: 1152) == 0)
    #expect(o.primaryTileSize(width: 1496, height: 1488) == 0)  // 2,226,048 samples
    #expect(o.primaryTileSize(width: 1500, height: 1500) == 512)  // 2,250,000
    #expect(o.primaryTileSize(width: 4800, height: 256) == 512)  // a side over 4222
    #expect(o.primaryTileSize(width: 6000, height: 4000) == 512)
    o.tileSize = 512
    #expect(!o.untiledWithinLevel41 && o.primaryTileSize(width: 1224, height: 816) == 512)

    // End to end: the same 1300×700 DNG, default options against a tile size given.
    let pair = try SharedPair.main.get()
    var c = ConvertOptions()
    c.quality = 90
    c.bitDepth = 8
    let out = try HEICConverter.convert(source: pair.dng, options: c, decoders: .inProcess)
    let file = HEIFFile(bytes: out.bytes)
    let primary = try #require(file.primaryItemID)
    #expect(out.result.primaryTiles == 0 && file.item(primary)?.type == "hvc1")
    #expect(pair.tiled.result.primaryTiles == 6)
    // The gain map keeps its tiles (650×350 in 448 px tiles) under the one-picture primary, wired to it both ways,
    // and the file audits clean with a complete gain map.
    let gm = try #require(file.appleGainMap(of: primary))
    #expect(file.item(gm)?.type == "grid")
    let tmap = try #require(file.toneMapItems.first)
    #expect(file.toneMapInputs(of: tmap)?.base == primary && file.toneMapInputs(of: tmap)?.gainMap == gm)
    let written = pair.dir.appendingPathComponent("audit-one-picture.heic")
    try writeFile(out.bytes, to: written)
    #expect(try FileFacts.read(path: pair.dng.path).carry(to: written.path).lines.isEmpty)  // as Batch publishes
    let r = FileAuditor(
        options: AuditOptions(policy: .readbackOutputs, decode: true, thumbnails: false, jobs: 1), decoders: .inProcess
    )
    .audit(AuditJob(name: written.lastPathComponent, source: pair.dng, output: written))
    let serious = r.findings.filter { $0.severity >= .warning }
    #expect(serious.isEmpty, "\(serious.map { "\($0.code): \($0.message)" })")
    #expect(r.decode.contains { $0.target == .primary && $0.status == .ok && $0.width == 1300 && $0.height == 700 })
    #expect(!r.gainMaps.isEmpty && r.gainMaps.allSatisfy(\.isComplete))
}
