import Converter
import CorpusKit
import Foundation
import HEIF
import TestSupport
import Testing

private let exifKeys = [
    "Make", "Model", "LensModel", "DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal", "ExposureTime",
    "FNumber", "ISO", "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude",
]

/// exiftool's -n values for `keys` (and Orientation, Software, XMP Rating/Label/Subject).
private func exiftool(_ url: URL) throws -> [String: String] {
    let (code, text) = run(
        "exiftool",
        ["-j", "-n"] + exifKeys.map { "-" + $0 } + [
            "-IFD0:Orientation", "-Software", "-XMP:Rating", "-XMP:Label", "-XMP:Subject", "-ExifImageWidth",
            "-ExifImageHeight", url.path,
        ])
    #expect(code == 0, "\(text)")
    let arr = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
    return (arr?.first ?? [:]).mapValues { "\($0)" }
}

@Test(arguments: [1, 6])
func exifIsWrittenAtEncodeTimeAndEqualsTheSource(orientation: Int) throws {
    var o = TestDNG.Options()
    o.orientation = UInt16(orientation)
    let f = try Fixture("meta.dng", options: o, highlights: true)
    defer { f.cleanup() }
    let (res, out) = try convertToFile(f.url, in: f.dir)
    let a = try exiftool(f.url)
    let b = try exiftool(out)
    for k in exifKeys {
        #expect(a[k] == TestDNG.exifValues[k], "source \(k) = \(a[k] ?? "-")")
        #expect(b[k] == a[k], "\(k): source \(a[k] ?? "-"), output \(b[k] ?? "-")")
    }
    #expect(b["Orientation"] == "1")
    #expect(b["Software"] == "Readback \(readbackVersion)")
    #expect(b["ExifImageWidth"] == String(res.width) && b["ExifImageHeight"] == String(res.height))
    #expect(res.knownLosses.allSatisfy { !$0.contains("not carried") }, "\(res.knownLosses)")
    // The Exif item describes the primary only (single cdsc target: libheif 1.15 opens the file).
    let file = HEIFFile(bytes: [UInt8](try Data(contentsOf: out)))
    let p = try #require(file.primaryItemID)
    #expect(file.exifItems.count == 1)
    #expect(file.exifItems.allSatisfy { file.described(by: $0) == [p] })
    let (code, text) = run("heif-info", [out.path])
    #expect(code == 0, "\(text)")
}

@Test func xmpSidecarIsMergedIntoTheOutput() throws {
    let f = try Fixture("side.dng", highlights: false)
    defer { f.cleanup() }
    let sidecar = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="4" xmp:Label="Green">
           <dc:subject><rdf:Bag><rdf:li>harbour</rdf:li><rdf:li>dawn</rdf:li></rdf:Bag></dc:subject>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    try Data(sidecar.utf8).write(to: f.dir.appendingPathComponent("side.xmp"))
    let (_, out) = try convertToFile(f.url, in: f.dir)
    let b = try exiftool(out)
    #expect(b["Rating"] == "4")
    #expect(b["Label"] == "Green")
    #expect(
        b["Subject"]?.contains("harbour") == true && b["Subject"]?.contains("dawn") == true, "\(b["Subject"] ?? "-")")
}

/// The corpus DNGs carry full Exif, GPS, XMP and a MakerNote: every capture field exiftool reads in the source is
/// in the output with the same value, Orientation is 1, and the XMP (rating, label, keywords) is carried.
@Test(arguments: ["dng/chart-rggb-12bit-o1.dng", "dng/chart-bggr-16bit-o6-mm.dng", "dng/linear-16bit-o6.dng"])
func corpusMetadataSurvivesConversion(file: String) throws {
    let recipe = try #require(Corpus.tiny.first { $0.file == file })
    let dir = Repo.temporaryDirectory("corpus-meta")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
    try Data(recipe.dngBytes()).write(to: src)
    let (res, out) = try convertToFile(src, in: dir)
    let a = try exiftool(src)
    let b = try exiftool(out)
    for k in exifKeys {
        #expect(a[k] != nil, "source lacks \(k)")
        #expect(b[k] == a[k], "\(k): source \(a[k] ?? "-"), output \(b[k] ?? "-")")
    }
    for k in ["Rating", "Label", "Subject"] {
        #expect(b[k] == a[k], "XMP \(k): source \(a[k] ?? "-"), output \(b[k] ?? "-")")
    }
    #expect(b["Orientation"] == "1")
    print("corpus \(file): known losses \(res.knownLosses)")
}
