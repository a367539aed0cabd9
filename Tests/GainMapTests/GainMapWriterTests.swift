import ColorScience
import Foundation
import HEIF
import HeifCodec
import TestSupport
import Testing

@testable import GainMap

/// Runs a tool; returns (exit status, stdout+stderr). A missing tool is a thrown error (a failure, not a skip).
func run(_ tool: String, _ args: [String]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: out, as: UTF8.self))
}

struct ToolFailed: Error, CustomStringConvertible { let description: String }

/// Encodes an 8-bit image with heif-enc (a PNG written here) and returns the primary's hvcC, bitstream and size.
func heifEncode(width: Int, height: Int, channels: Int, samples: [UInt8], in dir: URL, name: String) throws
    -> (config: Property, data: [UInt8], width: UInt32, height: UInt32, chroma: Int)
{
    let png = dir.appendingPathComponent("\(name).png")
    let heic = dir.appendingPathComponent("\(name).heic")
    try Data(TinyPNG.encode(width: width, height: height, channels: channels, samples: samples)).write(to: png)
    let (rc, out) = try run("heif-enc", ["-q", "95", png.path, "-o", heic.path])
    guard rc == 0 else { throw ToolFailed(description: "heif-enc failed (\(rc)): \(out)") }
    let f = try HEIFFile(contentsOf: heic.path)
    guard let id = f.primaryItemID, f.item(id)?.type == "hvc1", let cfg = f.property("hvcC", of: id),
        let data = f.payload(of: id), let size = f.imageSize(of: id)
    else { throw ToolFailed(description: "heif-enc output for \(name) has no plain hvc1 primary: \(f.items)") }
    return (cfg, data, size.width, size.height, f.chromaFormat(of: id) ?? -1)
}

func tempDir() throws -> URL {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-writer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d
}

