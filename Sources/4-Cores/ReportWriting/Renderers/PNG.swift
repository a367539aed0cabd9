import Foundation

/// A tiny PNG writer for report thumbnails: 8-bit grey or RGB, zlib "stored" (uncompressed) deflate blocks.
///
/// Implements PNG (ISO/IEC 15948) chunks IHDR/IDAT/IEND with CRC-32, and a zlib stream (RFC 1950) whose deflate
/// data (RFC 1951 §3.2.4) is made of non-compressed blocks, closed by the Adler-32 of the raw scanlines.
public enum PNG {
    /// Encodes 8-bit samples as a PNG.
    /// - Parameters:
    ///   - width: pixels per row (≥ 1).
    ///   - height: rows (≥ 1).
    ///   - channels: 1 (grey) or 3 (RGB).
    ///   - samples: `width × height × channels` bytes, row-major, interleaved.
    /// - Returns: the PNG bytes, or nil when the sizes do not match.
    public static func encode(width: Int, height: Int, channels: Int, samples: [UInt8]) -> Data? {
        guard width > 0, height > 0, channels == 1 || channels == 3, samples.count == width * height * channels
        else { return nil }
        var raw = [UInt8]()
        raw.reserveCapacity((width * channels + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter type None
            raw.append(contentsOf: samples[(y * width * channels)..<((y + 1) * width * channels)])
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let final: UInt8 = (i + n == raw.count) ? 1 : 0
            zlib.append(final)
            zlib.append(UInt8(n & 0xFF))
            zlib.append(UInt8(n >> 8))
            zlib.append(UInt8(~n & 0xFF))
            zlib.append(UInt8((~n >> 8) & 0xFF))
            zlib.append(contentsOf: raw[i..<(i + n)])
            i += n
        } while i < raw.count
        appendBE(&zlib, adler32(raw))

        var ihdr = [UInt8]()
        appendBE(&ihdr, UInt32(width))
        appendBE(&ihdr, UInt32(height))
        ihdr += [8, channels == 1 ? 0 : 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk(&png, "IHDR", ihdr)
        chunk(&png, "IDAT", zlib)
        chunk(&png, "IEND", [])
        return Data(png)
    }

    /// A `data:image/png;base64,…` URI for the PNG.
    public static func dataURI(_ png: Data) -> String { "data:image/png;base64," + png.base64EncodedString() }

    private static func chunk(_ out: inout [UInt8], _ type: String, _ body: [UInt8]) {
        appendBE(&out, UInt32(body.count))
        let t = Array(type.utf8)
        out += t
        out += body
        appendBE(&out, crc32(t + body))
    }

    private static func appendBE(_ out: inout [UInt8], _ v: UInt32) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 as PNG defines it (ISO/IEC 15948 Annex D).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// Adler-32 (RFC 1950 §8.2).
    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return (b << 16) | a
    }
}

/// Decoded pixels handed to the thumbnailer: interleaved samples, 8 or 16 bits, 1 (grey) or 3/4 channels.
public struct Pixels: Sendable {
    public var width: Int
    public var height: Int
    public var channels: Int
    /// Bits per sample as stored in `samples` (8…16); values are scaled to 8 bits when thumbnailing.
    public var bitDepth: Int
    /// `width × height × channels` samples, row-major.
    public var samples: [UInt16]

    public init(width: Int, height: Int, channels: Int, bitDepth: Int, samples: [UInt16]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.samples = samples
    }
}

/// Box-filter downscaling to a thumbnail.
public enum Thumbnailer {
    /// A PNG data URI of `pixels` scaled as ``png(_:maxSide:)`` scales them.
    /// - Returns: the data URI, or nil for empty or inconsistent input.
    public static func dataURI(_ pixels: Pixels, maxSide: Int = 160) -> String? {
        png(pixels, maxSide: maxSide).map(PNG.dataURI)
    }

    /// A PNG of `pixels` scaled (box average) so its longer side is at most `maxSide`.
    /// - Parameters:
    ///   - pixels: decoded samples; 4 channels drop the 4th, 2 channels keep the first.
    ///   - maxSide: the longest side of the thumbnail in pixels.
    /// - Returns: the PNG bytes, or nil for empty or inconsistent input.
    public static func png(_ pixels: Pixels, maxSide: Int = 160) -> Data? {
        let w = pixels.width
        let h = pixels.height
        let c = pixels.channels
        guard w > 0, h > 0, c > 0, maxSide > 0, pixels.samples.count >= w * h * c else { return nil }
        let scale = max(1.0, Double(max(w, h)) / Double(maxSide))
        let tw = max(1, Int((Double(w) / scale).rounded()))
        let th = max(1, Int((Double(h) / scale).rounded()))
        let outC = c >= 3 ? 3 : 1
        let maxValue = Double((1 << max(1, min(16, pixels.bitDepth))) - 1)
        var out = [UInt8](repeating: 0, count: tw * th * outC)
        for ty in 0..<th {
            let y0 = ty * h / th
            let y1 = max(y0 + 1, (ty + 1) * h / th)
            for tx in 0..<tw {
                let x0 = tx * w / tw
                let x1 = max(x0 + 1, (tx + 1) * w / tw)
                var sums = [Double](repeating: 0, count: outC)
                // Sample at most 8×8 points per box: bounded work per thumbnail pixel whatever the image size.
                let sy = max(1, (y1 - y0) / 8)
                let sx = max(1, (x1 - x0) / 8)
                var n = 0.0
                var y = y0
                while y < y1 {
                    var x = x0
                    while x < x1 {
                        let base = (y * w + x) * c
                        for k in 0..<outC { sums[k] += Double(pixels.samples[base + k]) }
                        n += 1
                        x += sx
                    }
                    y += sy
                }
                for k in 0..<outC {
                    out[(ty * tw + tx) * outC + k] = UInt8(max(0, min(255, (sums[k] / n / maxValue * 255).rounded())))
                }
            }
        }
        return PNG.encode(width: tw, height: th, channels: outC, samples: out)
    }
}
