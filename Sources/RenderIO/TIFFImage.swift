import Isolation
import JPEGCodec

/// The first image of a small TIFF: what exiv2's PreviewManager hands back for a DNG/TIFF preview IFD (a TIFF of its
/// own holding that IFD's strips), and what `dcraw_emu -T` writes. Reads 8- or 16-bit chunky RGB, uncompressed, or a
/// JPEG stream in the strips (Compression 6/7, as DNG previews store it). Every offset is bounded by the file.
public enum TIFFImage {
    /// The ICC profile of the first IFD (tag 34675), nil when absent or out of bounds.
    public static func iccProfile(_ b: [UInt8]) -> [UInt8]? {
        guard b.count >= 8, b[0] == b[1], b[0] == 0x49 || b[0] == 0x4D else { return nil }
        let r = Reader(bytes: b, little: b[0] == 0x49)
        guard let ifd = r.u32(4).map(Int.init), let n = r.u16(ifd), n < 1000 else { return nil }
        for i in 0..<n {
            let e = ifd + 2 + 12 * i
            guard r.u16(e) == 34675, let count = r.u32(e + 4).map(Int.init), let at = r.u32(e + 8).map(Int.init),
                count > 4, at + count <= b.count
            else { continue }
            return Array(b[at..<(at + count)])
        }
        return nil
    }

    /// Decodes the first IFD's image to 8-bit RGB (16-bit samples are scaled to 8 bits).
    /// - Parameter b: the whole TIFF.
    /// - Returns: the pixels, or nil with the reason.
    public static func decode(_ b: [UInt8]) -> Result<JPEGImage, DecodeFailure> {
        guard b.count >= 8, (b[0] == 0x49 && b[1] == 0x49) || (b[0] == 0x4D && b[1] == 0x4D) else {
            return .failure(DecodeFailure("not a TIFF (no II/MM header)"))
        }
        let r = Reader(bytes: b, little: b[0] == 0x49)
        guard r.u16(2) == 42, let ifd = r.u32(4).map(Int.init), let tags = r.ifd(at: ifd) else {
            return .failure(DecodeFailure("no readable IFD"))
        }
        func one(_ t: UInt16) -> Int? { tags[t]?.first }
        guard let w = one(256), let h = one(257), w > 0, h > 0, w * h <= JPEGDecoder.maxPixels else {
            return .failure(DecodeFailure("no or impossible image size"))
        }
        let compression = one(259) ?? 1
        var strips: [UInt8] = []
        let offsets = tags[273] ?? tags[0x201] ?? []
        let counts = tags[279] ?? tags[0x202] ?? []
        guard !offsets.isEmpty, offsets.count == counts.count else { return .failure(DecodeFailure("no strips")) }
        for (o, n) in zip(offsets, counts) {
            guard o >= 0, n >= 0, o + n <= b.count else { return .failure(DecodeFailure("strip outside the file")) }
            strips += b[o..<(o + n)]
        }
        if compression == 6 || compression == 7 {
            do { return .success(try Isolated.jpeg(strips)) } catch {
                return .failure(DecodeFailure("JPEG strips do not decode: \(error)"))
            }
        }
        if compression == 52546 {
            // DNG 1.7's JPEG XL: libjxl (in a worker) rewrites it uncompressed, which is then read as any TIFF.
            do {
                guard let plain = try Isolated.jxlTIFF(b) else { return .failure(DecodeFailure("no JPEG XL IFD")) }
                return decode(plain)
            } catch {
                return .failure(DecodeFailure("JPEG XL strips do not decode: \(error)"))
            }
        }
        guard compression == 1 else { return .failure(DecodeFailure("compression \(compression) is not read")) }
        let spp = one(277) ?? 1
        let bps = one(258) ?? 1
        guard one(262) == 2, spp >= 3, bps == 8 || bps == 16, (one(284) ?? 1) == 1 else {
            return .failure(DecodeFailure("only chunky 8/16-bit RGB is read (\(spp)×\(bps) bits)"))
        }
        let bytesPerSample = bps / 8
        guard strips.count >= w * h * spp * bytesPerSample else { return .failure(DecodeFailure("strips too short")) }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {
            for c in 0..<3 {
                let s = (i * spp + c) * bytesPerSample
                if bps == 8 {
                    out[3 * i + c] = strips[s]
                } else {
                    let v =
                        r.little ? Int(strips[s]) | Int(strips[s + 1]) << 8 : Int(strips[s]) << 8 | Int(strips[s + 1])
                    out[3 * i + c] = UInt8((v * 255 + 32767) / 65535)
                }
            }
        }
        return .success(JPEGImage(width: w, height: h, samples: out))
    }

    /// Why an image did not decode.
    public struct DecodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Bounded reads in the file's byte order.
    struct Reader {
        let bytes: [UInt8]
        let little: Bool

        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[o]) | Int(bytes[o + 1]) << 8 : Int(bytes[o]) << 8 | Int(bytes[o + 1])
        }

        func u32(_ o: Int) -> UInt32? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? UInt32(a) | UInt32(b) << 16 : UInt32(a) << 16 | UInt32(b)
        }

        /// The SHORT/LONG values of every entry of the IFD at `o` (other types are skipped).
        func ifd(at o: Int) -> [UInt16: [Int]]? {
            guard let n = u16(o), n > 0, n < 1000 else { return nil }
            var tags: [UInt16: [Int]] = [:]
            for i in 0..<n {
                let e = o + 2 + 12 * i
                guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4).map(Int.init) else { return nil }
                let size = type == 3 ? 2 : type == 4 ? 4 : 0
                guard size > 0, count > 0, count < 1 << 20 else { continue }
                let at = count * size <= 4 ? e + 8 : (u32(e + 8).map(Int.init) ?? -1)
                var values: [Int] = []
                for k in 0..<count {
                    guard let v = size == 2 ? u16(at + 2 * k) : u32(at + 4 * k).map(Int.init) else { return nil }
                    values.append(v)
                }
                tags[UInt16(tag)] = values
            }
            return tags
        }
    }
}
