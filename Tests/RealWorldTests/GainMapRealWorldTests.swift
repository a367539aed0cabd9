import Audit
import Digest
import Findings
import Foundation
import GainMap
import HEIF
import TestSupport
import Testing

/// What the gain-map inspector must say about one corpus file, keyed by the first 16 hex digits of its sha256.
struct GainMapExpectation: Sendable {
    var name: String
    var forms: [GainMapForm]
    /// description, metadata, data (without a decoder), colour, consistency.
    var verdicts: [PartVerdict]
    /// Exactly these finding codes (sorted), across all parts.
    var codes: [FindingCode]
}

private let ok = PartVerdict.pass
private let warn = PartVerdict.warn
private let fail = PartVerdict.fail
private let unv = PartVerdict.unverified

/// Expected verdicts for every gain-map file in the real-world corpus (MANIFEST.tsv "gain map:" column and the notes).
let gainMapExpectations: [String: GainMapExpectation] = [
    // libavif: valid files.
    "573a67fdd581f6e6": .init(
        name: "libavif_seine_hdr_gainmap_small_srgb.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, ok],
        codes: []),
    "9bf9c6a7606951de": .init(
        name: "libavif_seine_hdr_gainmap_srgb.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, ok], codes: []),
    "e0ebdb2f1f44c7d9": .init(
        name: "libavif_seine_sdr_gainmap_srgb.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, ok], codes: []),
    "63fa6580a4cc215d": .init(
        name: "libavif_seine_sdr_gainmap_srgb_icc.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, ok], codes: []),
    // writer_version 99 with extra bytes: trailing bytes allowed, decode.
    "1ede5af67433062c": .init(
        name: "libavif_unsupported_gainmap_writer_version_with_extra_bytes.avif", forms: [.iso21496],
        verdicts: [ok, ok, unv, ok, ok], codes: []),
    // Atypical sizes (valid): a 2x map, and grids whose map is not 1, 1/2 or 1/4 of the base.
    "b672cfd5ac792ae0": .init(
        name: "libavif_seine_sdr_gainmap_big_srgb.avif", forms: [.iso21496], verdicts: [warn, ok, unv, ok, ok],
        codes: [.gainmapDescriptionSizeImplausible]),
    "73a68c3d6daad7b8": .init(
        name: "libavif_color_grid_gainmap_different_grid.avif", forms: [.iso21496], verdicts: [warn, ok, unv, ok, ok],
        codes: [.gainmapDescriptionSizeImplausible]),
    "d783e0d9ce778f97": .init(
        name: "libavif_color_nogrid_alpha_nogrid_gainmap_grid.avif", forms: [.iso21496],
        verdicts: [warn, ok, unv, ok, ok],
        codes: [.gainmapDescriptionSizeImplausible]),
    // libavif: deliberately broken, each with its own finding.
    "23990f6493467f13": .init(
        name: "libavif_seine_hdr_gainmap_wrongaltr.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, fail],
        codes: [.gainmapAltrOrder]),
    "63da247475627242": .init(
        name: "libavif_seine_sdr_gainmap_notmapbrand.avif", forms: [.iso21496], verdicts: [ok, ok, unv, ok, fail],
        codes: [.gainmapBrandMissing]),
    "faf73bb88eb6ed04": .init(
        name: "libavif_seine_sdr_gainmap_gammazero.avif", forms: [.iso21496], verdicts: [ok, fail, unv, ok, ok],
        codes: [.gainmapTmapGammaZero, .gainmapTmapGammaZero, .gainmapTmapGammaZero]),
    "f67ef979ee9df50c": .init(
        name: "libavif_unsupported_gainmap_version.avif", forms: [.iso21496], verdicts: [ok, fail, unv, ok, ok],
        codes: [.gainmapTmapVersionUnsupported]),
    "d675f46519029ce3": .init(
        name: "libavif_unsupported_gainmap_minimum_version.avif", forms: [.iso21496],
        verdicts: [ok, fail, unv, ok, ok],
        codes: [.gainmapTmapMinimumVersionUnsupported]),
    "189398ea72d391c7": .init(
        name: "libavif_supported_gainmap_writer_version_with_extra_bytes.avif", forms: [.iso21496],
        verdicts: [ok, fail, unv, ok, ok],
        codes: [.gainmapTmapExtraBytes]),
    // Adobe-style aux map (urn:com:photo:aux:hdrgainmap) with hdrgm XMP, not hidden; libavif ignores it.
    "b4f440392ad8cdfd": .init(
        name: "libavif_seine_hdr_srgb_pq.avif", forms: [.otherAux], verdicts: [warn, ok, unv, ok, ok],
        codes: [.gainmapDescriptionNotHidden]),
    // Apple.
    "c690fa4ecc6ae71e": .init(
        name: "applehdrheic_hdr-sample_iPhone13Pro_iOS17.heic", forms: [.appleAux], verdicts: [ok, ok, unv, ok, ok],
        codes: []
    ),
    "c68e438f92341da2": .init(
        name: "photoprism_iphone_15_pro.heic", forms: [.appleAux], verdicts: [ok, ok, unv, ok, ok], codes: []),
    // iOS 16.2: version 65536, MakerNote 0x0021 but no 0x0030 and no XMP headroom.
    "1ddce96766efbfa0": .init(
        name: "pillowheif_pug_iPhone13Pro.heic", forms: [.appleAux], verdicts: [ok, warn, unv, ok, ok],
        codes: [.gainmapAppleHeadroomMissing]),
    // iOS 26: one grid item is both the tmap's gain map and the Apple aux map.
    "3ca9efeb6fd5ad30": .init(
        name: "libvips_pr5132_iphone16_apple-heic-gainmap.heic", forms: [.iso21496, .appleAux],
        verdicts: [ok, ok, unv, ok, ok], codes: []),
    // Samsung.
    "4dd7209010986a50": .init(
        name: "pillowheif_200MP_GalaxyS24Ultra.heic", forms: [.otherAux], verdicts: [warn, ok, unv, ok, ok],
        codes: [.gainmapDescriptionPixiMissing]),
    "8deae321c3b6424f": .init(
        name: "pillowheif_aux_YCbCr_GalaxyS25Ultra.heic", forms: [.iso21496, .otherAux],
        verdicts: [ok, ok, unv, ok, ok],
        codes: []),
]

/// The HEIF/AVIF files of the corpus with the first 16 hex digits of their sha256, hashed once for all tests.
private let heifCorpusListing: Result<[(URL, String)], any Error> = Result {
    try RealWorldCorpus.files(["heic", "heif", "hif", "avif"]).map {
        ($0, String(try SHA256.hex(fileAt: $0).prefix(16)))
    }
}

func heifCorpusFiles() throws -> [(URL, String)] { try heifCorpusListing.get() }

@Test func everyCorpusGainMapGetsTheRightVerdictPerPart() throws {
    var seen: Set<String> = []
    for (url, sha) in try heifCorpusFiles() {
        let file = try HEIFFile(contentsOf: url.path)
        let ins = GainMapInspector.inspect(file)
        let name = url.lastPathComponent
        guard let exp = gainMapExpectations[sha] else {
            #expect(!ins.hasGainMap, "\(name): unexpected gain map \(ins.reports.map(\.forms))")
            #expect(ins.findings.isEmpty, "\(name): \(ins.findings)")
            continue
        }
        seen.insert(sha)
        #expect(ins.findings.isEmpty, "\(name): \(ins.findings)")
        #expect(ins.reports.count == 1, "\(name): \(ins.reports.count) gain maps")
        guard let r = ins.reports.first else { continue }
        #expect(r.forms == exp.forms, "\(name)")
        #expect(r.parts.map(\.part) == GainMapPart.allCases, "\(name)")
        #expect(r.parts.map(\.verdict) == exp.verdicts, "\(name): \(r.parts.map { "\($0.part): \($0.findings)" })")
        #expect(r.findings.map(\.code).sorted() == exp.codes.sorted(), "\(name): \(r.findings)")
        // Every finding says where it is.
        #expect(
            r.findings.allSatisfy { ($0.offset ?? -1) >= 0 && $0.offset! < file.bytes.count }, "\(name): \(r.findings)")
    }
    #expect(
        seen == Set(gainMapExpectations.keys),
        "corpus files not found: \(Set(gainMapExpectations.keys).subtracting(seen).map { gainMapExpectations[$0]!.name })"
    )
}

@Test func everyCorpusGainMapDecodesAndIsNotConstant() throws {
    for (url, sha) in try heifCorpusFiles() where gainMapExpectations[sha] != nil {
        let file = try HEIFFile(contentsOf: url.path)
        let r = try #require(GainMapInspector.inspect(file, decode: heifCodecPlane).reports.first)
        let data = r.part(.data)
        #expect(data.verdict == .pass, "\(url.lastPathComponent): \(data.findings) \(data.evidence)")
        let size = try #require(r.gainMapItemID.flatMap { file.imageSize(of: $0) })
        #expect(
            data.evidence.contains { $0.hasPrefix("decoded \(size.width)x\(size.height) ") },
            "\(url.lastPathComponent): \(data.evidence)")
    }
}

