import HEIF
import Testing

/// An `ftyp` box: size, type, major brand, minor version 0, compatible brands.
func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
    let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
    let size = 8 + body.count
    return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        + Array("ftyp".utf8) + body
}

/// The one HEIF brand sniffer: every HEIF-family brand as the major brand or a compatible one, Apple's `MiHE` and
/// AV1's `avio` included; a CR3, an MP4 or bytes without `ftyp` are not HEIF, and a brand after the box is not one of
/// its brands.
@Test func brandSnifferAcceptsTheHEIFFamilyOnly() {
    for brand in ["heic", "heix", "mif1", "mif2", "msf1", "avif", "avis", "avio", "miaf", "MiHE", "MiHB"] {
        #expect(Brands.isHEIF(ftyp(brand, [])), "major \(brand)")
        #expect(Brands.isHEIF(ftyp("mp42", ["isom", brand])), "compatible \(brand)")
        #expect(Brands.isHEIF(Array(ftyp(brand, ["isom"]).prefix(12))), "the first 12 bytes, major \(brand)")
    }
    #expect(!Brands.isHEIF(ftyp("crx ", ["crx ", "isom", "heic"])))
    #expect(!Brands.isHEIF(ftyp("mp42", ["isom", "mp41"])))
    #expect(!Brands.isHEIF(ftyp("mp42", ["isom"]) + Array("....mif1".utf8)))
    #expect(!Brands.isHEIF(Array(ftyp("mp42", ["heic"]).prefix(12))))
    #expect(!Brands.isHEIF([0xFF, 0xD8, 0xFF, 0xE1] + [UInt8](repeating: 0, count: 20)))
    #expect(!Brands.isHEIF(Array(ftyp("heic", []).prefix(11))))
}
