import ColorScience
import Converter
import Foundation
import GainMap
import HEIF
import HeifCodec
import TestSupport
import Testing

/// Converts `source` with the default options and writes `<name>.heic` into `directory` (TestSupport's
/// `writeOutput`): a test's conversion to a file.
func convertToFile(_ source: URL, in directory: URL) throws -> (result: ConversionResult, output: URL) {
    let converted = try HEICConverter.convert(source: source, decoders: .inProcess)
    return (converted.result, try writeOutput(converted.bytes, for: source, in: directory))
}

/// Runs a tool, returns (exit code, stdout+stderr). A missing tool is a failure of the caller's expectation.
func run(_ tool: String, _ args: [String]) -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    do { try p.run() } catch { return (-1, "cannot run \(tool): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// A test scene: a grey ramp background (0.05…0.25 of white), a red bar on the stored left (the visual top after
/// orientation 6), and optionally a highlight disc at the sensor clip.
func scene(highlights: Bool) -> (Int, Int) -> (Double, Double, Double) {
    { x, y in
        if highlights {
            let dx = Double(x - 180)
            let dy = Double(y - 96)
            if dx * dx + dy * dy < 30 * 30 { return (1.0, 1.0, 1.0) }
        }
        if x < 40 { return (0.25, 0.02, 0.02) }
        let v = 0.05 + 0.2 * Double(y) / 191
        return (v, v, v * 0.9)
    }
}

struct Fixture {
    let dir: URL
    let url: URL

    init(_ name: String, options: TestDNG.Options = TestDNG.Options(), highlights: Bool) throws {
        dir = Repo.temporaryDirectory("converter")
        url = dir.appendingPathComponent(name)
        try Data(TestDNG.make(options, scene: scene(highlights: highlights))).write(to: url)
    }

    func cleanup() { try? FileManager.default.removeItem(at: dir) }
}

@Test func bayerRAWWithHighlightsGetsAGainMapInBothForms() throws {
    let f = try Fixture("hl.dng", highlights: true)
    defer { f.cleanup() }
    let out = try HEICConverter.convert(source: f.url, decoders: .inProcess)
    let r = out.result
    #expect(r.inputKind == .mosaicRAW)
    #expect(r.hdr.gainMap, "\(r.hdr.reason)")
    #expect(r.hdr.measuredHeadroomStops > 1.0)
    let gm = try #require(r.gainMap)
    #expect(gm.width == 128 && gm.height == 96)
    #expect(gm.gainMax > 0.5 && gm.gainMax <= 1.6, "gainMax \(gm.gainMax)")

    let file = HEIFFile(bytes: out.bytes)
    #expect(!file.hasErrors, "\(file.findings)")
    #expect(file.brands?.contains("tmap") == true)
    let p = try #require(file.primaryItemID)
    #expect(file.item(p)?.type == "hvc1")
    #expect(file.imageSize(of: p).map { [$0.width, $0.height] } == [256, 192])
    // ISO: tmap with dimg [primary, gain map], altr [tmap, primary].
    let t = try #require(file.toneMapItems.first)
    let inputs = try #require(file.toneMapInputs(of: t))
    #expect(inputs.base == p)
    #expect(file.alternativeGroups(containing: t).first?.entities == [t, p])
    // Apple: the same gain-map item is the aux hdrgainmap image of the primary, with its XMP.
    #expect(file.appleGainMap(of: p) == inputs.gainMap)
    let xmpIDs = file.metadataItems(describing: inputs.gainMap)
    #expect(
        xmpIDs.contains { String(decoding: file.payload(of: $0) ?? [], as: UTF8.self).contains("HDRGainMapHeadroom") })
    // Colour: both an ICC profile and the nclx on the primary.
    let colr = file.colours(of: p)
    #expect(
        colr.contains {
            if case .colrNCLX(let n) = $0 {
                return n.colourPrimaries == 12 && n.transferCharacteristics == 13
            } else {
                return false
            }
        })
    #expect(colr.contains { if case .colrICC = $0 { return true } else { return false } })
    // No transformative property anywhere on the primary.
    #expect(file.orientation(of: p).exif == 1)
    // The gain-map inspector (with libheif decoding the map) finds it complete, in both forms.
    let inspection = GainMapInspector.inspect(file, decode: heifCodecPlane)
    #expect(inspection.reports.count == 1)
    if let rep = inspection.reports.first {
        #expect(rep.isComplete, "\(rep.findings)")
        #expect(Set(rep.forms).count == 2, "\(rep.forms)")
    }
    // The tmap payload decodes and validates.
    let tm = ToneMapImage.decode(file.payload(of: t) ?? [])
    #expect(tm.findings.isEmpty, "\(tm.findings)")
}

