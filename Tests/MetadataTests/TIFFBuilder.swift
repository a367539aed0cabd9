/// Builds tiny Exif TIFF blobs (TIFF 6.0 §2 structure; CIPA DC-008 IFD layout) for tests, little or big endian.
struct TIFFBuilder {
    enum Value {
        case ascii(String)
        case short([UInt16])
        case long([UInt32])
        case rational([(UInt32, UInt32)])
        case srational([(Int32, Int32)])
        case undefined([UInt8])
        case byte([UInt8])
    }
    struct Entry {
        let tag: UInt16
        let value: Value
    }

    var ifd0: [Entry] = []
    var exif: [Entry] = []
    var gps: [Entry] = []
    var bigEndian = false

    private func u16(_ v: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
    private func u32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        return bigEndian ? b : b.reversed()
    }

    private func encode(_ v: Value) -> (type: UInt16, count: UInt32, bytes: [UInt8]) {
        switch v {
        case .ascii(let s):
            let b = Array(s.utf8) + [0]
            return (2, UInt32(b.count), b)
        case .short(let a): return (3, UInt32(a.count), a.flatMap { u16($0) })
        case .long(let a): return (4, UInt32(a.count), a.flatMap { u32($0) })
        case .rational(let a): return (5, UInt32(a.count), a.flatMap { u32($0.0) + u32($0.1) })
        case .srational(let a):
            return (10, UInt32(a.count), a.flatMap { u32(UInt32(bitPattern: $0.0)) + u32(UInt32(bitPattern: $0.1)) })
        case .undefined(let b): return (7, UInt32(b.count), b)
        case .byte(let b): return (1, UInt32(b.count), b)
        }
    }

    /// Writes one IFD at `offset`; returns its bytes (entries, next-IFD 0, then out-of-line values).
    private func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var head = u16(UInt16(sorted.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + sorted.count * 12 + 4
        for e in sorted {
            let (type, count, bytes) = encode(e.value)
            head += u16(e.tag) + u16(type) + u32(count)
            if bytes.count <= 4 {
                head += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                head += u32(UInt32(dataStart + data.count))
                data += bytes
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        head += u32(0)
        return head + data
    }

    /// The TIFF bytes: header, IFD0 (with ExifIFD/GPS pointers when those IFDs are non-empty), Exif IFD, GPS IFD.
    func build() -> [UInt8] {
        var root = ifd0
        // Pointers are patched in after the sizes are known; reserve the entries first.
        if !exif.isEmpty { root.append(Entry(tag: 0x8769, value: .long([0]))) }
        if !gps.isEmpty { root.append(Entry(tag: 0x8825, value: .long([0]))) }
        let header: [UInt8] = (bigEndian ? [0x4D, 0x4D, 0, 0x2A] : [0x49, 0x49, 0x2A, 0]) + u32(8)
        let size0 = ifd(root, at: 8).count
        let exifOffset = 8 + size0
        let exifBytes = exif.isEmpty ? [] : ifd(exif, at: exifOffset)
        let gpsOffset = exifOffset + exifBytes.count
        let gpsBytes = gps.isEmpty ? [] : ifd(gps, at: gpsOffset)
        root = root.map { e in
            if e.tag == 0x8769 { return Entry(tag: e.tag, value: .long([UInt32(exifOffset)])) }
            if e.tag == 0x8825 { return Entry(tag: e.tag, value: .long([UInt32(gpsOffset)])) }
            return e
        }
        return header + ifd(root, at: 8) + exifBytes + gpsBytes
    }

    /// A typical camera source: Make/Model/Orientation, capture time, exposure, GPS, optional MakerNote.
    static func camera(
        orientation: UInt16 = 1, dateTimeOriginal: String = "2024:05:01 10:20:30", gps: Bool = true,
        makerNote: [UInt8]? = nil, bigEndian: Bool = false, make: String = "Canon"
    ) -> TIFFBuilder {
        var b = TIFFBuilder()
        b.bigEndian = bigEndian
        b.ifd0 = [
            Entry(tag: 0x010F, value: .ascii(make)),
            Entry(tag: 0x0110, value: .ascii("Canon EOS R6")),
            Entry(tag: 0x0112, value: .short([orientation])),
            Entry(tag: 0x0131, value: .ascii("Firmware 1.0")),
            Entry(tag: 0x011A, value: .rational([(300, 1)])),
        ]
        b.exif = [
            Entry(tag: 0x829A, value: .rational([(1, 250)])),
            Entry(tag: 0x829D, value: .rational([(28, 10)])),
            Entry(tag: 0x8827, value: .short([400])),
            Entry(tag: 0x9000, value: .undefined(Array("0232".utf8))),
            Entry(tag: 0x9003, value: .ascii(dateTimeOriginal)),
            Entry(tag: 0x9011, value: .ascii("+02:00")),
            Entry(tag: 0x9204, value: .srational([(-1, 3)])),
            Entry(tag: 0x920A, value: .rational([(50, 1)])),
            Entry(tag: 0xA434, value: .ascii("RF50mm F1.8 STM   ")),
        ]
        if let makerNote { b.exif.append(Entry(tag: 0x927C, value: .undefined(makerNote))) }
        if gps {
            b.gps = [
                Entry(tag: 0x0000, value: .byte([2, 3, 0, 0])),
                Entry(tag: 0x0001, value: .ascii("N")),
                Entry(tag: 0x0002, value: .rational([(48, 1), (51, 1), (2964, 100)])),
                Entry(tag: 0x0003, value: .ascii("E")),
                Entry(tag: 0x0004, value: .rational([(2, 1), (17, 1), (4020, 100)])),
                Entry(tag: 0x0006, value: .rational([(3500, 100)])),
            ]
        }
        return b
    }

    /// An Apple-style MakerNote: "Apple iOS\0" 00 01 "MM" and a one-entry big-endian IFD (exiv2 keeps it opaque).
    static let appleMakerNote: [UInt8] =
        Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)
        + [0, 1, 0, 0x21, 0, 10, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0] + [0, 0, 0, 3, 0, 0, 0, 2]
}
