import Exiv2Bridge
import FileContent
import FileFacts
import FileKinds
import Foundation
import HEIF
import Isolation
import Metadata

/// A file whose metadata could not be read: one line naming the file and the reason.
public struct MetadataReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// Set when a decoder's worker died, hung or ran out of memory reading the metadata (`DecodeFailure.worker`):
    /// the file then gets that `decode.*` verdict. Not compared.
    public var workerFailure: WorkerFailure?

    public init(path: String, reason: String, workerFailure: WorkerFailure? = nil) {
        self.workerFailure = workerFailure
        self.path = path
        var r = reason.split(whereSeparator: \.isNewline).joined(separator: "; ")
        // exiv2 sometimes names the file itself; name it once.
        if r.hasPrefix(path + ": ") { r = String(r.dropFirst(path.count + 2)) }
        self.reason = r
    }

    public var description: String { "\(path): \(reason)" }
}

/// Reads metadata from any file into the Metadata model.
///
/// RAW, JPEG, TIFF and `.xmp` files are read with exiv2 (`Exiv2.read`); HEIF/AVIF files are read through the
/// container layer, and their Exif and XMP items are decoded with exiv2 from memory. A sidecar next to the file
/// (`IMG_1.CR2.xmp` or `IMG_1.xmp`) is merged in: its XMP fields win over the file's own.
/// Safe to call from several threads at once (the exiv2 shim serialises XMP work).
public enum MetadataReader {
    /// Reads a file's metadata.
    /// - Parameters:
    ///   - url: the file.
    ///   - sidecars: merge an `.xmp` sidecar when one exists next to the file.
    /// - Returns: the typed fields, MakerNote summary and orientation.
    /// - Throws: `MetadataReadError` naming the file and the reason.
    ///   - decoders: the decoders the file's bytes go through.
    public static func read(_ url: URL, sidecars: Bool = true, decoders: any Decoders) throws(MetadataReadError)
        -> MetadataSet
    {
        try read(InputFile(reading: url, decoders: decoders), sidecars: sidecars)
    }

    /// Reads the metadata of a file already read and parsed (`InputFile`): nothing is read again but its sidecar.
    /// - Parameters:
    ///   - file: the file.
    ///   - sidecars: merge an `.xmp` sidecar when one exists next to the file.
    /// - Throws: `MetadataReadError` naming the file and the reason.
    public static func read(_ file: InputFile, sidecars: Bool = true) throws(MetadataReadError) -> MetadataSet {
        let url = file.url
        let path = url.path
        guard let bytes = file.bytes else {
            throw file.readError ?? MetadataReadError(path: path, reason: "cannot open for reading")
        }
        guard !bytes.isEmpty else { throw MetadataReadError(path: path, reason: "empty file") }

        var set: MetadataSet
        if let heif = file.heif {
            set = try HEIFMetadataReader.read(heif, path: path, decoders: file.decoders)
        } else {
            switch file.exiv2 {
            case .success(let doc)?: set = fromExiv2(doc, path: path, bytes: bytes, decoders: file.decoders)
            case .failure(let error)?:
                throw MetadataReadError(path: path, reason: error.message, workerFailure: error.workerFailure)
            case nil: throw MetadataReadError(path: path, reason: "not read")
            }
        }
        if sidecars, url.pathExtension.lowercased() != FileKinds.sidecar, let side = sidecar(for: url) {
            do {
                let doc = try file.decoders.exiv2Sidecar(side)
                // Only what the sidecar says of the photo (the converter's rule, `Sidecar.route`): not the Exif and
                // IPTC exiv2 derives from its XMP on reading, which no file holds, nor the sidecar's own record.
                let decoded = EntryDecoder.decode(
                    doc.entries.filter { $0.family == .xmp && Sidecar.route(ofKey: $0.key) == .carried })
                set = merging(sidecar: decoded.fields, into: set)
                set.notes.append("sidecar: \(side.lastPathComponent)")
            } catch {
                set.notes.append("sidecar \(side.lastPathComponent) unreadable: \(error.message)")
            }
        }
        return set
    }

    /// Reads a file's metadata by path (see `read(_:sidecars:)`).
    public static func read(path: String, sidecars: Bool = true, decoders: any Decoders) throws(MetadataReadError)
        -> MetadataSet
    {
        try read(URL(fileURLWithPath: path), sidecars: sidecars, decoders: decoders)
    }

    /// The `.xmp` sidecar of a file, trying `IMG_1.CR2.xmp` then `IMG_1.xmp` (either case of the extension).
    public static func sidecar(for url: URL) -> URL? { Sidecar.locate(for: url) }

    /// A file's or sidecar's XMP as exiv2 keys and text values (`Xmp.crs.Exposure2012` → "+0.50"), nil when it
    /// cannot be read.
    public static func xmpEntries(_ url: URL, decoders: any Decoders) -> [(key: String, text: String)]? {
        xmpAndOrientation(url, decoders: decoders)?.xmp
    }

