import AVIFCodec
import Exiv2Bridge
import Foundation
import JPEGCodec
import RawDecoder

extension WorkerDecoders {
    /// exiv2's reading of a file in memory (`Exiv2.read(bytes:label:previews:maxPreviewBytes:)`), in a worker when
    /// a pool is installed. A worker that died, hung or ran out of memory is an `Exiv2Error` naming it (operation
    /// "read"): the metadata cannot be read, and the message says why.
    public func exiv2(bytes: [UInt8], label: String?, previews: Bool, maxPreviewBytes: Int) throws(Exiv2Error)
        -> Exiv2Document
    {
        return try exiv2(.exiv2(label: label, previews: previews, maxPreviewBytes: maxPreviewBytes), bytes, label)
    }

    /// exiv2's decoding of a bare Exif TIFF blob (`Exiv2.decodeExif`), in a worker when a pool is installed.
    public func exiv2Exif(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        try exiv2(.exiv2Blob(xmp: false), bytes, nil)
    }

    /// exiv2's decoding of an XMP packet (`Exiv2.decodeXMP`), in a worker when a pool is installed.
    public func exiv2XMP(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        try exiv2(.exiv2Blob(xmp: true), bytes, nil)
    }

    private func exiv2(_ op: Operation, _ bytes: [UInt8], _ label: String?) throws(Exiv2Error) -> Exiv2Document {
        do {
            let a = try request(op, bytes, stage: "exiv2 read")
            // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
            defer { withExtendedLifetime(a) {} }
            if let e = a.message.exiv2Error {
                throw Exiv2Error(operation: e.operation, path: e.path, message: e.message)
            }
            try Self.rethrowFailure(a.message)
            guard let info = a.message.exiv2, let px = a.pixels,
                px.count >= info.jsonBytes + info.previewBytes.reduce(0, +)
            else { throw IsolationError.protocolError("an incomplete exiv2 answer") }
            let raw = UnsafeRawBufferPointer(start: px.base, count: px.count)
            let doc = try JSONDecoder().decode(Exiv2Document.self, from: Data(raw[0..<info.jsonBytes]))
            var at = info.jsonBytes
            var previews: [Exiv2Preview] = []
            for (p, n) in zip(doc.previews, info.previewBytes) {
                previews.append(
                    Exiv2Preview.fields(
                        mimeType: p.mimeType, width: p.width, height: p.height, data: Array(raw[at..<(at + n)])))
                at += n
            }
            return doc.with(previews: previews)
        } catch let e as Exiv2Error {
            throw e
        } catch let f as WorkerFailure {
            throw Exiv2Error(operation: "read", path: label, message: f.description, workerFailure: f)
        } catch {
            throw Exiv2Error(operation: "read", path: label, message: "\(error)")
        }
    }

    /// libjpeg-turbo's decode (`JPEGDecoder.decode(_:minSide:)`), in a worker when a pool is installed; a worker's
    /// death is a `JPEGError` naming it.
    public func jpeg(_ bytes: [UInt8], minSide: Int?) throws(JPEGError) -> JPEGImage {
        do {
            let a = try request(.jpeg(minSide: minSide), bytes, stage: "libjpeg-turbo decode")
            // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
            defer { withExtendedLifetime(a) {} }
            if let e = a.message.jpegError { throw JPEGError(operation: e.operation, message: e.message) }
            try Self.rethrowFailure(a.message)
            guard let info = a.message.jpeg, let px = a.pixels, px.count >= info.width * info.height * 3 else {
                throw IsolationError.protocolError("an incomplete JPEG answer")
            }
            let samples = Array(
                UnsafeBufferPointer(
                    start: px.base.assumingMemoryBound(to: UInt8.self), count: info.width * info.height * 3))
            return JPEGImage(width: info.width, height: info.height, samples: samples)
        } catch let e as JPEGError {
            throw e
        } catch let f as WorkerFailure {
            throw JPEGError(operation: "decode", message: f.description, workerFailure: f)
        } catch {
            throw JPEGError(operation: "decode", message: "\(error)")
        }
    }
}

