// readback-render: the render check's measurements as JSON lines, for docs/render-fidelity.md and the threshold
// margins in docs/policy.md (scripts/render-fidelity.sh runs it). Not a user path: `readback audit` runs the check.
//
//   readback-render compare SOURCE OUTPUT [options]   one line: OUTPUT against SOURCE's reference render
//   readback-render failures SOURCE OUTPUT [options]  one line per deliberate failure applied to OUTPUT
//   readback-render table FILE.jsonl                  the Markdown tables of docs/render-fidelity.md from those lines
//
// Options: --reference FILE (take the reference from FILE instead of SOURCE), --reference-primary (FILE is a HEIF
// whose primary image is the reference, for photos without a thumbnail), --space srgb|p3|srgb709 (OUTPUT's space
// when it does not signal one: dcraw_emu writes sRGB primaries with the BT.709 curve), --label TEXT.
// OUTPUT may be a HEIF, a JPEG, a TIFF (8/16-bit RGB, uncompressed) or a binary PPM (8/16-bit).
import ColorScience
import Foundation
import HeifCodec
import JPEGCodec
import RenderCheck
import RenderIO

struct Failure: Error, CustomStringConvertible {
    let description: String
}

func bytes(_ path: String) throws -> [UInt8] {
    guard let d = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
    return [UInt8](d)
}

func namedSpace(_ name: String?) throws -> ColorSpace? {
    switch name {
    case nil, "auto": return nil
    case "srgb": return .sRGB
    case "p3": return .displayP3
    case "srgb709": return .sRGBWithBT709Curve
    default: throw Failure(description: "unknown --space \(name!) (srgb, p3, srgb709)")
    }
}

/// A binary PPM (P6, maxval 255 or 65535).
func ppm(_ b: [UInt8], space: ColorSpace) throws -> RenderImage {
    var fields: [Int] = []
    var i = 2
    guard b.starts(with: Array("P6".utf8)) else { throw Failure(description: "not a binary PPM") }
    while fields.count < 3, i < b.count {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        var v = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            v = v * 10 + Int(b[i] - 0x30)
            i += 1
        }
        fields.append(v)
    }
    i += 1
    let (w, h, maxval) = (fields[0], fields[1], fields[2])
    let n = w * h * 3
    if maxval < 256 {
        guard b.count >= i + n else { throw Failure(description: "PPM too short") }
        return RenderImage(width: w, height: h, codes: Array(b[i..<(i + n)]), maxCode: maxval, space: space)
    }
    guard b.count >= i + 2 * n else { throw Failure(description: "PPM too short") }
    let v = (0..<n).map { UInt16(b[i + 2 * $0]) << 8 | UInt16(b[i + 2 * $0 + 1]) }
    return RenderImage(width: w, height: h, codes: v, maxCode: maxval, space: space)
}

func output(_ path: String, space: ColorSpace?) throws -> RenderImage {
    let b = try bytes(path)
    switch (path as NSString).pathExtension.lowercased() {
    case "heic", "heif", "hif":
        return try OutputImage.fromHEIF(b, decoders: .inProcess).capped(maxSide: 2 * RenderComparison.maxSide)
    case "jpg", "jpeg":
        guard case .found(let r) = ReferenceExtractor.fromJPEG(b, decoders: .inProcess) else {
            throw Failure(description: "JPEG")
        }
        var img = r.image
        if let space { img.space = space }
        return img.capped(maxSide: 2 * RenderComparison.maxSide)
    case "tif", "tiff":
        let img = try TIFFImage.decode(b, decoders: .inProcess).get()
        let s = space ?? TIFFImage.iccProfile(b).flatMap(ICCReader.colourSpace) ?? .sRGB
        return RenderImage(width: img.width, height: img.height, codes: img.samples, space: s)
            .capped(maxSide: 2 * RenderComparison.maxSide)
    case "ppm": return try ppm(b, space: space ?? .sRGB).capped(maxSide: 2 * RenderComparison.maxSide)
    default: throw Failure(description: "unknown output type \(path)")
    }
}

