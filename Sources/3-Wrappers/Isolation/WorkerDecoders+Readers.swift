import AVIFCodec
import Exiv2Bridge
import Foundation
import JPEGCodec
import RawDecoder

extension WorkerDecoders {
    /// exiv2's reading of a file in memory (`Exiv2.read(bytes:label:previews:maxPreviewBytes:)`) in a worker.
    public func exiv2(bytes: [UInt8], label: String?, previews: Bool, maxPreviewBytes: Int) throws(DecodeFailure)
        -> Exiv2Document
    {
        try exiv2(.exiv2(label: label, previews: previews, maxPreviewBytes: maxPreviewBytes), bytes)
    }

    /// exiv2's decoding of a bare Exif TIFF blob (`Exiv2.decodeExif`) in a worker.
    public func exiv2Exif(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document {
        try exiv2(.exiv2Blob(xmp: false), bytes)
    }

    /// exiv2's decoding of an XMP packet (`Exiv2.decodeXMP`) in a worker.
    public func exiv2XMP(_ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document {
        try exiv2(.exiv2Blob(xmp: true), bytes)
    }

    private func exiv2(_ op: Operation, _ bytes: [UInt8]) throws(DecodeFailure) -> Exiv2Document {
        let a = try request(op, bytes, stage: "exiv2 read")
        // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
        defer { withExtendedLifetime(a) {} }
        guard case .exiv2(let info) = a.answer, let px = a.pixels,
            info.documentBytes >= 0, info.previewBytes.allSatisfy({ $0 >= 0 }),
            px.count >= info.documentBytes + info.previewBytes.reduce(0, +)
        else { throw .protocolError("an incomplete exiv2 answer") }
        let raw = UnsafeRawBufferPointer(start: px.base, count: px.count)
        let doc = try DecodeFailure.catching {
            try Exiv2Wire.decodeDocument(UnsafeRawBufferPointer(rebasing: raw[0..<info.documentBytes]))
        }
        guard doc.previews.count == info.previewBytes.count else {
            throw .protocolError("an exiv2 answer whose previews do not match their sizes")
        }
        var at = info.documentBytes
        var previews: [Exiv2Preview] = []
        for (p, n) in zip(doc.previews, info.previewBytes) {
            previews.append(
                Exiv2Preview.fields(
                    mimeType: p.mimeType, width: p.width, height: p.height, data: Array(raw[at..<(at + n)])))
            at += n
        }
        return doc.with(previews: previews)
    }

    /// libjpeg-turbo's decode (`JPEGDecoder.decode(_:minSide:)`) in a worker.
    public func jpeg(_ bytes: [UInt8], minSide: Int?) throws(DecodeFailure) -> JPEGImage {
        let a = try request(.jpeg(minSide: minSide), bytes, stage: "libjpeg-turbo decode")
        // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
        defer { withExtendedLifetime(a) {} }
        guard case .jpeg(let width, let height) = a.answer, let px = a.pixels, px.count >= width * height * 3 else {
            throw .protocolError("an incomplete JPEG answer")
        }
        let samples = Array(
            UnsafeBufferPointer(start: px.base.assumingMemoryBound(to: UInt8.self), count: width * height * 3))
        return JPEGImage(width: width, height: height, samples: samples)
    }

    /// libavif's decode of an AVIF's primary (`AVIFDecoder.decode(_:strict:rgb:)`) in a worker.
    public func avif(_ bytes: [UInt8], strict: Bool, rgb: Bool) throws(DecodeFailure) -> AVIFImage {
        let a = try request(.avif(strict: strict, rgb: rgb), bytes, stage: "libavif decode")
        defer { withExtendedLifetime(a) {} }
        guard case .avif(let info) = a.answer else { throw .protocolError("an incomplete AVIF answer") }
        var img = AVIFImage(width: info.width, height: info.height, depth: info.depth, samples: [])
        (img.colourPrimaries, img.transferCharacteristics) = (info.colourPrimaries, info.transferCharacteristics)
        (img.matrixCoefficients, img.fullRange, img.icc) = (info.matrixCoefficients, info.fullRange, info.icc)
        if info.samples > 0 {
            guard let px = a.pixels, px.count >= info.samples else {
                throw .protocolError("an incomplete AVIF answer")
            }
            img.samples = Array(UnsafeRawBufferPointer(start: px.base, count: info.samples))
        }
        return img
    }

    /// A TIFF whose JPEG XL IFDs (a DNG 1.7 preview) are decoded with libjxl and stored uncompressed
    /// (`JXLDNG.uncompressed(_:every:)`) in a worker; nil when none is JPEG XL.
    public func jxlTIFF(_ bytes: [UInt8]) throws(DecodeFailure) -> [UInt8]? {
        let a = try request(.jxlTIFF, bytes, stage: "libjxl decode")
        defer { withExtendedLifetime(a) {} }
        guard case .tiff(let n) = a.answer else { throw .protocolError("an incomplete libjxl answer") }
        if n == 0 { return nil }
        guard let px = a.pixels, px.count >= n else { throw .protocolError("an incomplete libjxl answer") }
        return Array(UnsafeRawBufferPointer(start: px.base, count: n))
    }

    /// exiv2's building of the output's Exif and XMP from the source's bytes and its sidecar's
    /// (`Exiv2.buildHEICMetadata`) in a worker: each builder's result or exiv2's error.
    public func buildHEICMetadata(
        bytes: [UInt8], label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (bytes: [UInt8], label: String)?, byteOrder: Exiv2.ByteOrder
    ) throws(DecodeFailure) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>) {
        let op = Operation.exiv2Build(
            label: label, width: pixelWidth, height: pixelHeight, software: software, byteOrder: byteOrder.rawValue,
            sidecarLabel: sidecar?.label, sidecarBytes: sidecar?.bytes.count)
        let a = try request(op, sidecar.map { bytes + $0.bytes } ?? bytes, stage: "exiv2 read")
        // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
        defer { withExtendedLifetime(a) {} }
        guard case .built(let n) = a.answer, n >= 0, let px = a.pixels, px.count >= n else {
            throw .protocolError("an incomplete exiv2 answer")
        }
        let raw = UnsafeRawBufferPointer(start: px.base, count: n)
        let b = try DecodeFailure.catching { try Exiv2Wire.decodeBuilt(raw) }
        let exif: Result<ExifBlob, Exiv2Error> =
            b.exif.map { .success($0) }
            ?? .failure(b.exifError ?? Exiv2Error(operation: "build Exif", path: label, message: "no result"))
        let xmp: Result<[UInt8], Exiv2Error> =
            b.xmp.map { .success($0) }
            ?? .failure(b.xmpError ?? Exiv2Error(operation: "build XMP", path: label, message: "no result"))
        return (exif, xmp)
    }
}
