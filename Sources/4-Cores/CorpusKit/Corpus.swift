import ColorScience
import Digest
import Findings
import Foundation
import HEIF

/// One generated corpus file: how it is made, what it exercises and what the audit of its conversion must say.
public struct CorpusRecipe: Sendable, Equatable {
    /// Path relative to the corpus folder.
    public var file: String
    public var recipe: String
    public var seed: UInt64
    public var exercises: String
    /// What auditing a faithful conversion of this file must report.
    public var expectedAudit: String
    public var spec: DNGSpec
    public var width: Int
    public var height: Int
    /// Stops above diffuse white of the highlight; nil for no highlight above white.
    public var highlightStops: Double?
    /// Generated on demand into `large/`, never committed.
    public var large: Bool

    /// The chart this recipe renders (display size).
    public var chart: Chart { Chart(width: width, height: height, highlightStops: highlightStops) }
    /// The chart's truth.
    public var truth: ChartTruth { chart.truth }

    /// Renders and writes the DNG bytes.
    public func dngBytes() -> [UInt8] { DNGWriter.write(scene: chart, spec: spec) }
}

/// The corpus: recipes, generation, the MANIFEST.
public enum Corpus {
    /// Display size of the committed (tiny) files.
    public static let tinyWidth = 256, tinyHeight = 192
    /// The DNG converted to make `heic/good.heic`.
    public static let goodHEICSource = "dng/chart-rggb-12bit-o1.dng"
    /// Stops above diffuse white of the charts' highlight patch.
    public static let highlightStops = 3.0

    /// Finding codes the auditor raises, with the mutation that must trigger each (see `Mutator`).
    public static let findingCodes: [(code: String, meaning: String)] = [
        (
            FindingCode.gainmapMissing.rawValue,
            "the source has highlights above SDR white but the output has no gain map"
        ),
        (
            FindingCode.gainmapAppleXmpMissing.rawValue,
            "an Apple hdrgainmap auxiliary image without its XMP (HDRGainMapVersion)"
        ),
        (
            FindingCode.gainmapTmapColrMissing.rawValue,
            "a tmap derived item without the colr describing the alternate rendition"
        ),
        (FindingCode.gainmapDataMissing.rawValue, "the gain-map item has no data in iloc (no extents or zero length)"),
        (FindingCode.metadataLost.rawValue, "a field of the source is absent from the output (GPS removed)"),
        (FindingCode.metadataChanged.rawValue, "a field differs between source and output (DateTimeOriginal changed)"),
        (
            FindingCode.orientationDoubleRotation.rawValue,
            "the pixels are rotated and the Exif Orientation still asks for a rotation"
        ),
        (FindingCode.signallingNclxMissing.rawValue, "an HDR output whose primary image has no nclx colr"),
        (FindingCode.containerTruncated.rawValue, "the file ends inside a box (mdat cut short)"),
        (FindingCode.outputMissing.rawValue, "a source has no output at all"),
    ]

