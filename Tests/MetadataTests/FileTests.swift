import Exiv2Bridge
import FileFacts
import Foundation
import HEIF
import Metadata
import MetadataIO
import TestSupport
import Testing

/// Writes `bytes` to a fresh temporary file and returns its URL.
func temporaryFile(_ bytes: [UInt8], name: String) throws -> URL {
    let dir = Repo.temporaryDirectory("readback-metadata")
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

/// Runs exiftool (the oracle) on one file: `exiftool -j -n -G1 -a`.
func exiftool(_ url: URL) throws -> [String: Any] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
    p.arguments = ["-j", "-n", "-G1", "-a", url.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    return try #require(array.first)
}

/// A HEIC with one (fake-coded) primary image, the given transform properties and Exif.
func heic(exif: [UInt8], transform: [Property]) -> [UInt8] {
    var b = HEIFBuilder()
    var props: [(Property, essential: Bool)] = [(.ispe(width: 64, height: 48), false)]
    props += transform.map { ($0, true) }
    let p = b.addCodedImage(properties: props, data: [0, 0, 0, 1, 0x26])
    b.setPrimary(p)
    b.addExif(tiff: exif, describing: [p])
    return b.build()
}

@Test func tiffFileAgreesWithExiftool() throws {
    let url = try temporaryFile(TIFFBuilder.camera(orientation: 6).build(), name: "cam.tif")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let ours = try MetadataReader.read(url, decoders: .inProcess)
    let theirs = try exiftool(url)
    #expect(theirs["IFD0:Make"] as? String == ours["IFD0:Make"]?.value.description)
    #expect((theirs["IFD0:Orientation"] as? NSNumber)?.intValue == 6)
    #expect(ours.orientation.exif == 6)
    #expect(theirs["ExifIFD:DateTimeOriginal"] as? String == ours["ExifIFD:DateTimeOriginal"]?.value.description)
    #expect(
        (theirs["ExifIFD:ExposureTime"] as? NSNumber)?.doubleValue == ours["ExifIFD:ExposureTime"]?.value.numbers?.first
    )
    #expect((theirs["ExifIFD:ISO"] as? NSNumber)?.intValue == 400)
    // exiftool keeps the trailing spaces; we compare after normalisation (trailing spaces are padding).
    #expect(
        (theirs["ExifIFD:LensModel"] as? String).map(MetadataValue.normalizeText)
            == ours["ExifIFD:LensModel"]?.value.description)
    let lat = try #require((theirs["GPS:GPSLatitude"] as? NSNumber)?.doubleValue)
    #expect(abs(lat - (ours.gpsPosition?.latitude ?? 0)) < 1e-9)
}

@Test func heicExifBlobBuilderResetsOrientationAndKeepsTheRest() throws {
    let url = try temporaryFile(TIFFBuilder.camera(orientation: 6).build(), name: "cam.tif")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let blob = try Exiv2.buildHEICExif(from: url.path, pixelWidth: 4000, pixelHeight: 6000, software: "Readback test")
    #expect(blob.encodingLosses.isEmpty)
    #expect(Array(blob.bytes.prefix(4)) == [0x49, 0x49, 0x2A, 0])
    let out = try MetadataReader.decodeExif(blob.bytes, decoders: .inProcess)
    let outSet = MetadataSet(
        path: "out", format: "exif", fields: out.fields, orientation: OrientationInfo(heifTransform: 1))
    #expect(outSet["IFD0:Orientation"]?.value == .integers([1]))
    #expect(outSet["IFD0:Software"]?.value == .text("Readback test"))
    #expect(outSet["ExifIFD:ExifImageWidth"]?.value == .integers([4000]))
    #expect(outSet["ExifIFD:ExifImageHeight"]?.value == .integers([6000]))
    let src = try MetadataReader.read(url, decoders: .inProcess)
    let d = Diff.compare(source: src, output: outSet, policy: .standard)
    #expect(d.entries.first { $0.key.description == "IFD0:Orientation" }?.diffClass == .expectedChange)
    #expect(d.entries.first { $0.key.description == "IFD0:Software" }?.diffClass == .expectedChange)
    #expect(d.count(.lost) == 0)
    #expect(d.count(.changed) == 0)
    #expect(!d.hasSeriousLoss)
    // exiftool reads the blob back the same way once it sits in a HEIC.
    let h = try temporaryFile(heic(exif: blob.bytes, transform: []), name: "out.heic")
    defer { try? FileManager.default.removeItem(at: h.deletingLastPathComponent()) }
    let theirs = try exiftool(h)
    #expect((theirs["IFD0:Orientation"] as? NSNumber)?.intValue == 1)
    #expect(theirs["IFD0:Software"] as? String == "Readback test")
    #expect(theirs["ExifIFD:DateTimeOriginal"] as? String == "2024:05:01 10:20:30")
}

