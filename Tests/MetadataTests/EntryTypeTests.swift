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
