internal import CHeif
import ColorScience
import Foundation

// The render check's reduced decode: libheif's picture (planar where that is native) averaged down on the way out,
// on every core.

extension HeifDecoder {
    /// Decodes the primary image to 8-bit RGB and reduces it on the way out of libheif's plane: each output pixel is
    /// the mean of an f × f block, f = ⌊long side / `minSide`⌋ (at least 1), so the long side stays ≥ `minSide` and
    /// no full-size sample array is made in Swift (the render check compares at 512 px).
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - minSide: the smallest long side wanted.
    /// - Returns: the reduced image (8-bit codes in `samples`, 3 channels, with the file's nclx and ICC) and the
    ///   decoded full size.
    /// - Throws: `HeifError` with libheif's message.
    public static func decodePrimaryReduced(_ bytes: [UInt8], minSide: Int) throws -> (
        image: HeifDecodedImage, size: HeifDecodedSize
    ) {
        let (ctx, handle) = try primaryHandle(bytes)
        defer { withExtendedLifetime(ctx) {} }
        let (nclx, icc) = colour(handle)
        let coded = Int(heif_image_handle_get_luma_bits_per_pixel(handle.ptr))
        // 8-bit colour decodes natively to planar RGB: byte for byte the values of the interleaved conversion,
        // without its repacking pass (libheif 1.15: 0.53 s against 0.67 s for a 24 MP grid). Anything else (more
        // bits, monochrome) is converted to interleaved 8-bit RGB, as before.
        let native =
            coded == 8 && heif_image_handle_get_chroma_bits_per_pixel(handle.ptr) == 8 ? try planarRGB8(handle) : nil
        let (img, channels) = try native ?? interleavedRGB8(handle)
        let (w, h) = (img.1, img.2)
        let f = max(1, max(w, h) / max(1, minSide))
        let (rw, rh) = (w / f, h / f)
        let out = [UInt16](unsafeUninitializedCapacity: rw * rh * 3) { buf, count in
            withExtendedLifetime(img.0) {
                reduce(channels, factor: f, width: rw, height: rh, into: Plane(buf))
            }
            count = rw * rh * 3
        }
        let image = HeifDecodedImage(
            width: rw, height: rh, bitDepth: 8, channels: 3, samples: out, nclx: nclx, icc: icc, codedBitDepth: coded)
        return (image, HeifDecodedSize(width: w, height: h, codedBitDepth: coded))
    }

    /// The primary decoded without conversion when that gives 8-bit planar RGB: the image, its size and its R, G
    /// and B planes; nil for any other layout.
    private static func planarRGB8(_ handle: ImageHandle) throws -> ((Image, Int, Int), [Plane<UInt8>])? {
        var iPtr: OpaquePointer?
        try check(
            heif_decode_image(handle.ptr, &iPtr, heif_colorspace_undefined, heif_chroma_undefined, nil),
            "heif_decode_image")
        let img = Image(iPtr!)
        guard heif_image_get_colorspace(img.ptr) == heif_colorspace_RGB,
            heif_image_get_chroma_format(img.ptr) == heif_chroma_444
        else { return nil }
        var planes: [Plane<UInt8>] = []
        for c in [heif_channel_R, heif_channel_G, heif_channel_B] {
            var stride: Int32 = 0
            guard heif_image_get_bits_per_pixel_range(img.ptr, c) == 8,
                let p = heif_image_get_plane_readonly(img.ptr, c, &stride)
            else { return nil }
            planes.append(Plane(base: p, stride: Int(stride), step: 1))
        }
        let w = Int(heif_image_get_width(img.ptr, heif_channel_R))
        let h = Int(heif_image_get_height(img.ptr, heif_channel_R))
        guard w > 0, h > 0 else {
            throw HeifError(operation: "heif_decode_image", message: "no plane in decoded image")
        }
        return ((img, w, h), planes)
    }

    /// The primary converted to interleaved 8-bit RGB: the image, its size and its three channels.
    private static func interleavedRGB8(_ handle: ImageHandle) throws -> ((Image, Int, Int), [Plane<UInt8>]) {
        var iPtr: OpaquePointer?
        try check(
            heif_decode_image(handle.ptr, &iPtr, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil),
            "heif_decode_image")
        let img = Image(iPtr!)
        let w = Int(heif_image_get_width(img.ptr, heif_channel_interleaved))
        let h = Int(heif_image_get_height(img.ptr, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(img.ptr, heif_channel_interleaved, &stride) else {
            throw HeifError(operation: "heif_image_get_plane", message: "no plane in decoded image")
        }
        return ((img, w, h), (0..<3).map { Plane(base: plane + $0, stride: Int(stride), step: 3) })
    }

    /// One channel of a plane handed to `reduce`'s bands, which read it or write disjoint rows of it: `stride`
    /// elements from row to row, `step` from pixel to pixel (3 in interleaved RGB, 1 in a planar channel).
    // unchecked: the bands read the plane or write disjoint rows of it, inside one Parallel.forEach.
    struct Plane<T>: @unchecked Sendable {
        let base: UnsafeMutablePointer<T>
        let stride: Int
        let step: Int
        init(base: UnsafePointer<T>, stride: Int, step: Int) {
            self.base = UnsafeMutablePointer(mutating: base)
            self.stride = stride
            self.step = step
        }
        init(_ buf: UnsafeMutableBufferPointer<T>) {
            base = buf.baseAddress!
            stride = 0
            step = 1
        }
    }

    /// Three 8-bit channels reduced by `factor` (each output sample the rounded mean of a factor × factor block) into
    /// `width × height` interleaved RGB pixels, in two bands of output rows at once.
    static func reduce(
        _ channels: [Plane<UInt8>], factor f: Int, width rw: Int, height rh: Int, into out: Plane<UInt16>
    ) {
        precondition(channels.count == 3, "three channels")
        let half = f * f / 2
        let bands = rh >= 2 ? 2 : 1
        Parallel.forEach(bands) { b in
            var acc = [Int](repeating: 0, count: rw * 3)
            for ry in (b * rh / bands)..<((b + 1) * rh / bands) {
                for i in acc.indices { acc[i] = 0 }
                for (k, plane) in channels.enumerated() {
                    let step = plane.step
                    for y in (ry * f)..<(ry * f + f) {
                        let row = plane.base + y * plane.stride
                        for rx in 0..<rw {
                            var p = row + step * rx * f
                            var sum = 0
                            for _ in 0..<f {
                                sum += Int(p[0])
                                p += step
                            }
                            acc[3 * rx + k] += sum
                        }
                    }
                }
                for i in acc.indices { out.base[ry * rw * 3 + i] = UInt16((acc[i] + half) / (f * f)) }
            }
        }
    }
}