extension WorkerDecoders {
    /// libavif's decode of an AVIF's primary (`AVIFDecoder.decode(_:strict:rgb:)`), in a worker when a pool is
    /// installed.
    /// - Throws: `AVIFError` when libavif refuses the file; `WorkerFailure` when its worker died, hung or ran out of
    ///   memory on it (the file's `decode.*` verdict).
    public func avif(_ bytes: [UInt8], strict: Bool, rgb: Bool) throws -> AVIFImage {
        let a = try request(.avif(strict: strict, rgb: rgb), bytes, stage: "libavif decode")
        defer { withExtendedLifetime(a) {} }
        if let e = a.message.avifError { throw AVIFError(operation: e.operation, message: e.message) }
        try Self.rethrowFailure(a.message)
        guard let info = a.message.avif else { throw IsolationError.protocolError("an incomplete AVIF answer") }
        var img = AVIFImage(width: info.width, height: info.height, depth: info.depth, samples: [])
        (img.colourPrimaries, img.transferCharacteristics) = (info.colourPrimaries, info.transferCharacteristics)
        (img.matrixCoefficients, img.fullRange, img.icc) = (info.matrixCoefficients, info.fullRange, info.icc)
        if info.samples > 0 {
            guard let px = a.pixels, px.count >= info.samples else {
                throw IsolationError.protocolError("an incomplete AVIF answer")
            }
            img.samples = Array(UnsafeRawBufferPointer(start: px.base, count: info.samples))
        }
        return img
    }

    /// A TIFF whose JPEG XL IFDs (a DNG 1.7 preview) are decoded with libjxl and stored uncompressed
    /// (`JXLDNG.uncompressed(_:every:)`), in a worker when a pool is installed; nil when none is JPEG XL.
    /// - Throws: `JXLDNG.Failure` for a stream libjxl refuses, or naming a worker's death (`workerFailure`).
    public func jxlTIFF(_ bytes: [UInt8]) throws(JXLDNG.Failure) -> [UInt8]? {
        do {
            let a = try request(.jxlTIFF, bytes, stage: "libjxl decode")
            defer { withExtendedLifetime(a) {} }
            if a.message.kind == .failed, a.message.rawError == nil, a.message.heifError == nil {
                throw JXLDNG.Failure(description: a.message.error ?? "libjxl failed")
            }
            try Self.rethrowFailure(a.message)
            guard let n = a.message.tiff else { throw IsolationError.protocolError("an incomplete libjxl answer") }
            if n == 0 { return nil }
            guard let px = a.pixels, px.count >= n else {
                throw IsolationError.protocolError("an incomplete libjxl answer")
            }
            return Array(UnsafeRawBufferPointer(start: px.base, count: n))
        } catch let e as JXLDNG.Failure {
            throw e
        } catch {
            throw JXLDNG.Failure(description: "\(error)")
        }
    }

    /// exiv2's building of the output's Exif and XMP from the source's bytes and its sidecar's
    /// (`Exiv2.buildHEICMetadata`), in a worker when a pool is installed. A worker that died, hung or ran out of
    /// memory fails both results with an `Exiv2Error` carrying the `WorkerFailure`.
    public func buildHEICMetadata(
        bytes: [UInt8], label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (bytes: [UInt8], label: String)?, byteOrder: Exiv2.ByteOrder
    ) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>) {
        func error(_ e: Exiv2ErrorInfo) -> Exiv2Error {
            Exiv2Error(operation: e.operation, path: e.path, message: e.message)
        }
        do {
            let op = Operation.exiv2Build(
                label: label, width: pixelWidth, height: pixelHeight, software: software, byteOrder: byteOrder.rawValue,
                sidecarLabel: sidecar?.label, sidecarBytes: sidecar?.bytes.count)
            let a = try request(op, sidecar.map { bytes + $0.bytes } ?? bytes, stage: "exiv2 read")
            // Read through raw pointers below: the answer (and its lease of the pixels) lives until the end.
            defer { withExtendedLifetime(a) {} }
            if let e = a.message.exiv2Error { throw error(e) }
            try Self.rethrowFailure(a.message)
            guard let n = a.message.built, let px = a.pixels, px.count >= n else {
                throw IsolationError.protocolError("an incomplete exiv2 answer")
            }
            let raw = UnsafeRawBufferPointer(start: px.base, count: n)
            let b = try JSONDecoder().decode(BuiltMetadata.self, from: Data(raw))
            let exif: Result<ExifBlob, Exiv2Error> =
                b.exif.map { .success($0) }
                ?? .failure(
                    b.exifError.map(error)
                        ?? Exiv2Error(
                            operation: "build Exif", path: label, message: "no result"))
            let xmp: Result<[UInt8], Exiv2Error> =
                b.xmp.map { .success($0) }
                ?? .failure(
                    b.xmpError.map(error)
                        ?? Exiv2Error(
                            operation: "build XMP", path: label, message: "no result"))
            return (exif, xmp)
        } catch let e as Exiv2Error {
            return (.failure(e), .failure(e))
        } catch let f as WorkerFailure {
            let e = Exiv2Error(operation: "read", path: label, message: f.description, workerFailure: f)
            return (.failure(e), .failure(e))
        } catch {
            let e = Exiv2Error(operation: "read", path: label, message: "\(error)")
            return (.failure(e), .failure(e))
        }
    }
}
