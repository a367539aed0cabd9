import Exiv2Bridge
import Foundation
import JPEGCodec

extension Isolated {
    /// exiv2's reading of a file in memory (`Exiv2.read(bytes:label:previews:maxPreviewBytes:)`), in a worker when
    /// a pool is installed. A worker that died, hung or ran out of memory is an `Exiv2Error` naming it (operation
    /// "read"): the metadata cannot be read, and the message says why.
    public static func exiv2(bytes: [UInt8], label: String?, previews: Bool = false, maxPreviewBytes: Int = 64 << 20)
        throws(Exiv2Error) -> Exiv2Document
    {
        guard let pool = WorkerPool.shared else {
            return try Exiv2.read(bytes: bytes, label: label, previews: previews, maxPreviewBytes: maxPreviewBytes)
        }
        return try exiv2(pool, .exiv2(label: label, previews: previews, maxPreviewBytes: maxPreviewBytes), bytes, label)
    }

    /// exiv2's decoding of a bare Exif TIFF blob (`Exiv2.decodeExif`), in a worker when a pool is installed.
    public static func exiv2Exif(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        guard let pool = WorkerPool.shared else { return try Exiv2.decodeExif(bytes) }
        return try exiv2(pool, .exiv2Blob(xmp: false), bytes, nil)
    }

    /// exiv2's decoding of an XMP packet (`Exiv2.decodeXMP`), in a worker when a pool is installed.
    public static func exiv2XMP(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        guard let pool = WorkerPool.shared else { return try Exiv2.decodeXMP(bytes) }
        return try exiv2(pool, .exiv2Blob(xmp: true), bytes, nil)
    }

    private static func exiv2(_ pool: WorkerPool, _ op: Operation, _ bytes: [UInt8], _ label: String?)
        throws(Exiv2Error) -> Exiv2Document
    {
        do {
            var m = WorkerMessage(kind: .request)
            m.op = op
            m.cpuSeconds = pool.config.timeout.cpuSeconds(pixels: nil)
            let a = try pool.withWorker { try $0.run(m, bytes: bytes, pixels: nil, stage: "exiv2 read") }
            if let e = a.message.exiv2Error {
                throw Exiv2Error(operation: e.operation, path: e.path, message: e.message)
            }
            try rethrowFailure(a.message)
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
        } catch {
            throw Exiv2Error(operation: "read", path: label, message: "\(error)")
        }
    }

    /// libjpeg-turbo's decode (`JPEGDecoder.decode(_:minSide:)`), in a worker when a pool is installed; a worker's
    /// death is a `JPEGError` naming it.
    public static func jpeg(_ bytes: [UInt8], minSide: Int? = nil) throws(JPEGError) -> JPEGImage {
        guard let pool = WorkerPool.shared else { return try JPEGDecoder.decode(bytes, minSide: minSide) }
        do {
            var m = WorkerMessage(kind: .request)
            m.op = .jpeg(minSide: minSide)
            m.cpuSeconds = pool.config.timeout.cpuSeconds(pixels: nil)
            let a = try pool.withWorker { try $0.run(m, bytes: bytes, pixels: nil, stage: "libjpeg-turbo decode") }
            if let e = a.message.jpegError { throw JPEGError(operation: e.operation, message: e.message) }
            try rethrowFailure(a.message)
            guard let info = a.message.jpeg, let px = a.pixels, px.count >= info.width * info.height * 3 else {
                throw IsolationError.protocolError("an incomplete JPEG answer")
            }
            let samples = Array(
                UnsafeBufferPointer(
                    start: px.base.assumingMemoryBound(to: UInt8.self), count: info.width * info.height * 3))
            return JPEGImage(width: info.width, height: info.height, samples: samples)
        } catch let e as JPEGError {
            throw e
        } catch {
            throw JPEGError(operation: "decode", message: "\(error)")
        }
    }
}