@Test func bayerRAWWithoutHighlightsGetsNoGainMap() throws {
    let f = try Fixture("plain.dng", highlights: false)
    defer { f.cleanup() }
    let out = try HEICConverter.convert(source: f.url, decoders: .inProcess)
    #expect(out.result.hdr.gainMap == false, "\(out.result.hdr.reason)")
    #expect(out.result.gainMap == nil)
    let file = HEIFFile(bytes: out.bytes)
    #expect(file.toneMapItems.isEmpty)
    #expect(file.primaryItemID.flatMap { file.appleGainMap(of: $0) } == nil)
    #expect(file.brands?.contains("tmap") == false)
}

@Test func hdrOffNeverWritesAGainMap() throws {
    let f = try Fixture("off.dng", highlights: true)
    defer { f.cleanup() }
    var o = ConvertOptions()
    o.hdr = .off
    let out = try HEICConverter.convert(source: f.url, options: o, decoders: .inProcess)
    #expect(out.result.hdr.gainMap == false)
    #expect(HEIFFile(bytes: out.bytes).toneMapItems.isEmpty)
}

@Test(arguments: [true, false])
func outputOpensWithLibheifTools(linear: Bool) throws {
    var opts = TestDNG.Options()
    opts.bayer = !linear
    let f = try Fixture(linear ? "lin.dng" : "bay.dng", options: opts, highlights: true)
    defer { f.cleanup() }
    let (res, url) = try convertToFile(f.url, in: f.dir)
    #expect(res.inputKind == (linear ? .linearDNG : .mosaicRAW))
    #expect(res.hdr.gainMap)
    let (code, text) = run("heif-info", [url.path])
    #expect(code == 0, "\(text)")
    #expect(text.contains("256x192"), "\(text)")
    let png = f.dir.appendingPathComponent("out.png")
    let (c2, t2) = run("heif-convert", [url.path, png.path])
    #expect(c2 == 0, "\(t2)")
    #expect(FileManager.default.fileExists(atPath: png.path))
    // The primary decodes with libheif and carries our nclx.
    let d = try HeifDecoder.decodePrimary(file: url)
    #expect(d.width == 256 && d.height == 192)
    #expect(d.nclx == .displayP3)
}

@Test func orientation6IsBakedIntoUprightPixels() throws {
    var o = TestDNG.Options()
    o.orientation = 6
    let f = try Fixture("o6.dng", options: o, highlights: false)
    defer { f.cleanup() }
    let out = try HEICConverter.convert(source: f.url, decoders: .inProcess)
    #expect(out.result.width == 192 && out.result.height == 256)
    let file = HEIFFile(bytes: out.bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.property("irot", of: p) == nil)
    #expect(file.property("imir", of: p) == nil)
    let d = try HeifDecoder.decodePrimary(out.bytes)
    #expect(d.width == 192 && d.height == 256)
    func px(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * d.width + x) * 3
        return (Int(d.samples[i]), Int(d.samples[i + 1]), Int(d.samples[i + 2]))
    }
    let top = px(96, 10)
    let bottom = px(96, 245)
    #expect(top.0 > top.1 + 60, "visual top should be the red bar: \(top)")
    #expect(abs(bottom.0 - bottom.1) < 20, "visual bottom should be grey: \(bottom)")
}

/// sRGB transfer inverse (IEC 61966-2-1).
func srgbDecode(_ v: Float) -> Float { SRGBTransfer.decode(v) }

