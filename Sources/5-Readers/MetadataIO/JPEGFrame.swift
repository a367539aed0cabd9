import Foundation

/// The coded size of a JPEG from its first frame header (SOF0–SOF15 but DHT/JPG/DAC, ITU-T T.81 §B.2.2), read by
/// walking the marker segments from the start of the file's bytes (already in memory) without reading their bodies.
enum JPEGFrame {
    /// Width and height, nil when the bytes are not a JPEG or no frame header is found before the scan.
    static func size(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var offset = 0
        func read(_ n: Int) -> ArraySlice<UInt8>? {
            guard offset >= 0, n <= b.count - offset else { return nil }
            defer { offset += n }
            return b[offset..<(offset + n)]
        }
        guard let soi = read(2), soi.elementsEqual([0xFF, 0xD8]) else { return nil }
        for _ in 0..<4096 {
            let start = offset
            guard let m = read(4).map(Array.init), m[0] == 0xFF else { return nil }
            let marker = m[1]
            let length = Int(m[2]) << 8 | Int(m[3])
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                guard let f = read(5).map(Array.init) else { return nil }
                let height = Int(f[1]) << 8 | Int(f[2])
                let width = Int(f[3]) << 8 | Int(f[4])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            if marker == 0xDA { return nil }
            offset = start + 2 + length
        }
        return nil
    }
}
