import Foundation
import HEIF
import Metadata
import MetadataIO
import Testing

/// The metadata reader takes a file for HEIF through the one brand sniffer (`Brands.isHEIF`): a file whose `ftyp`
/// names only Apple's `MiHE`, or only AV1's `avio` as a compatible brand, is read by the container layer.
@Test func metadataReaderReadsMiHEAndAvioFilesAsHEIF() throws {
    for brands in [Brands(major: "MiHE", compatible: ["MiHE", "miaf"]), Brands(major: "mp42", compatible: ["avio"])] {
        var b = HEIFBuilder(brands: brands)
        let p = b.addCodedImage(properties: [(.ispe(width: 64, height: 48), false)], data: [0, 0, 0, 1, 0x26])
        b.setPrimary(p)
        b.addExif(tiff: TIFFBuilder.camera(orientation: 6).build(), describing: [p])
        let url = try temporaryFile(b.build(), name: "brand.heic")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        #expect(Brands.isHEIF(Array(b.build().prefix(64))))
        let set = try MetadataReader.read(url, decoders: .inProcess)
        #expect(set.format == "heif", "\(brands.major)")
        #expect(set["IFD0:Make"]?.value == .text("Canon"), "\(brands.major)")
    }
}