@Test func gainMapAtFullWeightReproducesTheHDRRendition() throws {
    let f = try Fixture("gm.dng", highlights: true)
    defer { f.cleanup() }
    let out = try HEICConverter.convert(source: f.url, decoders: .inProcess)
    let rend = try HEICConverter.renditions(of: f.url, decoders: .inProcess)
    let file = HEIFFile(bytes: out.bytes)
    let t = try #require(file.toneMapItems.first)
    let (_, g) = try #require(file.toneMapInputs(of: t))
    let meta = try #require(ToneMapImage.decode(file.payload(of: t) ?? []).usableMetadata)
    // Decode base (8-bit P3) and gain map (standalone file for the hidden item).
    let base = try HeifDecoder.decodePrimary(out.bytes, format: .rgb8)
    let gmFile = try #require(file.standaloneFile(for: g))
    let gmImg = try HeifDecoder.decodePrimary(gmFile, format: .mono)
    let n = base.width * base.height
    var planar = [Float](repeating: 0, count: n * 3)
    for i in 0..<n { for c in 0..<3 { planar[c * n + i] = srgbDecode(Float(base.samples[3 * i + c]) / 255) } }
    let baseLin = try LinearImage(width: base.width, height: base.height, channels: 3, pixels: planar)
    let gmLin = try LinearImage(
        width: gmImg.width, height: gmImg.height, channels: 1, pixels: gmImg.samples.map { Float($0) / 255 })
    let hdr = try GainMapMath.apply(base: baseLin, gainMap: gmLin, metadata: meta, weight: 1)
    let err = try #require(GainMapMath.errorInStops(reference: rend.hdr, candidate: hdr))
    // And the base alone against the SDR rendition (codec error only), for scale.
    let sdrErr = try #require(GainMapMath.errorInStops(reference: rend.sdr, candidate: baseLin))
    // Measured at the default (q55, aq-strength 1.5): mean 0.018, p99 0.26 stops (8-bit 4:2:0 codec error in
    // near-black channels of the red bar; the base alone against the SDR rendition errs as much), 0.127 stops inside
    // the highlight disc (0.023 at q65: the map is computed from the unencoded SDR rendition, so the base's codec
    // error in the flat highlight carries into the HDR result; 0.15 stops is about 10 % in luminance).
    // Per-sample error in stops (floor 1/64 as in errorInStops), its 99th percentile, and the same inside the
    // highlight disc (where the map does the work).
    var all: [Float] = []
    var disc: [Float] = []
    for c in 0..<3 {
        for y in 0..<base.height {
            for x in 0..<base.width {
                let i = c * n + y * base.width + x
                let e = abs(log2((hdr.pixels[i] + 1 / 64) / (rend.hdr.pixels[i] + 1 / 64)))
                all.append(e)
                let dx = x - 180
                let dy = y - 96
                if dx * dx + dy * dy < 26 * 26 { disc.append(e) }
            }
        }
    }
    all.sort()
    disc.sort()
    let p99 = all[all.count * 99 / 100]
    let discMax = disc.last ?? 0
    print(
        "gain-map reproduction error: mean \(err.mean) stops, p99 \(p99), max \(err.max), inside the highlight max \(discMax); base vs SDR: mean \(sdrErr.mean), max \(sdrErr.max)"
    )
    #expect(err.mean < 0.05, "mean error \(err.mean) stops")
    #expect(p99 < 0.35, "p99 error \(p99) stops")
    #expect(discMax < 0.15, "error inside the highlight \(discMax) stops")
    // Inside the highlight (away from its edge, where the half-size map blurs) the HDR peak is reached.
    let i = 96 * 256 + 180
    let peak = hdr.pixels[n + i]
    let want = rend.hdr.pixels[n + i]
    #expect(abs(log2(peak / want)) < 0.1, "HDR at the highlight centre \(peak) vs \(want)")
}

@Test func brokenRAWsGiveOneLineErrorsAndLeaveNothingBehind() throws {
    let dir = Repo.temporaryDirectory("converter-err")
    defer { try? FileManager.default.removeItem(at: dir) }
    let flat = dir.appendingPathComponent("flat.dng")
    try Data(TestDNG.make(TestDNG.Options()) { _, _ in (0, 0, 0) }).write(to: flat)
    let stub = dir.appendingPathComponent("stub.nef")
    try Data(Array(TestDNG.make(TestDNG.Options(), scene: scene(highlights: false)).prefix(900))).write(to: stub)
    let truncated = dir.appendingPathComponent("cut.dng")
    let whole = TestDNG.make(TestDNG.Options(), scene: scene(highlights: true))
    try Data(Array(whole.prefix(whole.count * 6 / 10))).write(to: truncated)
    let text = dir.appendingPathComponent("notes.cr2")
    try Data("not a raw".utf8).write(to: text)
    let jpeg = dir.appendingPathComponent("photo.jpg")
    try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: jpeg)
    let out = dir.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    for src in [flat, stub, truncated, text, jpeg] {
        #expect {
            _ = try convertToFile(src, in: out)
        } throws: { e in
            guard let e = e as? ConvertError else { return false }
            return e.file == src.lastPathComponent && !e.description.contains("\n")
                && e.description.hasPrefix(src.lastPathComponent + ": ")
        }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
}

@Test func invalidOptionsAreRejectedWithOneLine() throws {
    let f = try Fixture("opt.dng", highlights: false)
    defer { f.cleanup() }
    var o = ConvertOptions()
    o.bitDepth = 12
    #expect(throws: ConvertError.self) { try HEICConverter.convert(source: f.url, options: o, decoders: .inProcess) }
    o = ConvertOptions()
    o.speed = "warp"
    #expect(throws: ConvertError.self) { try HEICConverter.convert(source: f.url, options: o, decoders: .inProcess) }
}

@Test func tenBit444Encodes() throws {
    let f = try Fixture("ten.dng", highlights: true)
    defer { f.cleanup() }
    var o = ConvertOptions()
    o.bitDepth = 10
    o.chroma = .yuv444
    let out = try HEICConverter.convert(source: f.url, options: o, decoders: .inProcess)
    let file = HEIFFile(bytes: out.bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.bitDepth(of: p) == 10)
    #expect(file.chromaFormat(of: p) == 3)
    let d = try HeifDecoder.decodePrimary(out.bytes, format: .rgbNative)
    #expect(d.bitDepth == 10)
}