    /// A file's XMP entries (as `xmpEntries`) and its IFD0 Exif Orientation (`IFD0:Orientation`), from one exiv2
    /// read; nil when the file cannot be read.
    public static func xmpAndOrientation(_ url: URL, decoders: any Decoders) -> (
        xmp: [(key: String, text: String)], orientation: Int?
    )? {
        guard let bytes = try? FileContent.read(path: url.path),
            let doc = try? decoders.exiv2(bytes: bytes, label: url.path)
        else { return nil }
        return xmpAndOrientation(doc)
    }

    /// `xmpAndOrientation(_:)` of a file already read: exiv2's reading of it, or for a HEIF file exiv2's reading of
    /// its bytes in memory; nil when exiv2 cannot read it.
    public static func xmpAndOrientation(_ file: InputFile) -> (xmp: [(key: String, text: String)], orientation: Int?)?
    {
        switch file.exiv2 {
        case .success(let doc)?: return xmpAndOrientation(doc)
        case .failure?: return nil
        case nil:
            guard let bytes = file.bytes, let doc = try? file.decoders.exiv2(bytes: bytes, label: file.path) else {
                return nil
            }
            return xmpAndOrientation(doc)
        }
    }

    static func xmpAndOrientation(_ doc: Exiv2Document) -> (xmp: [(key: String, text: String)], orientation: Int?) {
        let o = doc.entries.first { $0.key == "Exif.Image.Orientation" && $0.raw.count >= 2 }
        return (
            doc.entries.filter { $0.family == .xmp }.map { ($0.key, $0.text) },
            o.map { Int($0.raw[0]) << 8 | Int($0.raw[1]) }
        )
    }

    /// Fields from a bare Exif TIFF blob ("II*\0"/"MM\0*", optionally after "Exif\0\0").
    /// - Throws: `MetadataReadError` with `label` as the path.
    public static func decodeExif(_ bytes: [UInt8], label: String = "<exif>", decoders: any Decoders)
        throws(MetadataReadError) -> EntryDecoder.Decoded
    {
        do {
            let doc = try decoders.exiv2Exif(bytes)
            return EntryDecoder.decode(doc.entries, littleEndian: doc.byteOrder != "MM")
        } catch {
            throw MetadataReadError(path: label, reason: "Exif: \(error.message)", workerFailure: error.workerFailure)
        }
    }

    /// Fields from an XMP packet.
    /// - Throws: `MetadataReadError` with `label` as the path.
    public static func decodeXMP(_ bytes: [UInt8], label: String = "<xmp>", decoders: any Decoders)
        throws(MetadataReadError) -> EntryDecoder.Decoded
    {
        do {
            let doc = try decoders.exiv2XMP(bytes)
            return EntryDecoder.decode(doc.entries)
        } catch {
            throw MetadataReadError(path: label, reason: "XMP: \(error.message)", workerFailure: error.workerFailure)
        }
    }

    // MARK: internals

    /// The metadata of a file exiv2 read (`bytes`: the file, for its JPEG frame size).
    static func fromExiv2(_ doc: Exiv2Document, path: String, bytes: [UInt8], decoders: any Decoders) -> MetadataSet {
        let decoded = EntryDecoder.decode(doc.entries, littleEndian: doc.byteOrder != "MM")
        var fields = decoded.fields
        // RW2 keeps its Exif IFD in the embedded JPEG (PanasonicRaw 0x002E, exiftool's JpgFromRaw); exiv2's RW2
        // reader drops part of it, so read the JPEG's Exif ourselves and add the Exif-IFD fields that are missing.
        if let preview = doc.entries.first(where: { $0.group == "PanasonicRaw" && $0.tag == 0x002E }),
            let at = exifStart(inJPEG: preview.raw),
            let extra = try? decodeExif(Array(preview.raw[at...]), label: path, decoders: decoders)
        {
            let have = Set(fields.map(\.key))
            fields += extra.fields.filter { $0.key.group == "ExifIFD" && !have.contains($0.key) }
        }
        let frame = JPEGFrame.size(bytes)
        return MetadataSet(
            path: path, format: doc.mimeType, fields: fields, makerNote: decoded.makerNote,
            orientation: OrientationInfo(codedWidth: frame?.width, codedHeight: frame?.height), notes: doc.warnings)
    }

    /// Where the TIFF header of a JPEG's Exif APP1 starts ("Exif\0\0" then "II"/"MM"), within the first MB.
    static func exifStart(inJPEG b: [UInt8]) -> Int? {
        let sig: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        let limit = min(b.count, 1 << 20)
        var i = 0
        while i + 10 <= limit {
            if b[i] == 0x45, Array(b[i..<(i + 6)]) == sig,
                (b[i + 6] == 0x49 && b[i + 7] == 0x49) || (b[i + 6] == 0x4D && b[i + 7] == 0x4D)
            {
                return i + 6
            }
            i += 1
        }
        return nil
    }

    /// Sidecar XMP fields win over the file's own XMP fields of the same key.
    static func merging(sidecar: [Field], into set: MetadataSet) -> MetadataSet {
        let sideKeys = Set(sidecar.map(\.key))
        var out = MetadataSet(
            path: set.path, format: set.format, fields: set.fields.filter { !sideKeys.contains($0.key) } + sidecar,
            makerNote: set.makerNote, orientation: set.orientation, notes: set.notes)
        out.orientation = set.orientation
        return out
    }
}
