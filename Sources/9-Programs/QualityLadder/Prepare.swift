import ColorScience
import Converter
import Fidelity
import Foundation
import HeifCodec

// An image prepared for measuring: the 8-bit frame the converter encodes (cropped), the float render it is judged
// against at 1:1 (archival), and the viewing-size reference: the render of the clean scene when the image has a
// noiseless twin, else the image's own render.

/// sRGB transfer (IEC 61966-2-1) clipped to 0…1, as the converter's renderer applies it.
func srgbEncode(_ v: Float) -> Float { SRGBTransfer.encode(min(1, max(0, v))) }

/// A RAW argument: `PATH`, or `PATH=CLEAN` where CLEAN is the same scene without noise (its ground truth).
struct Source {
    var path: String
    var clean: String?

    init(_ arg: String) {
        let parts = arg.split(separator: "=", maxSplits: 1).map(String.init)
        path = parts[0]
        clean = parts.count > 1 ? parts[1] : nil
    }
}

/// One image prepared for the ladder.
struct Prepared {
    var name: String
    var width: Int
    var height: Int
    /// The cropped 8-bit frame the converter would encode.
    var frame: HeifPixels
    /// The same crop of the 10-bit frame the converter encodes at a coded depth of 10 (`depth=10` variants), when
    /// prepared with `tenBit`.
    var frame10: HeifPixels?
    /// Interleaved non-linear RGB in [0, 1] of the float render (the archival reference).
    var referenceRGB: [Float]
    var referenceLuma: Plane
    var ssimReference: SSIM.Reference
    /// The viewing-size reference (clean scene, or the image's own render) and the unencoded frame's score there.
    var viewReference: ViewingSize.Reference
    var viewFrame: SSIMResult
    /// File name of the clean twin, when there is one.
    var cleanName: String?
    var fullWidth: Int
    var fullHeight: Int
    var cropX: Int
    var cropY: Int
}

/// The crop of the full frame: centred, even sizes and offsets so 4:2:0 chroma sites line up with the full frame's.
struct CropRect {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    init(fullWidth fw: Int, fullHeight fh: Int, cropW: Int, cropH: Int) {
        width = min(cropW, fw) & ~1
        height = min(cropH, fh) & ~1
        x = ((fw - width) / 2) & ~1
        y = ((fh - height) / 2) & ~1
    }
}

/// The SDR float render of `url`, sRGB-encoded, interleaved, cropped to `c`; also the full size.
func renderedReference(_ url: URL, _ c: CropRect, options o: ConvertOptions) throws -> (rgb: [Float], w: Int, h: Int) {
    let rend = try HEICConverter.renditions(of: url, options: o, decoders: .inProcess)
    let fw = rend.sdr.width
    let fh = rend.sdr.height
    guard rend.sdr.channels == 3, c.x + c.width <= fw, c.y + c.height <= fh else {
        throw Failure("\(url.lastPathComponent): render \(fw)×\(fh)×\(rend.sdr.channels) does not hold the crop")
    }
    let n = fw * fh
    var ref = [Float](repeating: 0, count: c.width * c.height * 3)
    rend.sdr.pixels.withUnsafeBufferPointer { p in
        for r in 0..<c.height {
            for col in 0..<c.width {
                let i = (c.y + r) * fw + c.x + col
                let j = 3 * (r * c.width + col)
                ref[j] = srgbEncode(p[i])
                ref[j + 1] = srgbEncode(p[n + i])
                ref[j + 2] = srgbEncode(p[2 * n + i])
            }
        }
    }
    return (ref, fw, fh)
}