/// exiftool is the oracle for the Apple values we read (XMP HDRGainMap, MakerNote HDRHeadroom/HDRGain).
@Test func appleGainMapValuesMatchExiftool() throws {
    var checked = 0
    for (url, sha) in try heifCorpusFiles() where gainMapExpectations[sha]?.forms.contains(.appleAux) == true {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["exiftool", "-j", "-n", "-G1", "-a", url.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let json = try #require((try JSONSerialization.jsonObject(with: out) as? [[String: Any]])?.first)
        let r = try #require(GainMapInspector.inspect(try HEIFFile(contentsOf: url.path)).reports.first)
        let name = url.lastPathComponent
        func num(_ k: String) -> Double? { (json[k] as? NSNumber)?.doubleValue }
        #expect(r.appleXMP?.version.map(Double.init) == num("XMP-HDRGainMap:HDRGainMapVersion"), "\(name)")
        #expect(r.appleXMP?.headroom == num("XMP-HDRGainMap:HDRGainMapHeadroom"), "\(name)")
        let h = r.appleMakerNote?.hdrHeadroom
        let g = r.appleMakerNote?.hdrGain
        #expect((h == nil) == (num("Apple:HDRHeadroom") == nil), "\(name)")
        #expect((g == nil) == (num("Apple:HDRGain") == nil), "\(name)")
        if let h, let e = num("Apple:HDRHeadroom") { #expect(abs(h - e) < 1e-8, "\(name): \(h) vs \(e)") }
        if let g, let e = num("Apple:HDRGain") { #expect(abs(g - e) < 1e-8, "\(name): \(g) vs \(e)") }
        checked += 1
    }
    #expect(checked == 4)
}

/// Where both exist, Apple's headroom and the ISO alternate headroom agree (log2), and the MakerNote formula
/// agrees with the XMP value.
@Test func appleAndISOHeadroomsAgree() throws {
    let url = try RealWorldCorpus.root().appendingPathComponent("heic/libvips_pr5132_iphone16_apple-heic-gainmap.heic")
    let r = try #require(GainMapInspector.inspect(try HEIFFile(contentsOf: url.path)).reports.first)
    let iso = try #require(r.isoMetadata)
    #expect(iso.alternateHdrHeadroom == UFraction(2_787_109, 1_000_000))
    #expect(iso.channels.count == 1)
    #expect(abs(log2(try #require(r.appleXMP?.headroom)) - iso.alternateHdrHeadroom.doubleValue) < 1e-5)
    let phone15 = try RealWorldCorpus.root().appendingPathComponent("heic/photoprism_iphone_15_pro.heic")
    let r15 = try #require(GainMapInspector.inspect(try HEIFFile(contentsOf: phone15.path)).reports.first)
    #expect(abs(try #require(r15.appleMakerNote?.headroomStops) - log2(try #require(r15.appleXMP?.headroom))) < 0.01)
}
