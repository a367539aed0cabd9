import Foundation

/// Baseline JPEG encoder (ITU-T T.81 §F sequential DCT, Huffman, 8-bit; JFIF YCbCr), for the previews the corpus's
/// DNGs embed the way cameras do. Pure Swift and fully deterministic (no library whose version could change a byte
/// of the committed corpus): 4:4:4, the Annex K luminance quantisation table scaled by quality (IJG's formula) for
/// all three components, and the Annex K luminance DC and AC Huffman tables (each holds every symbol).
public enum BaselineJPEG {
    /// Encodes interleaved 8-bit RGB.
    /// - Parameters:
    ///   - rgb: `width × height × 3` samples.
    ///   - quality: 1…100.
    /// - Returns: a JFIF stream (SOI … EOI).
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int = 90) -> [UInt8] {
        precondition(width > 0 && height > 0 && width < 65536 && height < 65536 && rgb.count == width * height * 3)
        let q = quantisation(quality)
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
            out += body
        }
        segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        segment(0xDB, [0] + zigzag.map { UInt8(q[$0]) })
        var sof: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
        for c in 1...3 { sof += [UInt8(c), 0x11, 0] }
        segment(0xC0, sof)
        segment(0xC4, [0x00] + dcBits + dcValues)
        segment(0xC4, [0x10] + acBits + acValues)
        segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])
        var w = JPEGBitWriter()
        let dc = codes(dcBits, dcValues)
        let ac = codes(acBits, acValues)
        var previous = [0, 0, 0]
        var block = [Double](repeating: 0, count: 64)
        for by in stride(from: 0, to: height, by: 8) {
            for bx in stride(from: 0, to: width, by: 8) {
                for c in 0..<3 {
                    for y in 0..<8 {
                        for x in 0..<8 {
                            // Edge blocks repeat the last row and column.
                            let i = 3 * (min(by + y, height - 1) * width + min(bx + x, width - 1))
                            let (r, g, b) = (Double(rgb[i]), Double(rgb[i + 1]), Double(rgb[i + 2]))
                            let v: Double
                            switch c {
                            case 0: v = 0.299 * r + 0.587 * g + 0.114 * b
                            case 1: v = -0.168736 * r - 0.331264 * g + 0.5 * b + 128
                            default: v = 0.5 * r - 0.418688 * g - 0.081312 * b + 128
                            }
                            block[8 * y + x] = v - 128
                        }
                    }
                    let coefficients = quantised(dct(block), q)
                    let diff = coefficients[0] - previous[c]
                    previous[c] = coefficients[0]
                    let s = category(diff)
                    w.put(dc[s])
                    w.put(bits(diff, s), s)
                    var run = 0
                    for k in 1..<64 {
                        let v = coefficients[zigzag[k]]
                        if v == 0 {
                            run += 1
                            continue
                        }
                        while run > 15 {
                            w.put(ac[0xF0])
                            run -= 16
                        }
                        let size = category(v)
                        w.put(ac[(run << 4) | size])
                        w.put(bits(v, size), size)
                        run = 0
                    }
                    if run > 0 { w.put(ac[0x00]) }
                }
            }
        }
        w.flush()
        out += w.bytes
        out += [0xFF, 0xD9]
        return out
    }

    /// Natural-order index of the k-th coefficient in zigzag order (T.81 Figure A.6).
    static let zigzag: [Int] = {
        var order: [Int] = []
        for s in 0..<15 {
            let cells = (0..<8).compactMap { i -> Int? in
                let j = s - i
                return j >= 0 && j < 8 ? i : nil
            }
            // Even diagonals run up-right (row decreasing), odd ones down-left.
            for i in (s % 2 == 0 ? cells.reversed() : cells) { order.append(8 * i + (s - i)) }
        }
        return order
    }()

    /// T.81 Table K.1 (luminance), natural order.
    static let luminanceTable: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
        51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121,
        120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// The table scaled by quality as the IJG library does (50 = the table itself).
    static func quantisation(_ quality: Int) -> [Int] {
        let q = min(max(quality, 1), 100)
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        return luminanceTable.map { min(255, max(1, ($0 * scale + 50) / 100)) }
    }

    /// T.81 Table K.3 and K.5: the luminance DC and AC Huffman tables (code counts per length, symbols).
    static let dcBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    static let dcValues: [UInt8] = Array(0...11)
    static let acBits: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    static let acValues: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
        0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72,
        0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35, 0x36, 0x37,
        0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
        0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83,
        0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3,
        0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
        0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA,
    ]

    /// Canonical Huffman codes (T.81 Annex C) by symbol: (code, length).
    static func codes(_ bits: [UInt8], _ values: [UInt8]) -> [Int: (UInt32, Int)] {
        var out: [Int: (UInt32, Int)] = [:]
        var code: UInt32 = 0
        var k = 0
        for len in 1...16 {
            for _ in 0..<Int(bits[len - 1]) {
                out[Int(values[k])] = (code, len)
                code += 1
                k += 1
            }
            code <<= 1
        }
        return out
    }

    /// The 2-D DCT-II of an 8×8 block (T.81 §A.3.3), natural order.
    static func dct(_ f: [Double]) -> [Double] {
        // Separable: rows first (x → u), then columns (y → v).
        var rows = [Double](repeating: 0, count: 64)
        for y in 0..<8 {
            for u in 0..<8 {
                var s = 0.0
                for x in 0..<8 { s += f[8 * y + x] * cosines[8 * x + u] }
                rows[8 * y + u] = s
            }
        }
        var out = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var s = 0.0
                for y in 0..<8 { s += rows[8 * y + u] * cosines[8 * y + v] }
                let cu = u == 0 ? 1 / 2.0.squareRoot() : 1
                let cv = v == 0 ? 1 / 2.0.squareRoot() : 1
                out[8 * v + u] = 0.25 * cu * cv * s
            }
        }
        return out
    }

    /// cos((2x + 1)uπ/16) at index 8x + u.
    static let cosines: [Double] = (0..<64).map { (i: Int) -> Double in
        let x = Double(2 * (i / 8) + 1)
        let u = Double(i % 8)
        return cos(x * u * Double.pi / 16)
    }

    static func quantised(_ f: [Double], _ q: [Int]) -> [Int] {
        (0..<64).map { Int((f[$0] / Double(q[$0])).rounded()) }
    }

    /// The magnitude category SSSS of a value (T.81 Table F.1).
    static func category(_ v: Int) -> Int { v == 0 ? 0 : Int.bitWidth - abs(v).leadingZeroBitCount }

    /// The additional bits of a value in its category (negative values as v − 1 in `size` bits).
    static func bits(_ v: Int, _ size: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: v >= 0 ? v : v - 1) & ((1 << UInt32(size)) - 1)
    }
}