/// `tenBit`: also render the 10-bit frame (a second render of the RAW), for settings that code at 10 bits.
func prepare(_ source: Source, cropW: Int, cropH: Int, tenBit: Bool = false) throws -> Prepared {
    let url = URL(fileURLWithPath: source.path)
    var o = ConvertOptions()
    o.bitDepth = 8
    let frame = try HEICConverter.renderedFrame(of: url, options: o, decoders: .inProcess)
    guard case .rgb8(let fw, let fh, let samples) = frame else {
        throw Failure("\(source.path): expected an 8-bit frame")
    }
    let c = CropRect(fullWidth: fw, fullHeight: fh, cropW: cropW, cropH: cropH)
    var crop = [UInt8](repeating: 0, count: c.width * c.height * 3)
    for r in 0..<c.height {
        let src = ((c.y + r) * fw + c.x) * 3
        for k in 0..<(c.width * 3) { crop[r * c.width * 3 + k] = samples[src + k] }
    }
    let (ref, rw, rh) = try renderedReference(url, c, options: o)
    guard rw == fw, rh == fh else {
        throw Failure("\(source.path): renditions \(rw)×\(rh) and frame \(fw)×\(fh) differ")
    }
    let luma = try Luma.plane(rgb: ref, width: c.width, height: c.height)
    var viewLuma = luma
    if let clean = source.clean {
        let (cref, cw, ch) = try renderedReference(URL(fileURLWithPath: clean), c, options: o)
        guard cw == fw, ch == fh else { throw Failure("\(clean): \(cw)×\(ch), its noisy twin \(fw)×\(fh)") }
        viewLuma = try Luma.plane(rgb: cref, width: c.width, height: c.height)
    }
    let viewReference = try ViewingSize.Reference(viewLuma)
    let frameLuma = try Luma.plane(rgb: crop, width: c.width, height: c.height, maxCode: 255)
    var frame10: HeifPixels?
    if tenBit {
        var o10 = o
        o10.bitDepth = 10
        let f = cropped(
            try HEICConverter.renderedFrame(of: url, options: o10, decoders: .inProcess), cropW: cropW, cropH: cropH)
        guard f.width == c.width, f.height == c.height else {
            throw Failure("\(source.path): the 10-bit frame's crop is \(f.width)×\(f.height)")
        }
        frame10 = f
    }
    return Prepared(
        name: url.lastPathComponent, width: c.width, height: c.height,
        frame: .rgb8(width: c.width, height: c.height, samples: crop), frame10: frame10, referenceRGB: ref,
        referenceLuma: luma,
        ssimReference: try SSIM.Reference(luma), viewReference: viewReference,
        viewFrame: try ViewingSize.compare(viewReference, frameLuma),
        cleanName: source.clean.map { URL(fileURLWithPath: $0).lastPathComponent }, fullWidth: fw, fullHeight: fh,
        cropX: c.x, cropY: c.y)
}

/// Both measures of one decoded image.
struct Measured {
    var ssim: SSIMResult
    var psnrY: Double
    var psnrRGB: Double
    var view: SSIMResult
}

/// Measures decoded 8-bit interleaved RGB against the prepared references.
func measure(_ p: Prepared, decoded: [UInt16]) throws -> Measured {
    let luma = try Luma.plane(rgb: decoded, width: p.width, height: p.height, maxCode: 255)
    let s = try SSIM.compare(p.ssimReference, luma)
    let py = try PSNR.decibels(p.referenceLuma.values, luma.values)
    let prgb = try PSNR.decibels(p.referenceRGB, decoded.map { Float($0) / 255 })
    return Measured(ssim: s, psnrY: py, psnrRGB: prgb, view: try ViewingSize.compare(p.viewReference, luma))
}

/// Measures a decoded full-size primary on the prepared crop (or a primary of the crop's size, an encode of the
/// cropped frame, as it is); `what` names the file in the size-mismatch error.
func measureCrop(_ p: Prepared, _ dec: HeifDecodedImage, what: String) throws -> Measured {
    if dec.width == p.width, dec.height == p.height, dec.channels == 3 { return try measure(p, decoded: dec.samples) }
    guard dec.width == p.fullWidth, dec.height == p.fullHeight, dec.channels == 3 else {
        throw Failure(
            "\(what): primary is \(dec.width)×\(dec.height)×\(dec.channels), the render \(p.fullWidth)×\(p.fullHeight)×3"
        )
    }
    var crop = [UInt16](repeating: 0, count: p.width * p.height * 3)
    for r in 0..<p.height {
        let src = ((p.cropY + r) * dec.width + p.cropX) * 3
        for k in 0..<(p.width * 3) { crop[r * p.width * 3 + k] = dec.samples[src + k] }
    }
    return try measure(p, decoded: crop)
}
