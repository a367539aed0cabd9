import CorpusKit
import Foundation
import RawDecoder
import TestSupport
import Testing

/// Big-endian DNG opcode list bytes (DNG 1.4 §6): count, then id, version, flags, size, parameters per opcode.
func opcodeList(_ ops: [(id: UInt32, flags: UInt32, parameters: [UInt8])]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    var out = be(UInt32(ops.count))
    for op in ops {
        out += be(op.id) + be(0x0103_0000) + be(op.flags) + be(UInt32(op.parameters.count)) + op.parameters
    }
    return out
}

/// MapPolynomial parameters: the whole image, one plane, pitch 1, the coefficients.
func mapPolynomial(plane: UInt32, coefficients: [Double]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    var p = [0, 0, 100_000, 100_000, plane, 1, 1, 1, UInt32(coefficients.count - 1)].flatMap(be)
    for c in coefficients {
        let b = c.bitPattern
        p += be(UInt32(b >> 32)) + be(UInt32(b & 0xFFFF_FFFF))
    }
    return p
}

/// A linear DNG whose samples are stored as codes √x (the way the Adobe DNG SDK's 8-bit samples are stored as
/// non-linear codes) with `ops` in its raw IFD's OpcodeList2, and the same DNG stored linearly, without opcodes.
func encodedLinearDNG(_ ops: [(id: UInt32, flags: UInt32, parameters: [UInt8])]) throws -> (plain: URL, coded: URL) {
    let spec = DNGSpec(layout: .linear, bitsPerSample: 16, blackLevel: 0, seed: 9, camera: .syntheticLinear)
    let plain = DNGWriter.write(scene: Chart(width: 96, height: 64, highlightStops: nil), spec: spec)
    var tree = try #require(TIFFReader(bytes: plain)?.readTree())
    guard case .ifds(var subs)? = tree[330], var raw = subs.first, let data = raw.imageData else {
        throw SetupFailure(what: "no raw SubIFD")
    }
    var coded = data
    for i in stride(from: 0, to: data.count, by: 2) {
        let v = Double(UInt16(data[i]) | UInt16(data[i + 1]) << 8) / 65535
        let c = UInt16((v.squareRoot() * 65535).rounded())
        (coded[i], coded[i + 1]) = (UInt8(c & 0xFF), UInt8(c >> 8))
    }
    raw.imageData = coded
    raw[0xC741] = .undefined(opcodeList(ops))
    subs[0] = raw
    tree[330] = .ifds(subs)
    let dir = Repo.temporaryDirectory("dng-opcodes")
    let a = dir.appendingPathComponent("plain.dng")
    let b = dir.appendingPathComponent("coded.dng")
    try Data(plain).write(to: a)
    try Data(TIFFWriter.serialize(tree)).write(to: b)
    return (a, b)
}

struct SetupFailure: Error { let what: String }

/// OpcodeList2's MapPolynomials, which LibRaw's lossless and uncompressed loaders never apply, are applied by the
/// wrapper: the √x-coded DNG with x² per plane decodes to the linear DNG's values (not 2–4× brighter ones).
@Test func mapPolynomialOfOpcodeList2IsAppliedWhereLibRawsLoaderDoesNot() throws {
    let square = (0..<3).map {
        (id: UInt32(8), flags: UInt32(0), parameters: mapPolynomial(plane: $0, coefficients: [0, 0, 1]))
    }
    let (plainURL, codedURL) = try encodedLinearDNG(square)
    defer { try? FileManager.default.removeItem(at: plainURL.deletingLastPathComponent()) }
    let (pm, plain) = try LibRawDecoder.decode(plainURL, options: RawDecodeOptions(workingSpace: .sRGB))
    let (cm, coded) = try LibRawDecoder.decode(codedURL, options: RawDecodeOptions(workingSpace: .sRGB))
    #expect(pm.dngOpcodesApplied.isEmpty)
    #expect(cm.dngOpcodesApplied.count == 3 && cm.dngOpcodesApplied[0].hasPrefix("OpcodeList2 MapPolynomial"))
    #expect(plain.width == coded.width && plain.height == coded.height)
    let mean = { (img: LinearImage16) in img.pixels.reduce(0.0) { $0 + Double($1) } / Double(img.pixels.count) }
    let diff =
        zip(plain.pixels, coded.pixels).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) }
        / Double(plain.pixels.count)
    #expect(diff < 0.01 * mean(plain), "mean difference \(diff) against mean \(mean(plain))")
}

/// A MapPolynomial LibRaw's lossy-JPEG loader applies itself is not applied twice; any other opcode that is not
/// optional refuses the DNG with a one-line reason; an optional one is reported as skipped.
@Test func opcodesNobodyAppliesRefuseTheDNGUnlessOptional() throws {
    let gainMap = [UInt8](repeating: 0, count: 80)
    let (plainURL, mandatory) = try encodedLinearDNG([(9, 0, gainMap)])
    defer { try? FileManager.default.removeItem(at: plainURL.deletingLastPathComponent()) }
    do {
        _ = try LibRawDecoder.decode(mandatory)
        Issue.record("a DNG with a mandatory GainMap opcode decoded")
    } catch let e as RawDecodeError {
        #expect(
            e.description
                == "coded.dng: DNG OpcodeList2 GainMap is not optional and neither LibRaw \(LibRaw.version) nor Readback applies it, so the picture would be wrong"
        )
    }
    let (optionalPlain, optional) = try encodedLinearDNG([(9, 1, gainMap)])
    defer { try? FileManager.default.removeItem(at: optionalPlain.deletingLastPathComponent()) }
    let (m, _) = try LibRawDecoder.decode(optional, options: RawDecodeOptions(halfSize: true))
    #expect(m.dngOpcodesSkipped == ["OpcodeList2 GainMap (optional)"])
    // A list whose opcode runs past its end is refused too.
    var broken = opcodeList([(8, 0, mapPolynomial(plane: 0, coefficients: [0, 1]))])
    broken.removeLast(4)
    #expect(throws: DNGOpcodeReader.Unreadable.self) { try DNGOpcodeReader.parse(broken, list: 2) }
}

/// The MapPolynomial parameters parse as the DNG spec lays them out, and the polynomial clips to 0…1.
@Test func mapPolynomialParses() throws {
    let ops = try DNGOpcodeReader.parse(
        opcodeList([(8, 0, mapPolynomial(plane: 2, coefficients: [0.1, 0.5, 0, 2]))]), list: 2)
    let p = try #require(ops.first?.mapPolynomial)
    #expect(ops.first?.name == "MapPolynomial" && ops.first?.isOptional == false)
    #expect(p.plane == 2 && p.planes == 1 && p.bottom == 100_000 && p.coefficients == [0.1, 0.5, 0, 2])
    #expect(abs(p.value(0.5) - (0.1 + 0.25 + 0.25)) < 1e-12)
    #expect(p.value(1) == 1 && p.value(0) == 0.1)
}