    /// The committed recipes: every CFA pattern with two bit depths, every orientation, a big-endian file, a
    /// linear (ProRAW-like) DNG, a chart with nothing above white, a file without GPS/XMP/MakerNote, and two
    /// odd-sized charts (`oddSized`).
    public static let tiny: [CorpusRecipe] = {
        var r: [CorpusRecipe] = []
        // (pattern, bits, orientation, big-endian)
        let bayer: [(CFAPattern, Int, Int, Bool)] = [
            (.rggb, 12, 1, false), (.bggr, 14, 2, false), (.grbg, 16, 3, false), (.gbrg, 12, 4, false),
            (.rggb, 14, 5, false), (.bggr, 16, 6, true), (.grbg, 12, 7, false), (.gbrg, 14, 8, false),
            (.rggb, 16, 1, false), (.bggr, 12, 1, false), (.grbg, 14, 1, false), (.gbrg, 16, 1, false),
        ]
        for (i, (p, bits, o, be)) in bayer.enumerated() {
            let seed = UInt64(100 + i)
            let name = "dng/chart-\(p.rawValue.lowercased())-\(bits)bit-o\(o)\(be ? "-mm" : "").dng"
            let spec = DNGSpec(
                layout: .bayer(p), bitsPerSample: bits, noiseSigma: 0.5, seed: seed, orientation: o, bigEndian: be)
            r.append(
                CorpusRecipe(
                    file: name, recipe: "chart bayer \(p.rawValue) \(bits)-bit orientation \(o)\(be ? " MM" : " II")",
                    seed: seed,
                    exercises: "Bayer \(p.rawValue) CFA, \(bits == 16 ? "16-bit shorts" : "\(bits)-bit packed"), "
                        + "Exif Orientation \(o)\(be ? ", big-endian TIFF" : ""), full Exif/GPS/XMP/MakerNote, "
                        + "highlight \(Int(highlightStops)) stops above white",
                    expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                    spec: spec, width: tinyWidth, height: tinyHeight, highlightStops: highlightStops, large: false))
        }
        let linSpec = DNGSpec(
            layout: .linear, bitsPerSample: 16, noiseSigma: 0.5, seed: 200, orientation: 6, camera: .syntheticLinear)
        r.append(
            CorpusRecipe(
                file: "dng/linear-16bit-o6.dng", recipe: "chart LinearRaw 3×16-bit orientation 6", seed: 200,
                exercises: "LinearRaw (PhotometricInterpretation 34892, like iPhone ProRAW), Orientation 6, "
                    + "full Exif/GPS/XMP/MakerNote, highlight \(Int(highlightStops)) stops above white",
                expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                spec: linSpec, width: tinyWidth, height: tinyHeight, highlightStops: highlightStops, large: false))
        let sdrSpec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, noiseSigma: 0.5, seed: 300, orientation: 1)
        r.append(
            CorpusRecipe(
                file: "dng/chart-sdr-rggb-14bit-o1.dng", recipe: "chart bayer RGGB 14-bit, nothing above white",
                seed: 300,
                exercises: "no scene value above diffuse white: a converter must NOT add a gain map",
                expectedAudit: "clean; no gain map; upright chart",
                spec: sdrSpec, width: tinyWidth, height: tinyHeight, highlightStops: nil, large: false))
        for (layout, bits, o, seed, name) in [
            (DNGLayout.bayer(.rggb), 14, 1, UInt64(600), "dng/chart-rggb-14bit-ljpeg-o1.dng"),
            (DNGLayout.bayer(.gbrg), 12, 3, UInt64(601), "dng/chart-gbrg-12bit-ljpeg-o3.dng"),
            (DNGLayout.linear, 16, 1, UInt64(602), "dng/linear-16bit-ljpeg-o1.dng"),
        ] {
            let spec = DNGSpec(
                layout: layout, bitsPerSample: bits, noiseSigma: 0.5, seed: seed, orientation: o,
                camera: layout == .linear ? .syntheticLinear : .synthetic, losslessJPEG: true)
            r.append(
                CorpusRecipe(
                    file: name, recipe: "chart \(layout.name) \(bits)-bit lossless JPEG orientation \(o)", seed: seed,
                    exercises: "Compression 7 (lossless Huffman JPEG, predictor 1) \(layout.name) \(bits)-bit, "
                        + "Orientation \(o), full Exif/GPS/XMP/MakerNote",
                    expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                    spec: spec, width: tinyWidth, height: tinyHeight, highlightStops: highlightStops, large: false))
        }
        let maskedSpec = DNGSpec(
            layout: .bayer(.bggr), bitsPerSample: 14, noiseSigma: 0.5, seed: 700, orientation: 6, maskedTop: 8,
            maskedLeft: 16)
        r.append(
            CorpusRecipe(
                file: "dng/chart-bggr-14bit-masked-o6.dng",
                recipe: "chart bayer BGGR 14-bit, masked border, orientation 6",
                seed: 700,
                exercises: "ActiveArea smaller than the sensor (8 masked rows, 16 masked columns, MaskedAreas): "
                    + "the border must be cropped away; Orientation 6",
                expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                spec: maskedSpec, width: tinyWidth, height: tinyHeight, highlightStops: highlightStops, large: false))
        var bare = CaptureMetadata.standard
        bare.gps = nil
        bare.xmp = nil
        bare.makerNote = false
        let bareSpec = DNGSpec(
            layout: .bayer(.grbg), bitsPerSample: 12, noiseSigma: 0.5, seed: 400, orientation: 8, capture: bare)
        r.append(
            CorpusRecipe(
                file: "dng/chart-nogps-grbg-12bit-o8.dng", recipe: "chart bayer GRBG 12-bit, no GPS/XMP/MakerNote",
                seed: 400,
                exercises: "a source without GPS, XMP or MakerNote: their absence in the output is not a loss",
                expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                spec: bareSpec, width: tinyWidth, height: tinyHeight, highlightStops: highlightStops, large: false))
        return r + oddSized
    }()

    /// Benchmark recipes (generated on demand into `large/`, git-ignored): 24 MP and 50 MP RGGB 14-bit, each stored
    /// uncompressed (the benchmark's input) and as lossless JPEG (Compression 7) with the same seed, so the same
    /// scene and noise: the losslessly compressed RAW that the benchmark's size goal (docs/bench.md) measures the
    /// output against.
    public static let large: [CorpusRecipe] = [
        (6000, 4000, "large/chart-24mp-rggb-14bit", UInt64(500)),
        (8640, 5760, "large/chart-50mp-rggb-14bit", UInt64(501)),
    ].flatMap { w, h, stem, seed in
        [false, true].map { lossless in
            CorpusRecipe(
                file: stem + (lossless ? "-ljpeg-o1.dng" : "-o1.dng"),
                recipe: "chart bayer RGGB 14-bit \(w)×\(h)" + (lossless ? " lossless JPEG" : ""), seed: seed,
                exercises: "benchmark size (\((w * h + 500_000) / 1_000_000) MP)"
                    + (lossless ? "; the same scene losslessly compressed (Compression 7)" : ""),
                expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
                spec: DNGSpec(
                    layout: .bayer(.rggb), bitsPerSample: 14, noiseSigma: 2, seed: seed, orientation: 1,
                    losslessJPEG: lossless),
                width: w, height: h, highlightStops: highlightStops, large: true)
        }
    }

    /// Writes the recipes' files and the MANIFEST into `folder`.
    /// - Parameters:
    ///   - folder: the corpus folder (created when missing).
    ///   - includeLarge: also write the benchmark sizes into `folder/large/`: `large` and `noisyLarge`.
    ///   - goodHEIC: a good HEIC (normally the Converter's output for `goodHEICSource`): written as
    ///     `heic/good.heic` with its mutations in `heic/mutations/` (see `Mutator`). The CorpusKit layer cannot
    ///     encode HEVC, so the caller supplies it; the tests pass the committed one back in.
    ///   - tenBitHEIC: a 10-bit SDR conversion of the same source; with `goodHEIC`, the conformance cases
    ///     (`ConformanceCases`) go to `heic/conformance/`.
    ///   - progress: called with each file written (the DNGs from several threads, in no fixed order).
    /// - Returns: the manifest rows written.
    /// - Throws: file-system errors.
    @discardableResult
    public static func generate(
        into folder: URL, includeLarge: Bool = false, goodHEIC: [UInt8]? = nil, tenBitHEIC: [UInt8]? = nil,
        progress: @Sendable (String) -> Void = { _ in }
    ) throws -> [ManifestEntry] {
        let fm = FileManager.default
        var rows: [ManifestEntry] = []
        let recipes = tiny + (includeLarge ? large + noisyLarge : [])
        for r in recipes {
            let dir = folder.appendingPathComponent(r.file).deletingLastPathComponent()
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        // Each recipe is its own bytes and its own file: as many at once as there are cores (the large ones are a
        // minute of one core otherwise). The manifest keeps the recipes' order.
        var digests = [Result<String, any Error>](repeating: .success(""), count: recipes.count)
        digests.withUnsafeMutableBufferPointer { buffer in
            let out = UnsafeSendable(buffer)  // each iteration writes its own element
            Parallel.forEach(recipes.count) { i in
                let r = recipes[i]
                out.value[i] = Result {
                    let bytes = r.dngBytes()
                    try Data(bytes).write(to: folder.appendingPathComponent(r.file))
                    progress(r.file)
                    return r.large ? "" : SHA256.hex(bytes)  // the large files are not in the manifest
                }
            }
        }
        for (r, digest) in zip(recipes, digests) {
            let sha256 = try digest.get()
            if r.large { continue }
            rows.append(
                ManifestEntry(
                    file: r.file, recipe: r.recipe, seed: r.seed, exercises: r.exercises,
                    expectedAudit: r.expectedAudit, sha256: sha256))
        }
        for (name, hs) in [("truth/chart-hdr.json", Optional(highlightStops)), ("truth/chart-sdr.json", nil)] {
            let url = folder.appendingPathComponent(name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let bytes = truthJSON(Chart.truth(highlightStops: hs))
            try Data(bytes).write(to: url)
            rows.append(
                ManifestEntry(
                    file: name, recipe: "chart truth", seed: 0,
                    exercises: "patch positions and linear values, arrow geometry, highlight stops",
                    expectedAudit: "-", sha256: SHA256.hex(bytes)))
        }
        if let converted = goodHEIC {
            // Idempotent: regenerating from the committed good.heic (which has its metadata) gives the same bytes.
            let (good, _) = completeMetadata(converted, spec: tiny.first { $0.file == goodHEICSource }!.spec)
            let dir = folder.appendingPathComponent("heic")
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(good).write(to: dir.appendingPathComponent("good.heic"))
            progress("heic/good.heic")
            rows.append(
                ManifestEntry(
                    file: "heic/good.heic",
                    recipe: "Converter output of \(goodHEICSource); Exif/XMP added from the recipe if it had none",
                    seed: 0,
                    exercises: "a faithful HEIC with gain map (tmap + Apple aux), Exif with GPS, XMP; mutation input",
                    expectedAudit: "clean", sha256: SHA256.hex(good)))
            let mdir = dir.appendingPathComponent("mutations")
            if fm.fileExists(atPath: mdir.path) { try fm.removeItem(at: mdir) }
            for m in try Mutator.writeAll(from: good, into: mdir) {
                let file = m.file.map { "heic/mutations/\($0)" } ?? "heic/mutations/(none: \(m.code))"
                if m.file != nil { progress(file) }
                rows.append(
                    ManifestEntry(
                        file: file, recipe: "mutation of heic/good.heic", seed: 0, exercises: m.note,
                        expectedAudit: m.sha256 == nil && m.note.hasPrefix("skipped") ? "skipped" : m.code,
                        sha256: m.sha256 ?? "-"))
            }
            if let tenBitHEIC {
                rows += try writeConformanceCases(good: good, tenBit: tenBitHEIC, into: folder, progress: progress)
            }
        }
        rows += try JPEGGainMapCorpus.write(into: folder, progress: progress)
        let manifest = manifestText(rows.sorted { $0.file < $1.file })
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("MANIFEST"))
        return rows
    }

    /// A good HEIC with the source's metadata: when the primary has no Exif (or no XMP) item, adds one built from
    /// `spec` the way a faithful converter writes it (IFD0 Make/Model/Orientation 1 …, the Exif IFD with the
    /// MakerNote, the GPS IFD; the XMP packet), so the mutations that edit Exif have something to edit.
    /// - Returns: the bytes and what was added ("" when nothing).
    public static func completeMetadata(_ heic: [UInt8], spec: DNGSpec) -> ([UInt8], String) {
        let file = HEIFFile(bytes: heic)
        guard let primary = file.primaryItemID else { return (heic, "") }
        let meta = file.metadataItems(describing: primary)
        var b = HEIFBuilder(file: file)
        var added: [String] = []
        if !meta.contains(where: { file.item($0)?.isExif == true }) {
            b.addExif(tiff: exifTIFF(spec), describing: [primary])
            added.append("Exif")
        }
        if let xmp = spec.capture.xmp, !meta.contains(where: { file.item($0)?.isXMP == true }) {
            b.addXMP(Array(xmp.packet.utf8), describing: [primary])
            added.append("XMP")
        }
        return added.isEmpty ? (heic, "") : (b.build(), added.joined(separator: "+"))
    }

    /// The Exif TIFF blob a converter writes for a DNG of `spec` (orientation applied to the pixels, so 1).
    public static func exifTIFF(_ spec: DNGSpec) -> [UInt8] {
        var ifd0 = TIFFIFD()
        ifd0[271] = .ascii(spec.camera.make)
        ifd0[272] = .ascii(spec.camera.model)
        ifd0[274] = .shorts([1])
        ifd0[305] = .ascii("Readback CorpusKit 1")
        ifd0[306] = .ascii(spec.capture.dateTimeOriginal)
        ifd0[315] = .ascii(spec.capture.artist)
        ifd0[33432] = .ascii(spec.capture.copyright)
        if let x = spec.capture.xmp { ifd0[270] = .ascii(x.caption) }
        ifd0[34665] = .ifd(DNGWriter.exifIFD(spec))
        if let g = spec.capture.gps { ifd0[34853] = .ifd(DNGWriter.gpsIFD(g)) }
        return TIFFWriter.serialize(ifd0, order: .little)
    }

    /// The chart truth as stable JSON (sorted keys).
    public static func truthJSON(_ t: ChartTruth) -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted]
        return Array((try? enc.encode(t)) ?? Data()) + [0x0A]
    }

    /// The MANIFEST: comment lines documenting columns and finding codes, a header row, then one TSV row per file.
    public static func manifestText(_ rows: [ManifestEntry]) -> String {
        var lines = [
            "# Readback generated corpus. Written by `readback corpus generate` (make corpus); do not edit by hand.",
            "# Columns: file, recipe, seed, what it exercises, what auditing a faithful conversion (or, for a",
            "# mutation, the mutated file) must report, sha256 of the file.",
            "# Scene units: linear sRGB, 1.0 = diffuse white; raw diffuse white is 4 stops below the white level",
            "# (BaselineExposure +2.5: a renderer putting the clip 1.5 + BaselineExposure stops above white gets 1.0). Truth: truth/chart-hdr.json, truth/chart-sdr.json.",
            "# Finding codes the mutations must raise:",
        ]
        for (code, meaning) in findingCodes { lines.append("#   \(code)\t\(meaning)") }
        lines.append(["file", "recipe", "seed", "exercises", "expected_audit", "sha256"].joined(separator: "\t"))
        for r in rows {
            lines.append(
                [r.file, r.recipe, String(r.seed), r.exercises, r.expectedAudit, r.sha256].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses MANIFEST rows (comment and header lines skipped).
    public static func parseManifest(_ text: String) -> [ManifestEntry] {
        text.split(separator: "\n").compactMap { line -> ManifestEntry? in
            if line.hasPrefix("#") || line.hasPrefix("file\t") { return nil }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 6, let seed = UInt64(f[2]) else { return nil }
            return ManifestEntry(
                file: f[0], recipe: f[1], seed: seed, exercises: f[3], expectedAudit: f[4], sha256: f[5])
        }
    }
}

/// One MANIFEST row.
public struct ManifestEntry: Sendable, Equatable {
    public var file: String
    public var recipe: String
    public var seed: UInt64
    public var exercises: String
    public var expectedAudit: String
    public var sha256: String

    public init(file: String, recipe: String, seed: UInt64, exercises: String, expectedAudit: String, sha256: String) {
        self.file = file
        self.recipe = recipe
        self.seed = seed
        self.exercises = exercises
        self.expectedAudit = expectedAudit
        self.sha256 = sha256
    }
}
