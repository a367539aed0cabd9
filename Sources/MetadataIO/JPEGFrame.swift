import Foundation

/// The coded size of a JPEG from its first frame header (SOF0–SOF15 but DHT/JPG/DAC, ITU-T T.81 §B.2.2), read by
/// walking the marker segments from the start of the file without reading their bodies.
enum JPEGFrame {
    /// Width and height, nil when the file is not a JPEG or no frame header is found before the scan.
    static func size(path: String) -> (width: Int, height: Int)? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        func read(_ n: Int) -> [UInt8]? {
            guard let d = try? h.read(upToCount: n), d.count == n else { return nil }
            return [UInt8](d)
        }
        guard let soi = read(2), soi == [0xFF, 0xD8] else { return nil }
        var offset: UInt64 = 2
        for _ in 0..<4096 {
            guard let m = read(4), m[0] == 0xFF else { return nil }
            let marker = m[1]
            let length = Int(m[2]) << 8 | Int(m[3])
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                guard let f = read(5) else { return nil }
                let height = Int(f[1]) << 8 | Int(f[2])
                let width = Int(f[3]) << 8 | Int(f[4])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            if marker == 0xDA { return nil }
            offset += 2 + UInt64(length)
            guard (try? h.seek(toOffset: offset)) != nil else { return nil }
        }
        return nil
    }
}
