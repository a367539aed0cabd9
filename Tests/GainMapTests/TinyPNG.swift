/// A minimal PNG writer for test inputs (stored, uncompressed deflate blocks): 8-bit gray or RGB.
enum TinyPNG {
    /// Encodes 8-bit samples, row-major, interleaved for RGB.
    static func encode(width: Int, height: Int, channels: Int, samples: [UInt8]) -> [UInt8] {
        precondition(samples.count == width * height * channels && (channels == 1 || channels == 3))
        var raw: [UInt8] = []
        raw.reserveCapacity((width * channels + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += samples[(y * width * channels)..<((y + 1) * width * channels)]
        }
        var z: [UInt8] = [0x78, 0x01]
        var pos = 0
        repeat {
            let n = min(65535, raw.count - pos)
            let final: UInt8 = pos + n == raw.count ? 1 : 0
            z += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += raw[pos..<(pos + n)]
            pos += n
        } while pos < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for x in raw {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        z += be32(b << 16 | a)
        var ihdr = be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [8, channels == 1 ? 0 : 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", z)
            + chunk("IEND", [])
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc32(t + data))
    }

    static func crc32(_ d: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for x in d {
            c ^= UInt32(x)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}
