import Exiv2Bridge
import Foundation
import HEIF
import Isolation
import Metadata

/// HEIF/AVIF metadata: the container layer finds the Exif and XMP items of the primary image (its `cdsc`
/// references, ISO/IEC 23008-12 §8.11.1 and Annex A.2) and exiv2 decodes their bytes from memory. exiv2's own
/// BMFF reading is not used: it disagrees with other readers on some files (Exiv2#2162). Orientation comes from
/// the primary's `irot`/`imir` (authoritative in HEIF) plus the Exif Orientation.
enum HEIFMetadataReader {
    /// - Parameters:
    ///   - file: the container, parsed once by the caller.
    ///   - path: the file's path, named in messages.
    ///   - decoders: the decoders the items' bytes go through.
    static func read(_ file: HEIFFile, path: String, decoders: any Decoders) throws(MetadataReadError) -> MetadataSet {
        guard let primary = file.primaryItemID, file.item(primary) != nil else {
            let why = file.findings.first { $0.severity == .error }.map { "\($0.code): \($0.message)" }
            throw MetadataReadError(
                path: path, reason: "not a readable HEIF file (no primary item" + (why.map { "; \($0)" } ?? "") + ")")
        }
        var notes: [String] = []
        var fields: [Field] = []
        var makerNote: MakerNoteInfo? = nil

        // The Exif and XMP items that describe the primary, then those that describe no item at all. Items that
        // describe another image (a second top-level image's Exif, a gain map's XMP) are not the photo's metadata:
        // merging them let a second image's GPS stand in for the primary's lost GPS. The first value of a field wins.
        let described = Set(file.metadataItems(describing: primary))
        func pick(_ all: [UInt32]) -> [UInt32] {
            all.filter { described.contains($0) } + all.filter { file.described(by: $0).isEmpty }
        }
        for id in pick(file.exifItems) {
            guard let tiff = file.exifTIFF(of: id) else {
                notes.append("Exif item \(id): no TIFF header found in its payload")
                continue
            }
            do {
                let d = try MetadataReader.decodeExif(tiff, label: path, decoders: decoders)
                fields += d.fields
                if makerNote == nil { makerNote = d.makerNote }
            } catch {
                if error.workerFailure != nil { throw error }  // a dead decoder is the file's verdict, not a note
                notes.append("Exif item \(id): \(error.reason)")
            }
        }
        for id in pick(file.xmpItems) {
            guard let packet = file.xmp(of: id) else {
                notes.append("XMP item \(id): no payload")
                continue
            }
            do {
                fields += try MetadataReader.decodeXMP(packet, label: path, decoders: decoders).fields
            } catch {
                if error.workerFailure != nil { throw error }
                notes.append("XMP item \(id): \(error.reason)")
            }
        }
        let hasTransform = file.properties(of: primary).contains {
            switch $0.property {
            case .irot, .imir: return true
            default: return false
            }
        }
        let coded = file.codedShownSize(of: primary)
        let orientation = OrientationInfo(
            exif: nil, heifTransform: file.orientation(of: primary).exif, hasTransform: hasTransform,
            codedWidth: coded?.width, codedHeight: coded?.height)
        let brand = file.brands.map { "\($0.major)" } ?? "?"
        return MetadataSet(
            path: path, format: brand == "avif" || brand == "avis" ? "avif" : "heif", fields: fields,
            makerNote: makerNote, orientation: orientation, notes: notes)
    }
}
