import ColorScience
import Foundation
import Metadata
import MetadataIO
import Testing

/// A MetadataSet from a TIFF blob decoded with exiv2 from memory (the same path HEIF Exif items take).
func metadataSet(_ b: TIFFBuilder, label: String, orientation: OrientationInfo = OrientationInfo()) throws
    -> MetadataSet
{
    let decoded = try MetadataReader.decodeExif(b.build(), label: label, decoders: .inProcess)
    return MetadataSet(
        path: label, format: "exif", fields: decoded.fields, makerNote: decoded.makerNote, orientation: orientation)
}

@Test func constructedBlobDecodesToTypedFields() throws {
    let s = try metadataSet(.camera(orientation: 6), label: "src")
    #expect(s["IFD0:Make"]?.value == .text("Canon"))
    #expect(s["IFD0:Orientation"]?.value == .integers([6]))
    #expect(s.orientation.exif == 6)
    #expect(s["ExifIFD:ExposureTime"]?.value == .rationals([Rational(1, 250)]))
    #expect(s["ExifIFD:ExposureCompensation"]?.value == .rationals([Rational(-1, 3)]))
    #expect(s["ExifIFD:ISO"]?.value == .integers([400]))
    #expect(s["ExifIFD:ExifVersion"]?.value == .text("0232"))
    #expect(s["ExifIFD:LensModel"]?.value == .text("RF50mm F1.8 STM"))  // trailing spaces normalised
    #expect(
        s["ExifIFD:DateTimeOriginal"]?.value
            == .dateTime(DateTimeValue(year: 2024, month: 5, day: 1, hour: 10, minute: 20, second: 30)))
    #expect(s["ExifIFD:DateTimeOriginal"]?.criticality == .critical)
    #expect(s["GPS:GPSVersionID"]?.value == .integers([2, 3, 0, 0]))
    let pos = try #require(s.gpsPosition)
    #expect(abs(pos.latitude - (48 + 51.0 / 60 + 29.64 / 3600)) < 1e-9)
    #expect(abs(pos.longitude - (2 + 17.0 / 60 + 40.2 / 3600)) < 1e-9)
}

@Test func bigEndianBlobDecodesTheSame() throws {
    let le = try metadataSet(.camera(bigEndian: false), label: "le")
    let be = try metadataSet(.camera(bigEndian: true), label: "be")
    #expect(le.fields.map(\.key) == be.fields.map(\.key))
    #expect(le.fields.map(\.value) == be.fields.map(\.value))
}

@Test func identicalPairIsAllKept() throws {
    let a = try metadataSet(.camera(), label: "a")
    let d = Diff.compare(source: a, output: a, policy: .standard)
    #expect(d.findings.isEmpty)
    #expect(d.entries.allSatisfy { $0.diffClass == .kept })
    #expect(d.count(.kept) == a.fields.count)
    #expect(!d.hasSeriousLoss)
}

@Test func gpsRemovedIsLost() throws {
    let src = try metadataSet(.camera(), label: "src")
    let out = try metadataSet(.camera(gps: false), label: "out")
    let d = Diff.compare(source: src, output: out, policy: .standard)
    let lat = try #require(d.entries.first { $0.key.description == "GPS:GPSLatitude" })
    #expect(lat.diffClass == .lost)
    #expect(lat.criticality == .critical)
    #expect(d.findings.contains { $0.code == .metadataLost && $0.key?.description == "GPS:GPSLongitude" })
    #expect(d.hasSeriousLoss)
}

@Test func dateTimeOriginalShiftedIsChanged() throws {
    let src = try metadataSet(.camera(), label: "src")
    let out = try metadataSet(.camera(dateTimeOriginal: "2024:05:01 11:20:30"), label: "out")
    let d = Diff.compare(source: src, output: out, policy: .standard)
    let e = try #require(d.entries.first { $0.key.description == "ExifIFD:DateTimeOriginal" })
    #expect(e.diffClass == .changed)
    #expect(e.source?.description == "2024:05:01 10:20:30")
    #expect(e.output?.description == "2024:05:01 11:20:30")
    #expect(d.findings.contains { $0.code == .metadataChanged && $0.criticality == .critical })
    #expect(d.count(.changed) == 1)
}

