import Exiv2Bridge
import Foundation
import Metadata

/// HEIF/AVIF metadata. Until the container layer (module HEIF) lands, this reads through exiv2's own BMFF
/// support (Exiv2::enableBMFF) and reports no irot/imir transform; see the note added to each result.
enum HEIFMetadataReader {
    static func read(path: String) throws(MetadataReadError) -> MetadataSet {
        var set = try MetadataIO.readWithExiv2(path: path)
        set.format = "heif"
        set.notes.append("read with exiv2 BMFF (container layer not yet wired in): irot/imir not read")
        return set
    }
}
