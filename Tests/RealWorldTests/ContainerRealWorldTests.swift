import Foundation
import HEIF
import TestSupport
import Testing

/// The container layer over every HEIF/AVIF file in the real-world corpus, read in place.
enum ContainerCorpus {
    static let extensions: Set<String> = ["heic", "heif", "hif", "avif"]

    /// Broken or truncated files: each must yield at least one error finding with a byte offset.
    static let broken: Set<String> = [
        "exiv2_issue_1793_poc.heic", "libheif_fuzz_github_20.heic",
        "mei_NegativeArraySizeException.ItemInfoBox.init.heif",
        "pillowheif_corrupted.heic", "pillowheif_corrupted_Canon1DXIII.hif", "pillowheif_truncated.heic",
    ]

    static func file(_ relative: String) throws -> (URL, HEIFFile) {
        let url = try RealWorldCorpus.root().appendingPathComponent(relative)
        return (url, try HEIFFile(contentsOf: url.path))
    }
}

@Test func everyCorpusHEIFParsesAndRoundTripsByteForByte() throws {
    let files = try RealWorldCorpus.files(ContainerCorpus.extensions)
    #expect(files.count >= 50, "expected 35 HEIF + 20 AVIF files, found \(files.count)")
    var withErrors: Set<String> = []
    for url in files {
        let f = try HEIFFile(contentsOf: url.path)
        #expect(f.serialize() == f.bytes, "\(url.lastPathComponent) does not round-trip")
        if f.hasErrors { withErrors.insert(url.lastPathComponent) }
    }
    #expect(withErrors == ContainerCorpus.broken, "error findings in \(withErrors.sorted())")
}

