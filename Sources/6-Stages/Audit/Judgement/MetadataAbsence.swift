/// A source with no metadata container at all, told apart from one whose metadata cannot be read.
///
/// LibRaw identifies some RAWs by their size alone (headerless sensor dumps of Kodak, Nokia, AVT and other cameras):
/// such a file holds pixels and nothing else, so converting it loses nothing. exiv2 then finds no image type it
/// knows ("unknown image type"). That alone is not enough: exiv2 does not know every RAW format that does hold
/// metadata (Sigma's X3F), so the bytes themselves must show none of the containers Exif, XMP and MakerNotes
/// travel in: no TIFF header at the start, no "Exif" APP1 or ISOBMFF Exif item, no XMP packet.
enum MetadataAbsence {
    /// exiv2's words for bytes of no format it knows (`kerMemoryContainsUnknownImageType`,
    /// `kerFileContainsUnknownImageType`).
    static let unknownType = "unknown image type"

    /// Whether `bytes`, which exiv2 could not read for `readError`, hold no metadata container.
    static func holdsNone(_ bytes: [UInt8], readError: String) -> Bool {
        guard readError.contains(unknownType), bytes.count >= 8 else { return false }
        let tiff: [[UInt8]] = [Array("II*\0".utf8), Array("MM\0*".utf8)]
        if tiff.contains(where: { bytes.starts(with: $0) }) { return false }
        let markers = ["Exif\0", "<x:xmpmeta", "http://ns.adobe.com/xap/1.0/", "<?xpacket", "ftyp", "FOVb", "FUJIFILM"]
        return !markers.contains { contains(bytes, Array($0.utf8)) }
    }

    /// Whether `needle` occurs in `haystack` (a plain scan: the files it runs on are the rare ones exiv2 refuses).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
