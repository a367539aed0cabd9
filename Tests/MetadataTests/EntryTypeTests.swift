import Exiv2Bridge
import Metadata
import Testing

/// exiv2's entries go to the decoder as they come (one entry type): the camera's Make and its Exif-IFD date are typed
/// from an Exif blob exiv2 decoded.
@Test func exiv2EntriesAreDecodedAsTheyCome() throws {
    let doc = try Exiv2.decodeExif(TIFFBuilder.camera(orientation: 6).build())
    #expect(doc.entries.contains { $0.family == .exif && $0.key == "Exif.Image.Make" })
    let fields = EntryDecoder.decode(doc.entries, littleEndian: doc.byteOrder != "MM").fields
    #expect(fields.first { $0.key.description == "IFD0:Make" }?.value == .text("Canon"))
    #expect(fields.contains { $0.key.description == "ExifIFD:DateTimeOriginal" })
}

/// exiv2's string form is made only where something reads it: a count-1 integer such as Orientation keeps it, as does
/// text of any length, while a value of over 64 components that is not text (a DNG colour table, printed number by
/// number through an ostream, was 20 ms of a small conversion) gets none; its bytes are complete, and the decoder
/// types it from them all the same.
@Test func longNumericValuesCarryTheirBytesButNoStringForm() throws {
    var b = TIFFBuilder.camera(orientation: 6)
    let table = (0..<200).map { (Int32($0) - 100, Int32(7)) }
    b.ifd0.append(TIFFBuilder.Entry(tag: 0xC621, value: .srational(table)))  // ColorMatrix1's tag, 200 values
    b.ifd0.append(TIFFBuilder.Entry(tag: 0xC614, value: .ascii(String(repeating: "long text ", count: 20))))
    b.ifd0.append(TIFFBuilder.Entry(tag: 0xC622, value: .srational(Array(table.prefix(64)))))
    let doc = try Exiv2.decodeExif(b.build())
    let long = try #require(doc.entries.first { $0.key == "Exif.Image.ColorMatrix1" })
    #expect(long.count == 200 && long.text.isEmpty && long.raw.count == 200 * 8)
    let atBound = try #require(doc.entries.first { $0.key == "Exif.Image.ColorMatrix2" })
    #expect(atBound.count == 64 && atBound.text.hasPrefix("-100/7 -99/7"))
    let name = try #require(doc.entries.first { $0.key == "Exif.Image.UniqueCameraModel" })
    #expect(name.text.hasPrefix("long text long text") && name.count == 201)
    #expect(doc.entries.first { $0.key == "Exif.Image.Orientation" }?.text == "6")
    let fields = EntryDecoder.decode(doc.entries, littleEndian: doc.byteOrder != "MM").fields
    let typed = try #require(fields.first { $0.key.description.hasSuffix("ColorMatrix1") })
    #expect(typed.value.description(limit: 40).hasPrefix("-14.28571429 -14.14285714"))
}