func reference(_ path: String, primary: Bool) throws -> ReferenceRender {
    if primary {
        return ReferenceRender(
            image: try OutputImage.fromHEIF(try bytes(path), decoders: .inProcess), description: "primary image")
    }
    switch ReferenceExtractor.reference(for: URL(fileURLWithPath: path), decoders: .inProcess) {
    case .found(let r): return r
    case .none(let why): throw Failure(description: "no reference render: \(why)")
    case .died(let failure): throw Failure(description: "no reference render: \(failure)")
    }
}

func json(_ m: RenderMeasurement, _ f: [String], _ extra: [String: String]) -> String {
    func n(_ v: Double?) -> String { v.map { String(format: "%.4f", $0) } ?? "null" }
    var fields = extra.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \"\($0.value)\"" }
    fields += [
        "\"width\": \(m.width)", "\"height\": \(m.height)", "\"exposure_stops\": \(n(m.exposureStops))",
        "\"cast_a\": \(n(m.castA))", "\"cast_b\": \(n(m.castB))", "\"cast\": \(n(m.cast))",
        "\"neutral_fraction\": \(n(m.neutralFraction))", "\"cast_from_neutrals\": \(m.castFromNeutrals)",
        "\"best_orientation\": \(m.bestOrientation)", "\"corr_identity\": \(n(m.correlationIdentity))",
        "\"corr_best\": \(n(m.correlationBest))", "\"corr_runner_up\": \(n(m.correlationRunnerUp))",
        "\"out_spread\": \(n(m.outputSpread))", "\"ref_spread\": \(n(m.referenceSpread))",
        "\"de00_median\": \(n(m.deltaEMedian))", "\"de00_p90\": \(n(m.deltaEP90))",
        "\"chroma_ratio\": \(n(m.chromaRatio))",
        "\"trimmed\": \"\(m.trimmedBars.map(String.init).joined(separator: "/"))\"",
        "\"findings\": [\(f.map { "\"\($0)\"" }.joined(separator: ", "))]",
    ]
    return "{" + fields.joined(separator: ", ") + "}"
}

func run(_ args: [String]) throws {
    if args.count == 2, args[0] == "table" {
        print(try Tables.markdown(jsonl: String(decoding: try bytes(args[1]), as: UTF8.self)))
        return
    }
    guard args.count >= 3, ["compare", "failures"].contains(args[0]) else {
        throw Failure(description: "usage: readback-render compare|failures SOURCE OUTPUT [options] | table FILE")
    }
    var opts: [String: String] = [:]
    var i = 3
    while i < args.count {
        if args[i] == "--reference-primary" {
            opts["reference-primary"] = "yes"
            i += 1
        } else if i + 1 < args.count, args[i].hasPrefix("--") {
            opts[String(args[i].dropFirst(2))] = args[i + 1]
            i += 2
        } else {
            throw Failure(description: "unexpected argument \(args[i])")
        }
    }
    let ref = try reference(opts["reference"] ?? args[1], primary: opts["reference-primary"] != nil)
    let out = try output(args[2], space: try namedSpace(opts["space"]))
    let extra = [
        "label": opts["label"] ?? (args[2] as NSString).lastPathComponent, "reference": ref.description,
        "output_space": out.space.name,
    ]
    let cases: [(String, RenderImage)] =
        args[0] == "compare" ? [("none", out)] : DeliberateFailure.allCases.map { ($0.rawValue, $0.apply(to: out)) }
    for (failure, img) in cases {
        let m = RenderComparison.compare(reference: ref.image, output: img)
        let f = RenderVerdict.findings(
            m, thresholds: RenderThresholds(), reference: ref.description,
            orientationAmbiguous: ref.orientationAmbiguous)
        var e = extra
        e["failure"] = failure
        print(json(m, f.map { "\($0.code):\($0.severity.rawValue)" }, e))
    }
}

do { try run(Array(CommandLine.arguments.dropFirst())) } catch {
    FileHandle.standardError.write(Data("readback-render: \(error)\n".utf8))
    exit(2)
}