@Test func brokenCorpusFilesYieldFindingsWithOffsets() throws {
    let files = try RealWorldCorpus.files(ContainerCorpus.extensions).filter {
        ContainerCorpus.broken.contains($0.lastPathComponent)
    }
    #expect(files.count == ContainerCorpus.broken.count)
    for url in files {
        let f = try HEIFFile(contentsOf: url.path)
        let errors = f.findings.filter { $0.severity == .error }
        #expect(!errors.isEmpty)
        #expect(errors.contains { $0.offset != nil }, "\(url.lastPathComponent): \(errors)")
        // Box offsets lie in the file; an iloc extent's offset is where its data should start, possibly past EOF.
        for e in errors where e.code != .containerIlocExtentPastEof {
            if let o = e.offset { #expect(o >= 0 && o <= f.bytes.count, "\(e)") }
        }
    }
    let (_, t) = try ContainerCorpus.file("heic/pillowheif_truncated.heic")
    #expect(t.findings.map(\.code) == [.containerBoxTruncated, .containerIlocExtentPastEof])
    #expect(t.findings.map(\.offset) == [607, 1648])
    #expect(t.payload(of: 1)?.count == 1033)
    #expect(t.payload(of: 2) == nil)
}

@Test func cleanCorpusFilesRebuildWithTheSameItemsAndPayloads() throws {
    for url in try RealWorldCorpus.files(ContainerCorpus.extensions)
    where !ContainerCorpus.broken.contains(url.lastPathComponent) {
        let f = try HEIFFile(contentsOf: url.path)
        let g = HEIFFile(bytes: HEIFBuilder(file: f).build())
        #expect(g.items.map(\.id) == f.items.map(\.id), "\(url.lastPathComponent)")
        #expect(g.items.map(\.type) == f.items.map(\.type))
        #expect(g.primaryItemID == f.primaryItemID)
        #expect(g.references.map(\.to) == f.references.map(\.to))
        #expect(g.groups.map(\.entities) == f.groups.map(\.entities))
        for it in f.items {
            #expect(g.payload(of: it.id) == f.payload(of: it.id), "\(url.lastPathComponent) item \(it.id)")
            #expect(g.properties(of: it.id).map(\.property) == f.properties(of: it.id).map(\.property))
        }
        #expect(!g.hasErrors, "\(url.lastPathComponent): \(g.findings)")
    }
}

@Test func iPhone16FileIsListedCompletely() throws {
    let (_, f) = try ContainerCorpus.file("heic/libvips_pr5132_iphone16_apple-heic-gainmap.heic")
    #expect(f.primaryItemID == 46)
    #expect(f.item(46)?.type == "grid")
    #expect(f.brands?.compatible.contains("tmap") == true)
    // Apple auxiliary gain map: a hidden grid with the hdrgainmap URN, auxl → primary.
    #expect(f.appleGainMap(of: 46) == 62)
    #expect(f.auxiliaryType(of: 62) == HEIFFile.appleGainMapURN)
    #expect(f.item(62)?.hidden == true)
    #expect(f.grid(of: 62)?.tiles.count == 15)
    #expect(f.imageSize(of: 62).map { [$0.width, $0.height] } == [2856, 2142])
    #expect(f.chromaFormat(of: 62) == 0)
    // ISO 21496-1 tmap: dimg [base 46, gain map 62]; its XMP says it is the same item (docs/platform.md: iOS 18's two
    // gain maps are one).
    #expect(f.toneMapItems == [122])
    #expect(f.derivedInputs(of: 122) == [46, 62])
    #expect(f.payload(of: 122)?.count == 62)
    #expect(f.payload(of: 122)?.first == 0)
    #expect(f.groups.map(\.type) == ["altr"])
    #expect(f.groups.first?.id == 121 && f.groups.first?.entities == [122, 46])
    // Multi-target cdsc (Exif, metadata) and auxl (mattes, style delta, linear thumbnail) → [46, 122].
    #expect(f.references(from: 124, type: "cdsc").first?.to == [46, 122])
    #expect(f.item(124)?.isExif == true)
    #expect(f.references(from: 63, type: "auxl").first?.to == [46, 122])
    let codes = f.findings.map(\.code)
    #expect(codes.filter { $0 == .containerIrefAuxlMultiTarget }.count == 5)
    #expect(codes.filter { $0 == .containerIrefCdscMultiTarget }.count == 2)
    #expect(!f.hasErrors)
    #expect(f.orientation(of: 46).exif == 6)
    #expect(f.exifTIFF(of: 124)?.prefix(2) == [0x4D, 0x4D])
    // Its XMP on the gain map (cdsc → 62) carries HDRGainMapVersion.
    let xmp = try #require(f.metadataItems(describing: 62).first.flatMap { f.xmp(of: $0) })
    #expect(String(decoding: xmp, as: UTF8.self).contains("HDRGainMapVersion"))
}

@Test func standaloneItemsOfARefusedFileReadBack() throws {
    let (_, f) = try ContainerCorpus.file("heic/libvips_pr5132_iphone16_apple-heic-gainmap.heic")
    for id: UInt32 in [46, 62, 1, 47] {
        let s = HEIFFile(bytes: try #require(f.standaloneFile(for: id)))
        #expect(!s.hasErrors, "\(id): \(s.findings)")
        let p = try #require(s.primaryItemID)
        if f.item(id)?.type == "grid" {
            #expect(s.grid(of: p)?.tiles.count == f.grid(of: id)?.tiles.count)
            #expect(s.grid(of: p)?.tiles.map { s.payload(of: $0) } == f.grid(of: id)?.tiles.map { f.payload(of: $0) })
        } else {
            #expect(s.payload(of: p) == f.payload(of: id))
        }
    }
}

/// Golden `inspect` text and JSON for seven real files.
let inspectGoldens: [(file: String, golden: String)] = [
    ("heic/libvips_pr5132_iphone16_apple-heic-gainmap.heic", "inspect-iphone16-tmap"),
    ("heic/photoprism_iphone_15_pro.heic", "inspect-iphone15-apple-aux"),
    ("avif/libavif_seine_sdr_gainmap_srgb.avif", "inspect-libavif-tmap"),
    ("heic/exiv2_Canon_EOSR5.HIF", "inspect-canon-grid"),
    ("heic/libvips_heic-orientation-6_iPhoneXS.heic", "inspect-irot-orientation6"),
    ("avif/libavif_abc_color_irot_alpha_irot.avif", "inspect-avif-irot-alpha"),
    ("heic/pillowheif_truncated.heic", "inspect-truncated"),
]

@Test(arguments: inspectGoldens.map(\.golden))
func inspectMatchesGolden(_ golden: String) throws {
    let entry = try #require(inspectGoldens.first { $0.golden == golden })
    let (url, f) = try ContainerCorpus.file(entry.file)
    let view = Inspection(file: f, name: url.lastPathComponent)
    #expect(Golden.check(view.text(), named: "\(golden).txt") == nil)
    #expect(Golden.check(view.json(), named: "\(golden).json") == nil)
    let json = try JSONSerialization.jsonObject(with: Data(view.json().utf8)) as? [String: Any]
    #expect(json?["schemaVersion"] as? Int == 2)
}

/// exiftool (the oracle) agrees on brands, handler, primary item and where the media data starts.
@Test func containerFactsAgreeWithExiftool() throws {
    let files = try RealWorldCorpus.files(ContainerCorpus.extensions).filter {
        !ContainerCorpus.broken.contains($0.lastPathComponent)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
    p.arguments =
        [
            "-j", "-n", "-G1", "-MajorBrand", "-CompatibleBrands", "-HandlerType", "-MediaDataOffset",
            "-PrimaryItemReference",
        ] + files.map(\.path)
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    #expect(rows.count == files.count)
    var compared = 0
    for row in rows {
        let path = try #require(row["SourceFile"] as? String)
        let f = try HEIFFile(contentsOf: path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        #expect(row["QuickTime:MajorBrand"] as? String == f.brands?.major.description, "\(name)")
        let compat =
            (row["QuickTime:CompatibleBrands"] as? [String])
            ?? (row["QuickTime:CompatibleBrands"] as? String).map { [$0] }
        #expect(compat == f.brands?.compatible.map(\.description), "\(name)")
        #expect(row["QuickTime:HandlerType"] as? String == f.handler?.description, "\(name)")
        if let primary = row["Meta:PrimaryItemReference"] as? Int {
            #expect(UInt32(primary) == f.primaryItemID, "\(name)")
            compared += 1
        }
        if let off = row["QuickTime:MediaDataOffset"] as? Int {
            #expect(f.mdat.map(\.lowerBound).contains(off), "\(name): exiftool mdat at \(off), ours \(f.mdat)")
        }
    }
    #expect(compared >= 40)
}
