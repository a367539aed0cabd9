import Converter
import CorpusKit
import Fidelity
import Foundation
import HEIF
import HeifCodec
import TestSupport
import Testing

/// The effort ladder end to end on a generated frame with sensor noise: `balanced` (the default) writes fewer bytes
/// than `fast` and keeps the fidelity floor of the noise steps (SSIM-Y at half size against the archival target's
/// encode of the same frame: mean ≥ 0.975, every 64×64 block ≥ 0.95), and each level codes at its own depth and
/// coding tree size; balanced and small code scaling lists (HEVC's defaults; small, and balanced on a frame coded as
/// one picture, with the 4×4 luma list weighted), balanced's one-picture frames deeper transform trees than its
/// tiles, and this noisy frame one CRF step finer than the noise step's quality, which fast (flat lists) codes it at
/// (small one step finer again, and its one-picture frames in 64×64 trees).
@Test func balancedIsSmallerThanFastAboveTheFidelityFloor() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-effort-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, orientation: 1)
    let scene = Chart(width: 1024, height: 768, highlightStops: nil)
    let noisy = dir.appendingPathComponent("noisy.dng")
    try Data(DNGWriter.write(scene: scene, spec: SensorNoise(iso: 3200).spec(base, seed: 11))).write(to: noisy)

    var archival = ConvertOptions()
    EncodingTarget.archival.apply(to: &archival)
    archival.hdr = .off
    let reference = try ViewingSize.Reference(
        primaryLuma(HEICConverter.convert(source: noisy, options: archival, decoders: .inProcess).bytes))

    func converted(_ effort: EncodingEffort, source: URL? = nil, tileSize: Int? = nil) throws -> (
        bytes: Int, view: SSIMResult, depth: Int, trees: Int?, lists: Bool?, quality: Int?, transformDepth: Int?
    ) {
        var o = ConvertOptions()
        EncodingTarget.visuallyLossless.apply(to: &o, effort: effort)
        o.hdr = .off
        if let tileSize { o.tileSize = tileSize }
        let out = try HEICConverter.convert(source: source ?? noisy, options: o, decoders: .inProcess)
        #expect(out.result.options.effort == effort)
        let depth = try HeifDecoder.decodePrimary(out.bytes, format: .rgbNative).bitDepth
        // The coding tree block size of the primary (one picture: the frame is within HEVC level 4.1), as its SPS
        // says; of its first tile when it is a grid.
        let file = HEIFFile(bytes: out.bytes)
        let primary = try #require(file.primaryItemID)
        let tile = file.item(primary)?.type == "grid" ? try #require(file.derivedInputs(of: primary).first) : primary
        var config: HEVCConfig?
        if case .hvcC(let c)? = file.property("hvcC", of: tile) { config = c }
        let sps = HEVCPictureSize(try #require(config))
        return (
            out.bytes.count, try ViewingSize.compare(reference, primaryLuma(out.bytes)), depth,
            sps?.codingTreeBlockSize, sps?.scalingLists, out.result.qualityUsed, sps?.intraTransformDepth
        )
    }
    let fast = try converted(.fast)
    let balanced = try converted(.balanced)
    let small = try converted(.small)
    #expect(fast.depth == EncodingEffort.fast.bitDepth && balanced.depth == EncodingEffort.balanced.bitDepth)
    // Balanced codes 16×16 trees (x265 `ctu` 16, reaching x265 through libheif) in the primary; fast keeps
    // the 64×64 of libheif's x265. The thumbnail is coded with its own settings, so the primary's SPS is what counts.
    #expect(balanced.trees == 16 && fast.trees == 64, "balanced \(balanced.trees), fast \(fast.trees)")
    // Scaling lists: balanced codes the default lists on this noisy frame, at q50 (CRF 25) where fast codes flat ones
    // at the step's q47 (CRF 26); on the same scene without noise both code q55, balanced with the lists.
    let clean = dir.appendingPathComponent("clean.dng")
    try Data(DNGWriter.write(scene: scene, spec: base)).write(to: clean)
    let (cleanBalanced, cleanFast) = (try converted(.balanced, source: clean), try converted(.fast, source: clean))
    #expect(balanced.lists == true && fast.lists == false, "noisy: \(balanced.lists), \(fast.lists)")
    // Small codes lists too (the defaults with the 4×4 luma list weighted), so this noisy frame at q50 as well, and
    // one CRF step finer (q52: its λ² spends a step), above the floor; libheif's 64×64 trees for a frame coded as one
    // picture, balanced's 16×16 in a grid's tiles.
    #expect(small.lists == true && small.quality == 52 && small.trees == 64, "small: \(small)")
    #expect(small.view.mean >= 0.975 && small.view.worstBlock >= 0.95, "small: \(small.view)")
    let smallTiled = try converted(.small, tileSize: 256)
    #expect(smallTiled.trees == 16 && smallTiled.quality == 52, "small tiled: \(smallTiled)")
    // A frame coded as one picture (this 1024×768 one) lets balanced's 16×16 units split their transforms down to 4×4
    // (max_transform_hierarchy_depth_intra 2: x265's `tu-intra-depth` 3); fast keeps libheif's 2 (depth 1), and so
    // do balanced's tiles when the same frame is coded as a grid.
    let tiled = try converted(.balanced, tileSize: 256)
    #expect(
        balanced.transformDepth == 2 && fast.transformDepth == 1, "\(balanced.transformDepth), \(fast.transformDepth)")
    #expect(tiled.transformDepth == 1 && tiled.lists == true, "tiled: \(tiled.transformDepth), \(tiled.lists)")
    #expect(
        balanced.quality == 50 && fast.quality == NoiseLevel.steps[0].quality, "\(balanced.quality), \(fast.quality)")
    #expect(
        cleanBalanced.lists == true && cleanFast.lists == false, "clean: \(cleanBalanced.lists), \(cleanFast.lists)")
    #expect(cleanBalanced.quality == 55 && cleanFast.quality == 55)
    #expect(
        balanced.bytes < fast.bytes, "balanced \(balanced.bytes) bytes, fast \(fast.bytes)")
    #expect(balanced.view.mean >= 0.975 && balanced.view.worstBlock >= 0.95, "balanced: \(balanced.view)")
    #expect(fast.view.mean >= 0.975 && fast.view.worstBlock >= 0.95, "fast: \(fast.view)")
}
