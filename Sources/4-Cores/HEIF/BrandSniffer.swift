/// The one HEIF brand sniffer: which files the auditor, the metadata reader and the checks treat as HEIF-family
/// containers, by their first bytes alone.
extension Brands {
    /// The brands of the HEIF family (ISO/IEC 23008-12 §10 and Annex B for HEVC, `mif1`/`mif2`/`msf1` for any coding,
    /// `avif`/`avis`/`avio` of AV1 in HEIF, `miaf` of MIAF, and Apple's `MiHE`/`MiHB`).
    public static let heifFamily: Set<String> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "mif2", "msf1", "avif", "avis", "avio", "miaf", "MiHE",
        "MiHB",
    ]

    /// True when `bytes` start with an ISOBMFF `ftyp` box (ISO/IEC 14496-12 §4.3) whose major brand, or one of its
    /// compatible brands, is of the HEIF family. A Canon CR3 (major brand `crx `) is never one, whatever else it
    /// lists. Only the bytes given are read: with the first 12, the major brand decides; the compatible brands are
    /// read as far as the box and the bytes go (at most 4 KiB).
    public static func isHEIF(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        let b = Array(bytes.prefix(4096))
        guard b.count >= 12, b[4] == 0x66, b[5] == 0x74, b[6] == 0x79, b[7] == 0x70 else { return false }
        let major = String(decoding: b[8..<12], as: UTF8.self)
        if major == "crx " { return false }
        if heifFamily.contains(major) { return true }
        // Compatible brands follow the minor version (offset 12); the box's 32-bit size bounds them.
        let size = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(16, size))
        return stride(from: 16, to: end - 3, by: 4).contains {
            heifFamily.contains(String(decoding: b[$0..<($0 + 4)], as: UTF8.self))
        }
    }
}
