import Foundation
import TestSupport
import Testing

@testable import CorpusKit

/// LibRaw (`dcraw_emu`, an independent decoder) reads every committed DNG and its decode matches the chart truth.
///
/// Decode: `dcraw_emu -w -4 -o 0` (camera white balance = AsShotNeutral, linear 16-bit, camera colour space; the
/// synthetic camera's colour is linear sRGB, so no matrix applies). LibRaw scales the white level to 65535, and
/// diffuse white sits `headroomStops` (4) below it, so scene value = sample / 65535 · 2^4.
///
/// Tolerance (stated): the mean of each patch's middle half must be within 2 % of the truth plus 0.005
/// (scene units, 1.0 = diffuse white) per channel. Measured worst case over the committed DNGs ≈ 0.6 % (12-bit,
/// read noise 0.5 code, LinearRaw ≈ 0.4 % low).
@Test(arguments: Corpus.tiny.map(\.file))
func libRawDecodeMatchesChartTruth(_ file: String) throws {
    let recipe = try #require(Corpus.tiny.first { $0.file == file })
    let path = corpusRoot.appendingPathComponent(file).path
    let ppm = try runTool("/usr/bin/dcraw_emu", ["-w", "-4", "-o", "0", "-Z", "-", path])
    let img = try #require(readPPM16(ppm, scale: pow(2, recipe.spec.headroomStops)), "dcraw_emu gave no 16-bit PPM")
    // LibRaw applies the Exif orientation: the decode is in display orientation.
    #expect(img.width == recipe.width && img.height == recipe.height)
    let truth = recipe.truth
    for p in truth.patches + [truth.marker] {
        let got = img.mean(of: p.rect)
        for (g, t, ch) in [(got.r, p.linear.r, "R"), (got.g, p.linear.g, "G"), (got.b, p.linear.b, "B")] {
            #expect(abs(g - t) <= 0.02 * t + 0.005, "\(file) \(p.name) \(ch): decoded \(g), truth \(t)")
        }
    }
    // Gradient: five samples along the ramp.
    let gr = truth.gradient.rect
    for k in 1...5 {
        let f = Double(k) / 6
        let x = gr.x0 + f * (gr.x1 - gr.x0)
        let got = img.mean(of: NormRect(x - 0.01, gr.y0, x + 0.01, gr.y1))
        let t = truth.gradient.from + f * (truth.gradient.to - truth.gradient.from)
        #expect(abs(got.g - t) <= 0.02 * t + 0.01, "\(file) gradient at \(f): decoded \(got.g), truth \(t)")
    }
    // The highlight keeps its stops above white (HDR headroom survives the decode).
    if let stops = truth.highlightStops {
        let white = img.mean(of: try #require(truth.patch("diffuse-white")).rect).g
        let hi = img.mean(of: try #require(truth.patch("highlight")).rect).g
        #expect(abs(log2(hi / white) - stops) < 0.02, "\(file): highlight is \(log2(hi / white)) stops above white")
    } else {
        // Demosaicing overshoots at a few edge pixels; the 99.9th percentile must not be above white.
        let sorted = img.pixels.sorted()
        let p999 = sorted[sorted.count * 999 / 1000]
        #expect(p999 <= 1.01, "\(file): 99.9th percentile \(p999) is above white")
    }
    let pose = try #require(ChartPose.detect(in: img), "\(file): arrow or marker not found")
    #expect(pose.isUpright, "\(file): \(pose)")
}

/// Lossless JPEG is lossless: LibRaw decodes each Compression-7 DNG to exactly the same pixels as the same recipe
/// written uncompressed.
@Test(arguments: Corpus.tiny.filter(\.spec.losslessJPEG).map(\.file))
func losslessJPEGDecodesIdenticallyToUncompressed(_ file: String) throws {
    let recipe = try #require(Corpus.tiny.first { $0.file == file })
    var plain = recipe
    plain.spec.losslessJPEG = false
    let tmp = Repo.temporaryDirectory("ljpeg")
    defer { try? FileManager.default.removeItem(at: tmp) }
    let url = tmp.appendingPathComponent("plain.dng")
    try Data(plain.dngBytes()).write(to: url)
    let a = try runTool(
        "/usr/bin/dcraw_emu", ["-w", "-4", "-o", "0", "-Z", "-", corpusRoot.appendingPathComponent(file).path])
    let b = try runTool("/usr/bin/dcraw_emu", ["-w", "-4", "-o", "0", "-Z", "-", url.path])
    #expect(a.count > 256 * 192 * 6)
    #expect(a == b)
    let compressed = try readBytes(corpusRoot.appendingPathComponent(file))
    #expect(compressed.count < plain.dngBytes().count / 2, "lossless JPEG should at least halve the size")
}

/// Each benchmark chart has a lossless-JPEG twin of the same recipe (so, by the test above, the same pixels), named
/// as `make bench` expects: `…-o1.dng` beside `…-ljpeg-o1.dng`. The bench measures the size goal ("≥ 8× smaller than
/// a losslessly compressed RAW", docs/bench.md) against the twin, so a twin of another scene would make that figure
/// meaningless.
@Test func everyBenchmarkChartHasALosslessTwinOfTheSameScene() throws {
    let plain = Corpus.large.filter { !$0.spec.losslessJPEG }
    #expect(plain.count == 2)
    #expect(Corpus.large.count == 2 * plain.count)
    for p in plain {
        let twinName = p.file.replacingOccurrences(of: "-o1.dng", with: "-ljpeg-o1.dng")
        #expect(twinName != p.file)
        let twin = try #require(Corpus.large.first { $0.file == twinName }, "no lossless twin for \(p.file)")
        #expect(twin.spec.losslessJPEG)
        var same = twin
        same.spec.losslessJPEG = false
        #expect(same.spec == p.spec && same.seed == p.seed && same.width == p.width && same.height == p.height)
        #expect(same.highlightStops == p.highlightStops && twin.large)
    }
}

/// The encoder's Huffman lengths are a valid JPEG table: at most 16 bits and never an all-ones code.
@Test func huffmanLengthsAreValid() {
    for freq in [
        [Int](repeating: 1, count: 17), [1_000_000, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [5] + [Int](repeating: 0, count: 16),
    ] {
        let l = LosslessJPEG.huffmanLengths(freq)
        #expect(l.allSatisfy { $0 <= 16 })
        for s in 0..<17 { #expect((freq[s] > 0) == (l[s] > 0)) }
        // Kraft sum strictly below 1: some code (the all-ones one) is left unused.
        let kraft = l.filter { $0 > 0 }.reduce(0.0) { $0 + 1 / Double(1 << $1) }
        #expect(kraft < 1)
    }
}