@Test func writtenFileOpensInHeifInfoPassesTheCheckAndKeepsTheFractions() throws {
    let dir = try tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    // A 128x128 scene, its SDR base and a half-resolution one-channel gain map computed from the pair.
    let (sdr, hdr) = try syntheticPair(width: 128, height: 128)
    var o = GainMapComputeOptions()
    o.channels = 1
    o.downscale = 2
    o.alternateHdrHeadroom = nil
    let gm = try GainMapMath.compute(base: sdr, alternate: hdr, options: o)
    #expect(gm.width == 64 && gm.height == 64)
    var rgb = [UInt8](repeating: 0, count: 128 * 128 * 3)
    for i in 0..<(128 * 128) {
        for c in 0..<3 {
            rgb[i * 3 + c] = UInt8(min(255, (pow(Double(sdr.pixels[c * 128 * 128 + i]), 1 / 2.2) * 255).rounded()))
        }
    }
    let base = try heifEncode(width: 128, height: 128, channels: 3, samples: rgb, in: dir, name: "base")
    let map = try heifEncode(width: 64, height: 64, channels: 1, samples: gm.quantized, in: dir, name: "map")

    var b = HEIFBuilder()
    let baseID = b.addCodedImage(
        properties: [
            (base.config, true), (.ispe(width: base.width, height: base.height), false),
            (.pixi(bitsPerChannel: [8, 8, 8]), false),
            (
                .colrNCLX(
                    NCLX(colourPrimaries: 1, transferCharacteristics: 13, matrixCoefficients: 6, fullRange: true)),
                false
            ),
        ], data: base.data)
    b.setPrimary(baseID)
    let written = try GainMapWriter.add(
        to: &b, baseItemID: baseID,
        gainMap: CodedGainMapImage(
            codecConfiguration: map.config, data: map.data, width: map.width, height: map.height,
            bitsPerChannel: map.chroma == 0 ? [8] : [8, 8, 8]),
        metadata: gm.metadata,
        alternate: AlternateRendition(contentLightLevel: (maxCLL: 1600, maxPALL: 200)))
    let bytes = b.build()
    let out = dir.appendingPathComponent("out.heic")
    try Data(bytes).write(to: out)

    // libheif 1.15 opens it and still sees one primary image.
    let (rc, info) = try run("heif-info", [out.path])
    #expect(rc == 0, "heif-info: \(info)")
    #expect(info.contains("image: 128x128 (id=\(baseID)), primary"), "\(info)")
    #expect(info.contains("tmap"), "brand missing from heif-info: \(info)")
    _ = try HeifDecoder.decodePrimary(bytes, format: .rgb8)

    // Our parser: no container errors; our completeness check: every part passes, data decoded.
    let f = HEIFFile(bytes: bytes)
    #expect(!f.hasErrors, "\(f.findings)")
    let ins = GainMapInspector.inspect(f, decode: heifCodecPlane)
    #expect(ins.findings.isEmpty)
    let r = try #require(ins.reports.first)
    #expect(ins.reports.count == 1)
    #expect(r.forms == [.iso21496, .appleAux])
    #expect(
        r.baseItemID == baseID && r.gainMapItemID == written.gainMapItemID && r.toneMapItemID == written.toneMapItemID)
    for p in r.parts {
        #expect(p.verdict == .pass, "\(p.part): \(p.findings) \(p.evidence)")
    }
    #expect(r.part(.data).evidence.contains { $0.hasPrefix("decoded 64x64") })
    // The tmap body decodes back to the same fractions.
    #expect(r.isoMetadata == gm.metadata)
    #expect(f.payload(of: written.toneMapItemID) == (try ToneMapImage(metadata: gm.metadata).encoded()))
    // compute → quantise → HEVC encode (heif-enc) → decode (libheif) → apply: the HDR rendition comes back.
    let standalone = try #require(f.standaloneFile(for: written.gainMapItemID))
    let plane = try #require(try heifCodecPlane(standalone))
    #expect(plane.width == 64 && plane.height == 64)
    let decodedMap = GainMapMath.dequantize(
        plane.samples.map { UInt8(min($0, 255)) }, width: 64, height: 64, channels: 1)
    let viaHEVC = try GainMapMath.apply(
        base: sdr, gainMap: decodedMap, metadata: try #require(r.isoMetadata),
        displayHeadroom: gm.metadata.alternateHdrHeadroom.doubleValue)
    let direct = try GainMapMath.apply(
        base: sdr, gainMap: gm.dequantized(), metadata: gm.metadata,
        displayHeadroom: gm.metadata.alternateHdrHeadroom.doubleValue)
    let eHEVC = try #require(GainMapMath.errorInStops(reference: hdr, candidate: viaHEVC))
    let eDirect = try #require(GainMapMath.errorInStops(reference: hdr, candidate: direct))
    print(
        "one-channel half-res map, 128x128: without codec max \(eDirect.max) mean \(eDirect.mean) stops; through HEVC q95 max \(eHEVC.max) mean \(eHEVC.mean) stops"
    )
    #expect(eHEVC.max < 0.25 && eHEVC.mean < 0.06, "\(eHEVC)")
    #expect(eHEVC.mean < eDirect.mean + 0.02, "HEVC adds too much: \(eHEVC) vs \(eDirect)")

    // Apple view: XMP on the gain map with version and the headroom 2^Ha.
    #expect(r.appleXMP?.version == 131072)
    #expect(abs(log2(r.appleXMP!.headroom!) - gm.metadata.alternateHdrHeadroom.doubleValue) < 1e-5)

    // exiftool (the oracle) reads the same Apple view and the brand.
    let (erc, ejson) = try run("exiftool", ["-j", "-n", "-G1", "-a", out.path])
    #expect(erc == 0, "\(ejson)")
    let ex = try #require((try JSONSerialization.jsonObject(with: Data(ejson.utf8)) as? [[String: Any]])?.first)
    #expect((ex["XMP-HDRGainMap:HDRGainMapVersion"] as? NSNumber)?.uint32Value == r.appleXMP?.version)
    #expect((ex["XMP-HDRGainMap:HDRGainMapHeadroom"] as? NSNumber)?.doubleValue == r.appleXMP?.headroom)
    #expect(ex["QuickTime:AuxiliaryImageType"] as? String == AppleGainMap.auxiliaryURN)
    #expect((ex["QuickTime:CompatibleBrands"] as? [String])?.contains("tmap") == true)

    // Structure: single-target references only, one dimg, altr [tmap, base] with a fresh id, brand.
    #expect(f.references.allSatisfy { $0.type == "dimg" || $0.to.count == 1 })
    #expect(f.references(from: written.toneMapItemID, type: "dimg").map(\.to) == [[baseID, written.gainMapItemID]])
    #expect(f.references(from: written.gainMapItemID, type: "auxl").map(\.to) == [[baseID]])
    #expect(f.metadataItems(describing: written.toneMapItemID).isEmpty)
    let g = try #require(f.groups.first { $0.type == "altr" })
    #expect(g.entities == [written.toneMapItemID, baseID])
    #expect(f.item(g.id) == nil)
    #expect(f.brands?.compatible.contains("tmap") == true)
    #expect(f.item(written.gainMapItemID)?.hidden == true)
    #expect(f.imageSize(of: written.toneMapItemID)! == f.imageSize(of: baseID)!)
    if case .clli(let a, let p)? = f.property("clli", of: written.toneMapItemID) {
        #expect(a == 1600 && p == 200)
    } else {
        Issue.record("no clli on the tmap")
    }
}

@Test func writerRefusesInvalidMetadataAndAddsNothing() throws {
    var b = HEIFBuilder()
    let base = b.addCodedImage(properties: [(.ispe(width: 8, height: 8), false)], data: [0, 0, 0, 1, 0])
    b.setPrimary(base)
    var m = oneChannelMeta(min: Fraction(0, 1), max: Fraction(2, 1))
    m.channels[0].gamma = UFraction(0, 1)
    let img = CodedGainMapImage(
        codecConfiguration: .unknown(type: "hvcC", body: [1]), data: [1], width: 4, height: 4)
    #expect(throws: GainMapError.self) { try GainMapWriter.add(to: &b, baseItemID: base, gainMap: img, metadata: m) }
    #expect(b.entries.count == 1 && b.references.isEmpty && b.groups.isEmpty && !b.brands.contains("tmap"))
    // An unknown base is refused too.
    let ok = oneChannelMeta(min: Fraction(0, 1), max: Fraction(2, 1))
    #expect(throws: GainMapError.self) { try GainMapWriter.add(to: &b, baseItemID: 99, gainMap: img, metadata: ok) }
}