@Test func makerNoteDroppedIsKnownLoss() throws {
    // exiv2 0.27 has no Apple MakerNote decoder: the blob stays opaque and is recognised by its header.
    let src = try metadataSet(.camera(makerNote: TIFFBuilder.appleMakerNote, make: "Apple"), label: "src")
    let mn = try #require(src.makerNote)
    #expect(mn.vendor == "Apple")
    #expect(mn.recognisedBy == "header")
    #expect(mn.blob?.length == TIFFBuilder.appleMakerNote.count)
    let out = try metadataSet(.camera(make: "Apple"), label: "out")
    let d = Diff.compare(source: src, output: out, policy: .standard)
    let e = try #require(d.entries.first { $0.key.description == "MakerNotes:MakerNote" })
    #expect(e.diffClass == .knownLoss)
    #expect(d.findings.contains { $0.code == .metadataKnownLoss })
    #expect(!d.hasSeriousLoss)
    // Without the policy's known loss it is a plain loss.
    var strict = MetadataPolicy.standard
    strict.knownLossGroups = []
    let d2 = Diff.compare(source: src, output: out, policy: strict)
    #expect(d2.entries.first { $0.key.description == "MakerNotes:MakerNote" }?.diffClass == .lost)
    // Kept MakerNote under the standard policy: known-loss-not-happened.
    let d3 = Diff.compare(source: src, output: src, policy: .standard)
    #expect(d3.findings.map(\.code) == [.metadataKnownLossNotHappened])
}

@Test func orientationResetOnUprightOutputIsExpected() throws {
    let src = try metadataSet(.camera(orientation: 6), label: "src")
    let out = try metadataSet(
        .camera(orientation: 1), label: "out", orientation: OrientationInfo(heifTransform: 1, hasTransform: false))
    let d = Diff.compare(source: src, output: out, policy: .standard)
    let e = try #require(d.entries.first { $0.key.description == "IFD0:Orientation" })
    #expect(e.diffClass == .expectedChange)
    #expect(e.note == "pixels made upright")
    #expect(!d.findings.contains { $0.code == .orientationChanged || $0.code == .orientationDoubleRotation })
    // When the output is known not to be upright, the same pair changes the orientation.
    var p = MetadataPolicy.standard
    p.outputPixelsUpright = false
    let d2 = Diff.compare(source: src, output: out, policy: p)
    #expect(d2.findings.contains { $0.code == .orientationChanged })
}

@Test func irotWithExifOrientationSixIsDoubleRotation() throws {
    let src = try metadataSet(.camera(orientation: 6), label: "src")
    // irot 90° anticlockwise ×3 = the EXIF 6 transform, and Exif Orientation still 6: a pairing the source (a
    // TIFF with Exif 6 only) did not have. Only a reader applying both turns twice, so it is information; whether
    // a HEIF reader shows it right depends on the pixels, which the tags alone cannot tell.
    let out = try metadataSet(
        .camera(orientation: 6), label: "out", orientation: OrientationInfo(heifTransform: 6, hasTransform: true))
    let d = Diff.compare(source: src, output: out, policy: .standard)
    #expect(d.findings.contains { $0.code == .orientationDoubleRotation && $0.severity == .info })
    #expect(d.orientation.verdict == .unverified)
    #expect(!d.hasSeriousLoss)
    // With sizes: the source's coded raster is landscape; upright (portrait) pixels plus irot 6 are shown turned by
    // a HEIF reader.
    let so = OrientationInfo(exif: 6, codedWidth: 4000, codedHeight: 3000)
    let turned = try metadataSet(
        .camera(orientation: 6), label: "out",
        orientation: OrientationInfo(heifTransform: 6, hasTransform: true, codedWidth: 3000, codedHeight: 4000))
    let srcSized = try metadataSet(.camera(orientation: 6), label: "src", orientation: so)
    let d2 = Diff.compare(source: srcSized, output: turned, policy: .standard)
    #expect(d2.findings.contains { $0.code == .orientationChanged && $0.severity == .error })
    #expect(d2.orientation.transform == ExifOrientation(exif: 6))
    // The coded pixels kept (landscape) with irot 6: shown as the source.
    let kept = try metadataSet(
        .camera(orientation: 6), label: "out",
        orientation: OrientationInfo(heifTransform: 6, hasTransform: true, codedWidth: 4000, codedHeight: 3000))
    let d3 = Diff.compare(source: srcSized, output: kept, policy: .standard)
    #expect(d3.orientation.verdict == .kept)
    #expect(!d3.hasSeriousLoss)
}

