import CorpusKit
import Foundation
import HeifCodec
import JXLCodec
import TestSupport
import Testing

/// DNG 1.7 files whose raw data is JPEG XL (lossless and lossy; CFA and linear), generated here as twins of
/// uncompressed DNGs, convert clean through the built binary (decoded in the decoder workers), and their audit reads
/// them as sources. A lossless file's HEIC is the same picture as its uncompressed twin's.
@Test func jpegXLDNGsConvertCleanAndAuditAsSources() throws {
    let dir = Repo.temporaryDirectory("jxl-dng")
    defer { try? FileManager.default.removeItem(at: dir) }
    func run(_ args: [String]) throws -> (code: Int32, out: String, err: String) {
        try BuiltReadback.run(args, home: dir)
    }
    let src = dir.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    let cases: [(String, DNGLayout, Float?, Bool)] = [
        ("cfa-lossless", .bayer(.rggb), nil, false), ("cfa-lossy", .bayer(.grbg), 0.5, true),
        ("linear-lossless", .linear, nil, false), ("linear-lossy", .linear, 1.0, false),
    ]
    for (i, (name, layout, distance, interleaved)) in cases.enumerated() {
        let spec = DNGSpec(
            layout: layout, bitsPerSample: 14, noiseSigma: 1, seed: 90 + UInt64(i), orientation: 1 + 5 * (i % 2),
            camera: layout == .linear ? .syntheticLinear : .synthetic)
        let twin = DNGWriter.write(scene: Chart(width: 384, height: 256, highlightStops: 2), spec: spec)
        let tiling = JXLTiling(tileWidth: 128, tileHeight: 128, interleaved: interleaved) { s, w, h, c, bits in
            try JXL.encode(
                s, width: w, height: h, channels: c, bits: bits,
                options: JXLEncodeOptions(distance: distance, container: i == 2, effort: 1))
        }
        try Data(DNGJXL.compress(uncompressedDNG: twin, tiling: tiling)).write(
            to: src.appendingPathComponent("\(name).dng"))
        if distance == nil {
            let twins = dir.appendingPathComponent("twins")
            try FileManager.default.createDirectory(at: twins, withIntermediateDirectories: true)
            try Data(twin).write(to: twins.appendingPathComponent("\(name).dng"))
        }
    }
    let out = dir.appendingPathComponent("out")
    let r = try run(["convert", src.path, "--out", out.path, "--json"])
    #expect(r.code == 0, "\(r.out)\(r.err)")
    let items = r.out.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(items.filter { $0["verdict"] as? String == "clean" }.count == 4, "\(r.out)")
    for (name, _, _, _) in cases {
        let reports = dir.appendingPathComponent("report-\(name)")
        let audit = try run([
            "audit", src.appendingPathComponent("\(name).dng").path, out.appendingPathComponent("\(name).heic").path,
            "--report", reports.path, "--no-history",
        ])
        #expect(audit.code == 0, "\(name): \(audit.out)\(audit.err)")
        let report = try String(contentsOf: reports.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(!report.contains("metadata.unreadable") && !report.contains("decode."), "\(name): \(report)")
    }
    // `readback inspect` says what the file is and that its raw data reads.
    let inspect = try run(["inspect", src.appendingPathComponent("cfa-lossless.dng").path])
    #expect(inspect.code == 0, "\(inspect.out)\(inspect.err)")
    #expect(inspect.out.contains("format: DNG 1.7.0.0, JPEG XL raw data"), "\(inspect.out)")
    #expect(inspect.out.contains("raw data: 384×256 visible"), "\(inspect.out)")
    // The lossless files' outputs against their uncompressed twins' outputs: the same pixels, so the same HEVC.
    let twinOut = dir.appendingPathComponent("twin-out")
    let t = try run(["convert", dir.appendingPathComponent("twins").path, "--out", twinOut.path])
    #expect(t.code == 0, "\(t.out)\(t.err)")
    for name in ["cfa-lossless", "linear-lossless"] {
        let a = try HeifDecoder.decodePrimary(file: out.appendingPathComponent("\(name).heic"))
        let b = try HeifDecoder.decodePrimary(file: twinOut.appendingPathComponent("\(name).heic"))
        #expect(
            a.width == 384 && a.height == 256 || a.width == 256 && a.height == 384, "\(name): \(a.width)×\(a.height)")
        #expect(a.samples == b.samples, "\(name): the JPEG XL file's picture differs from its uncompressed twin's")
    }
}

/// A DNG 1.7 whose only preview is JPEG XL (IFD0's RGB image, one JPEG XL strip): the audit's render check finds it
/// (decoded with libjxl in a worker) and compares the output with it, so there is a reference and nothing is off.
@Test func aJPEGXLPreviewIsTheRenderChecksReference() throws {
    let dir = Repo.temporaryDirectory("jxl-preview")
    defer { try? FileManager.default.removeItem(at: dir) }
    func run(_ args: [String]) throws -> (code: Int32, out: String, err: String) {
        try BuiltReadback.run(args, home: dir)
    }
    let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, noiseSigma: 1, seed: 97, orientation: 1)
    let twin = DNGWriter.write(scene: Chart(width: 768, height: 512, highlightStops: nil), spec: spec)
    var tiling = JXLTiling(tileWidth: 256, tileHeight: 256) { s, w, h, c, bits in
        try JXL.encode(s, width: w, height: h, channels: c, bits: bits, options: JXLEncodeOptions(effort: 1))
    }
    tiling.previewAsJPEGXL = true
    let src = dir.appendingPathComponent("preview.dng")
    try Data(DNGJXL.compress(uncompressedDNG: twin, tiling: tiling)).write(to: src)
    let out = dir.appendingPathComponent("out")
    let r = try run(["convert", src.path, "--out", out.path])
    #expect(r.code == 0, "\(r.out)\(r.err)")
    let reports = dir.appendingPathComponent("report")
    let audit = try run([
        "audit", src.path, out.appendingPathComponent("preview.heic").path, "--report", reports.path, "--no-history",
    ])
    #expect(audit.code == 0, "\(audit.out)\(audit.err)")
    let report = try String(contentsOf: reports.appendingPathComponent("report.json"), encoding: .utf8)
    #expect(!report.contains("render.no-reference") && !report.contains("\"render."), "\(report)")
}
