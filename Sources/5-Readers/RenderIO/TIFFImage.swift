import Foundation
import Isolation
import JPEGCodec
import TIFFLayout

/// The first image of a small TIFF: what exiv2's PreviewManager hands back for a DNG/TIFF preview IFD (a TIFF of its
/// own holding that IFD's strips), and what `dcraw_emu -T` writes. Reads 8- or 16-bit chunky RGB, uncompressed, or a
/// JPEG stream in the strips (Compression 6/7, as DNG previews store it). Every offset is bounded by the file.
public enum TIFFImage {
    /// The ICC profile of the first IFD (tag 34675), nil when absent or out of bounds.
    public static func iccProfile(_ b: [UInt8]) -> [UInt8]? {
        guard let layout = try? TIFFLayout(Data(b)), let first = layout.directories.first, let e = first[34675],
            e.count > 4, let v = layout.valueBytes(e)
        else { return nil }
        return [UInt8](v)
    }

    /// Decodes the first IFD's image to 8-bit RGB (16-bit samples are scaled to 8 bits).
    /// - Parameters:
    ///   - b: the whole TIFF.
    ///   - decoders: the decoders of JPEG and JPEG XL strips.
    /// - Returns: the pixels, or nil with the reason.
    public static func decode(_ b: [UInt8], decoders: any Decoders) -> Result<JPEGImage, Failure> {
        guard b.count >= 8, (b[0] == 0x49 && b[1] == 0x49) || (b[0] == 0x4D && b[1] == 0x4D) else {
            return .failure(Failure("not a TIFF (no II/MM header)"))
        }
        guard let layout = try? TIFFLayout(Data(b)), let dir = layout.directories.first else {
            return .failure(Failure("no readable IFD"))
        }
        func one(_ t: UInt16) -> Int? { layout.integer(t, in: dir) }
        func all(_ t: UInt16) -> [Int]? { dir[t].flatMap { layout.integers($0) } }
        guard let w = one(256), let h = one(257), w > 0, h > 0,
            case (let pixels, false) = w.multipliedReportingOverflow(by: h),
            pixels <= JPEGDecoder.maxPixels
        else {
            return .failure(Failure("no or impossible image size"))
        }
        let compression = one(259) ?? 1
        var strips: [UInt8] = []
        let offsets = all(273) ?? all(0x201) ?? []
        let counts = all(279) ?? all(0x202) ?? []
        guard !offsets.isEmpty, offsets.count == counts.count else { return .failure(Failure("no strips")) }
        for (o, n) in zip(offsets, counts) {
            guard o >= 0, n >= 0, o + n <= b.count else { return .failure(Failure("strip outside the file")) }
            strips += b[o..<(o + n)]
        }
        if compression == 6 || compression == 7 {
            do { return .success(try decoders.jpeg(strips)) } catch {
                return .failure(Failure("JPEG strips do not decode: \(error)"))
            }
        }
        if compression == 52546 {
            // DNG 1.7's JPEG XL: libjxl (in a worker) rewrites it uncompressed, which is then read as any TIFF.
            do {
                guard let plain = try decoders.jxlTIFF(b) else { return .failure(Failure("no JPEG XL IFD")) }
                return decode(plain, decoders: decoders)
            } catch {
                return .failure(Failure("JPEG XL strips do not decode: \(error)"))
            }
        }
        guard compression == 1 else { return .failure(Failure("compression \(compression) is not read")) }
        let spp = one(277) ?? 1
        let bps = one(258) ?? 1
        guard one(262) == 2, spp >= 3, spp <= 16, bps == 8 || bps == 16, (one(284) ?? 1) == 1 else {
            return .failure(Failure("only chunky 8/16-bit RGB is read (\(spp)×\(bps) bits)"))
        }
        let bytesPerSample = bps / 8
        guard strips.count >= w * h * spp * bytesPerSample else { return .failure(Failure("strips too short")) }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {
            for c in 0..<3 {
                let s = (i * spp + c) * bytesPerSample
                if bps == 8 {
                    out[3 * i + c] = strips[s]
                } else {
                    let v =
                        layout.order == .little
                        ? Int(strips[s]) | Int(strips[s + 1]) << 8 : Int(strips[s]) << 8 | Int(strips[s + 1])
                    out[3 * i + c] = UInt8((v * 255 + 32767) / 65535)
                }
            }
        }
        return .success(JPEGImage(width: w, height: h, samples: out))
    }

    /// Why an image did not decode.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }
}