@Test func normalisationRules() {
    #expect(MetadataValue.rationals([Rational(1, 100)]).matches(.rationals([Rational(10, 1000)])))
    #expect(MetadataValue.text("Canon\0\0\0").matches(.text("Canon  ")))
    #expect(!MetadataValue.text("Canon").matches(.text("Nikon")))
    #expect(MetadataValue.rationals([Rational(1, 3)]).matches(.reals([1.0 / 3]), relativeTolerance: 1e-9))
    #expect(
        DateTimeValue(parsing: "2024-05-01T10:20:30.25+02:00")
            == DateTimeValue(
                year: 2024, month: 5, day: 1, hour: 10, minute: 20, second: 30, subSecond: "25", offsetMinutes: 120))
    #expect(DateTimeValue(parsing: "    :  :     :  :  ") == nil)
    #expect(EntryDecoder.xmpCoordinate("48,51.494N").map { abs($0 - 48.858233) < 1e-5 } == true)
    #expect(EntryDecoder.xmpCoordinate("2,17,40.2W").map { abs($0 + 2.2945) < 1e-6 } == true)
}

@Test func gpsComparesAsACoordinateWithTolerance() throws {
    var a = TIFFBuilder.camera()
    var b = TIFFBuilder.camera()
    // Same latitude as degrees+decimal minutes instead of d/m/s: 51'29.64" = 51.494'.
    a.gps[2] = .init(tag: 0x0002, value: .rational([(48, 1), (51, 1), (2964, 100)]))
    b.gps[2] = .init(tag: 0x0002, value: .rational([(48, 1), (51494, 1000), (0, 1)]))
    let d = Diff.compare(
        source: try metadataSet(a, label: "a"), output: try metadataSet(b, label: "b"), policy: .standard)
    #expect(d.entries.first { $0.key.description == "GPS:GPSLatitude" }?.diffClass == .kept)
    b.gps[2] = .init(tag: 0x0002, value: .rational([(48, 1), (52, 1), (0, 1)]))
    let d2 = Diff.compare(
        source: try metadataSet(a, label: "a"), output: try metadataSet(b, label: "b"), policy: .standard)
    #expect(d2.entries.first { $0.key.description == "GPS:GPSLatitude" }?.diffClass == .changed)
}

@Test func badExifIsAnErrorNotACrash() {
    #expect(throws: MetadataReadError.self) {
        try MetadataReader.decodeExif([1, 2, 3], label: "junk", decoders: .inProcess)
    }
    // A valid header with a hostile IFD offset and count.
    let hostile: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0xFF, 0xFF] + [UInt8](repeating: 0xEE, count: 40)
    _ = try? MetadataReader.decodeExif(hostile, label: "hostile", decoders: .inProcess)
}

/// A value's text in a row or finding is its description cut to 160 characters, whether it is short or thousands of
/// numbers long (which are formatted only as far as they are shown).
@Test func valueTextIsTheDescriptionCut() {
    func cut(_ v: MetadataValue) -> String {
        let t = v.description
        return t.count > 160 ? String(t.prefix(157)) + "…" : t
    }
    let values: [MetadataValue] = [
        .reals((0..<5000).map { Double($0) / 7 }), .reals([0.5, 1.25]),
        .rationals((1..<3000).map { Rational(Int64($0), 3) }), .integers((0..<4000).map { Int64($0) * 1001 }),
        .integers([1, 2]), .strings((0..<500).map { "keyword \($0)" }), .text(String(repeating: "é", count: 400)),
        .reals([]),
    ]
    for v in values {
        #expect(Diff.text(v) == cut(v))
        #expect(v.description.hasPrefix(v.description(limit: 160)))
    }
    #expect(Diff.text(.reals((0..<5000).map { Double($0) / 7 }))?.count == 158)
}
