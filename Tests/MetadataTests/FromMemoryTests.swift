import Exiv2Bridge
import Foundation
import MetadataIO
import TestSupport
import Testing

/// exiv2 reading a file's bytes from memory (`Exiv2.read(bytes:label:previews:)`, the shim's
/// `ImageFactory::open(const byte*, long)`) finds what it finds opening the file by path: every entry, the MIME type,
/// the byte order, the previews; and the converter's one-parse builders give the same Exif and XMP as the by-path
/// builders. Corpus files: the DNGs of the generated corpus (Exif, GPS, XMP, MakerNote, previews) and a HEIC.
@Suite struct FromMemoryTests {
    static let files = [
        "dng/chart-rggb-14bit-o5.dng", "dng/chart-sdr-rggb-14bit-o1.dng", "dng/linear-16bit-o6.dng", "heic/good.heic",
    ]

    @Test(arguments: files)
    func exiv2ReadsTheSameFromMemoryAsFromThePath(_ rel: String) throws {
        let path = Repo.root.appendingPathComponent("Corpus/\(rel)").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let byPath = try Exiv2.read(path: path)
        let inMemory = try Exiv2.read(bytes: bytes, label: path, previews: true)
        #expect(inMemory.entries == byPath.entries)
        #expect(!inMemory.entries.isEmpty)
        #expect(inMemory.mimeType == byPath.mimeType && inMemory.byteOrder == byPath.byteOrder)
        #expect(inMemory.previews == (try Exiv2.previews(path: path)))
        #expect(rel.hasSuffix(".heic") || inMemory.previews.contains { !$0.data.isEmpty }, "a DNG's previews")
        #expect(try Exiv2.read(bytes: bytes, label: path).previews.isEmpty, "previews only when asked for")
    }

    @Test func theMetadataReaderReadsTheSameFromAnInputFileAsFromThePath() throws {
        for rel in Self.files {
            let url = Repo.root.appendingPathComponent("Corpus/\(rel)")
            let a = try MetadataReader.read(url, decoders: .inProcess)
            let b = try MetadataReader.read(
                InputFile(url: url, bytes: [UInt8](try Data(contentsOf: url)), decoders: .inProcess))
            #expect(a.fields == b.fields && a.format == b.format && a.orientation == b.orientation, "\(rel)")
        }
    }

    @Test(arguments: files.filter { $0.hasSuffix(".dng") })
    func oneParseBuildsTheSameExifAndXMPAsTheByPathBuilders(_ rel: String) throws {
        let path = Repo.root.appendingPathComponent("Corpus/\(rel)").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let built = Exiv2.buildHEICMetadata(
            bytes: bytes, label: path, pixelWidth: 640, pixelHeight: 480, software: "Readback test", sidecar: nil)
        let exif = try Exiv2.buildHEICExif(from: path, pixelWidth: 640, pixelHeight: 480, software: "Readback test")
        #expect(try built.exif.get().bytes == exif.bytes)
        #expect(try built.exif.get().encodingLosses == exif.encodingLosses)
        #expect(
            try built.xmp.get() == (try Exiv2.buildXMP(from: path, sidecar: nil, pixelWidth: 640, pixelHeight: 480)))
    }

    /// From memory as from the path: an unknown format is named as the file's, with exiv2's words for a file.
    @Test func anUnknownFormatFromMemoryReadsAsForTheFile() throws {
        let dir = Repo.temporaryDirectory("readback-exiv2-memory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("x.raw")
        let bytes = Array("not an image at all, not even close\n".utf8)
        try Data(bytes).write(to: url)
        var fromPath = ""
        var fromMemory = ""
        do { _ = try Exiv2.read(path: url.path) } catch { fromPath = error.message }
        do { _ = try Exiv2.read(bytes: bytes, label: url.path) } catch { fromMemory = error.message }
        #expect(!fromPath.isEmpty && fromMemory == fromPath, "\(fromMemory) vs \(fromPath)")
    }
}