@Test func largerOutputsCarryAThumbnail() throws {
    var o = TestDNG.Options()
    o.width = 720
    o.height = 480
    let dir = Repo.temporaryDirectory("thumb")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("big.dng")
    try Data(TestDNG.make(o) { x, y in (Double(x) / 2000, Double(y) / 2000, 0.1) }).write(to: url)
    let out = try HEICConverter.convert(source: url, decoders: .inProcess)
    let file = HEIFFile(bytes: out.bytes)
    let p = try #require(file.primaryItemID)
    let thumbs = file.thumbnails(of: p)
    #expect(thumbs.count == 1)
    if let t = thumbs.first {
        let size = file.imageSize(of: t)
        #expect(size.map { max($0.width, $0.height) } ?? 0 <= 320)
        #expect(size.map { $0.width * 2 == $0.height * 3 } == true, "aspect kept: \(String(describing: size))")
    }
    let thumbFile = dir.appendingPathComponent("big.heic")
    try Data(out.bytes).write(to: thumbFile)
    let (code, text) = run("heif-info", [thumbFile.path])
    #expect(code == 0 && text.contains("thumbnail"), "\(text)")
}

@Test func renderedHEICBecomesFlatSDRKeepingItsColour() throws {
    let dir = Repo.temporaryDirectory("heic-in")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (w, h) = (96, 64)
    var px = [UInt8](repeating: 0, count: w * h * 3)
    for i in 0..<(w * h) {
        px[3 * i] = UInt8(i % w * 2)
        px[3 * i + 1] = 90
        px[3 * i + 2] = UInt8(i / w * 3)
    }
    let src = try HeifEncoder.encode(
        .rgb8(width: w, height: h, samples: px), settings: HeifEncodeSettings(quality: 90, nclx: .sRGB))
    let url = dir.appendingPathComponent("in.heic")
    try Data(src).write(to: url)
    let (res, out) = try convertToFile(url, in: dir)
    #expect(res.inputKind == .renderedHEIF)
    #expect(res.hdr.gainMap == false)
    #expect(res.width == w && res.height == h)
    let d = try HeifDecoder.decodePrimary(file: out)
    #expect(d.nclx == .sRGB)
    #expect(d.width == w && d.height == h)
    #expect(HEIFFile(bytes: [UInt8](try Data(contentsOf: out))).toneMapItems.isEmpty)
}

@Test func parallelConversionsGiveTheSameBytesAsSequentialOnes() throws {
    let f = try Fixture("par.dng", highlights: true)
    defer { f.cleanup() }
    let reference = try HEICConverter.convert(source: f.url, decoders: .inProcess).bytes
    final class Box: @unchecked Sendable {
        var outs: [[UInt8]?] = Array(repeating: nil, count: 4)
        let lock = NSLock()
    }
    let box = Box()
    let url = f.url
    DispatchQueue.concurrentPerform(iterations: 4) { i in
        let b = try? HEICConverter.convert(source: url, decoders: .inProcess).bytes
        box.lock.lock()
        box.outs[i] = b
        box.lock.unlock()
    }
    for (i, o) in box.outs.enumerated() {
        #expect(o == reference, "parallel conversion \(i) differs from the sequential one")
    }
}

@Test func oddSizedRAWKeepsItsSizeAndAnEvenGainMap() throws {
    var o = TestDNG.Options()
    o.width = 251
    o.height = 187
    o.bayer = false
    let f = try Fixture("odd.dng", options: o, highlights: true)
    defer { f.cleanup() }
    let (res, out) = try convertToFile(f.url, in: f.dir)
    #expect(res.width == 251 && res.height == 187)
    let bytes = [UInt8](try Data(contentsOf: out))
    let d = try HeifDecoder.decodePrimary(bytes)
    #expect(d.width == 251 && d.height == 187)
    let file = HEIFFile(bytes: bytes)
    let p = try #require(file.primaryItemID)
    #expect(file.imageSize(of: p).map { [$0.width, $0.height] } == [251, 187])
    let gm = try #require(res.gainMap)
    #expect(gm.width % 2 == 0 && gm.height % 2 == 0 && gm.width >= 126 && gm.height >= 94)
    let (code, text) = run("heif-info", [out.path])
    #expect(code == 0, "\(text)")
    let inspection = GainMapInspector.inspect(file, decode: heifCodecPlane)
    #expect(inspection.reports.first?.isComplete == true, "\(inspection.reports.first?.findings ?? [])")
}