@Test func heicWithIrotAndExifOrientationSixIsADoubleRotation() throws {
    let src = try metadataSet(.camera(orientation: 6), label: "src")
    // irot 3 quarter turns anticlockwise = EXIF 6, and the Exif still says 6.
    let url = try temporaryFile(
        heic(exif: TIFFBuilder.camera(orientation: 6).build(), transform: [.irot(quarterTurns: 3)]), name: "rot.heic")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let out = try MetadataReader.read(url, decoders: .inProcess)
    #expect(out.format == "heif")
    #expect(out.orientation.hasTransform)
    #expect(out.orientation.heifTransform == 6)
    #expect(out.orientation.exif == 6)
    #expect(out["IFD0:Make"]?.value == .text("Canon"))
    let d = Diff.compare(source: src, output: out, policy: .standard)
    #expect(d.findings.contains { $0.code == .orientationDoubleRotation })
    // exiftool sees both: the Exif Orientation and the irot as QuickTime Rotation.
    let theirs = try exiftool(url)
    #expect((theirs["IFD0:Orientation"] as? NSNumber)?.intValue == 6)

    // The same transform with Exif Orientation 1: no hazard, the orientation is carried by irot.
    let ok = try temporaryFile(
        heic(exif: TIFFBuilder.camera(orientation: 1).build(), transform: [.irot(quarterTurns: 3)]), name: "ok.heic")
    defer { try? FileManager.default.removeItem(at: ok.deletingLastPathComponent()) }
    let good = try MetadataReader.read(ok, decoders: .inProcess)
    let d2 = Diff.compare(source: src, output: good, policy: .standard)
    #expect(!d2.findings.contains { $0.code == .orientationDoubleRotation || $0.code == .orientationChanged })
    #expect(d2.entries.first { $0.key.description == "IFD0:Orientation" }?.note == "orientation carried by irot/imir")
}

@Test func unreadableFilesGiveOneLineErrorsNamingTheFile() throws {
    let junk = try temporaryFile(Array("not an image at all".utf8), name: "junk.cr2")
    let empty = try temporaryFile([], name: "empty.nef")
    let truncatedHEIF = try temporaryFile(
        Array(heic(exif: TIFFBuilder.camera().build(), transform: []).prefix(40)), name: "cut.heic")
    defer {
        for u in [junk, empty, truncatedHEIF] { try? FileManager.default.removeItem(at: u.deletingLastPathComponent()) }
    }
    for u in [junk, empty, truncatedHEIF] {
        do {
            _ = try MetadataReader.read(u, decoders: .inProcess)
            Issue.record("\(u.lastPathComponent) read without error")
        } catch {
            #expect(error.description.hasPrefix(u.path + ": "))
            #expect(!error.description.contains("\n"))
        }
    }
    #expect(throws: MetadataReadError(path: "/nonexistent/x.dng", reason: "no such file")) {
        try MetadataReader.read(path: "/nonexistent/x.dng", decoders: .inProcess)
    }
}

@Test func sidecarsInBothNamingsAreMerged() throws {
    let dir = Repo.temporaryDirectory("readback-sidecar")
    defer { try? FileManager.default.removeItem(at: dir) }
    let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4" xmp:Label="Red"/>
        </rdf:RDF></x:xmpmeta>
        """
    for (image, sidecar) in [("a.tif", "a.tif.xmp"), ("b.tif", "b.xmp")] {
        let img = dir.appendingPathComponent(image)
        try Data(TIFFBuilder.camera().build()).write(to: img)
        try Data(xmp.utf8).write(to: dir.appendingPathComponent(sidecar))
        #expect(MetadataReader.sidecar(for: img)?.lastPathComponent == sidecar)
        let s = try MetadataReader.read(img, decoders: .inProcess)
        #expect(s["XMP-xmp:Rating"]?.value == .integers([4]))
        #expect(s["XMP-xmp:Label"]?.value == .text("Red"))
        #expect(s["IFD0:Make"]?.value == .text("Canon"))
    }
}

@Test func xmpPacketMergesTheSidecar() throws {
    let dir = Repo.temporaryDirectory("readback-xmpbuild")
    defer { try? FileManager.default.removeItem(at: dir) }
    let img = dir.appendingPathComponent("c.tif")
    try Data(TIFFBuilder.camera().build()).write(to: img)
    let side = dir.appendingPathComponent("c.xmp")
    try Data(
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"
         xmp:Rating="5" xmp:Label="Green" photoshop:City="Valloire" crs:Exposure2012="+0.50"><dc:subject><rdf:Bag><rdf:li>alps</rdf:li><rdf:li>snow</rdf:li></rdf:Bag></dc:subject>
        <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Col du Galibier</rdf:li></rdf:Alt></dc:description>
        <xmp:CreatorTool>ignored by the merge</xmp:CreatorTool></rdf:Description>
        </rdf:RDF></x:xmpmeta>
        """.utf8
    ).write(to: side)
    let packet = try Exiv2.buildXMP(from: img.path, sidecar: side.path)
    let fields = try MetadataReader.decodeXMP(packet, decoders: .inProcess).fields
    let s = MetadataSet(path: "xmp", format: "xmp", fields: fields)
    #expect(s["XMP-xmp:Rating"]?.value == .integers([5]))
    #expect(s["XMP-xmp:Label"]?.value == .text("Green"))
    #expect(s["XMP-dc:Subject"]?.value == .strings(["alps", "snow"]))
    #expect(s["XMP-dc:Description"]?.value == .text("Col du Galibier"))
    // Whatever else describes the photo moves too; the sidecar's own tool and the develop settings do not.
    #expect(s["XMP-photoshop:City"]?.value == .text("Valloire"))
    #expect(s["XMP-xmp:CreatorTool"] == nil)
    #expect(!fields.contains { $0.key.description.hasPrefix("XMP-crs:") })
    // No XMP anywhere: an empty packet.
    #expect(try Exiv2.buildXMP(from: img.path, sidecar: nil).isEmpty)
}

/// The shim's XMP builder and `Sidecar.route` (which the audit's source model and the convert's report use) agree on
/// every property of a Lightroom-style sidecar: exactly the `carried` ones reach the output.
@Test func sidecarRoutesAgreeWithTheXMPBuilder() throws {
    let dir = Repo.temporaryDirectory("readback-xmproutes")
    defer { try? FileManager.default.removeItem(at: dir) }
    let img = dir.appendingPathComponent("r.tif")
    try Data(TIFFBuilder.camera().build()).write(to: img)
    let side = dir.appendingPathComponent("r.xmp")
    try Data(
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
         xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
         xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
         xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:lr="http://ns.adobe.com/lightroom/1.0/"
         xmlns:darktable="http://darktable.sf.net/"
         xmp:CreatorTool="Lightroom" xmp:MetadataDate="2023-01-05T10:00:00" xmp:ModifyDate="2023-01-05T10:00:00"
         xmp:Rating="4" xmp:Label="Red" xmp:CreateDate="2019-06-20T10:00:00" xmpMM:DocumentID="xmp.did:1"
         xmpMM:InstanceID="xmp.iid:2" photoshop:City="Lyon" crs:Exposure2012="+0.50" crs:WhiteBalance="As Shot"
         tiff:Orientation="6" exif:PixelXDimension="6000" darktable:history_end="1">
        <dc:subject><rdf:Bag><rdf:li>cat</rdf:li></rdf:Bag></dc:subject>
        <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Garden</rdf:li></rdf:Alt></dc:title>
        <lr:hierarchicalSubject><rdf:Bag><rdf:li>animals|cat</rdf:li></rdf:Bag></lr:hierarchicalSubject>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8
    ).write(to: side)
    let packet = try Exiv2.buildXMP(from: img.path, sidecar: side.path)
    let out = Set(try Exiv2.decodeXMP(packet).entries.compactMap { Sidecar.property(ofKey: $0.key) })
    let sidecarKeys = try Exiv2.read(path: side.path).entries.filter { $0.family == .xmp }.map(\.key)
    var routes: [Sidecar.Route: Int] = [:]
    for key in sidecarKeys {
        let p = try #require(Sidecar.property(ofKey: key))
        let route = Sidecar.route(ofKey: key)
        routes[route, default: 0] += 1
        #expect(out.contains(p) == (route == .carried), "\(key): route \(route), in the output: \(out.contains(p))")
    }
    #expect(routes.count == 4, "every route exercised: \(routes)")
}

@Test func exifBlobBuilderCarriesValuesOverTheJPEGSegmentLimit() throws {
    // exiv2's ExifParser::encode keeps a blob under the 64 KB JPEG APP1 limit by cutting large values (docs/platform.md);
    // a HEIF Exif item has no such limit, so the builder encodes the TIFF whole and a 70 KB value survives intact.
    var b = TIFFBuilder.camera()
    let comment = Array("ASCII\0\0\0".utf8) + [UInt8](repeating: 0x41, count: 70_000)
    b.exif.append(.init(tag: 0x9286, value: .undefined(comment)))
    let url = try temporaryFile(b.build(), name: "big.tif")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let blob = try Exiv2.buildHEICExif(from: url.path, pixelWidth: 10, pixelHeight: 10, software: nil)
    #expect(blob.bytes.count > 70_000)
    #expect(blob.encodingLosses.isEmpty, "\(blob.encodingLosses)")
    let raw = try Exiv2.decodeExif(blob.bytes).entries.first { $0.key == "Exif.Photo.UserComment" }
    #expect(raw?.raw == comment)
}
