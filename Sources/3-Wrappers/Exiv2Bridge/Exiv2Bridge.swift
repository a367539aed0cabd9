internal import CExiv2Shim
public import MetadataEntries

/// An exiv2 failure: the operation, the file (when there was one) and exiv2's own message.
public struct Exiv2Error: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// What was being done ("read", "decode Exif", "decode XMP", "build Exif", "build XMP").
    public let operation: String
    /// The file involved, if any.
    public let path: String?
    /// exiv2's message (Exiv2::Error::what()) or the shim's description.
    public let message: String

    public init(operation: String, path: String?, message: String) {
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String {
        if let path { return "\(path): \(operation): \(message)" }
        return "\(operation): \(message)"
    }
}

/// Everything exiv2 read from one file, Exif blob or XMP packet.
public struct Exiv2Document: Sendable, Codable {
    public let entries: [RawEntry]
    /// The MIME type exiv2 recognised, "" for memory decodes.
    public let mimeType: String
    /// Warnings exiv2 logged while reading.
    public let warnings: [String]
    /// Exif byte order: "II", "MM" or nil when unknown.
    public let byteOrder: String?
    /// The embedded previews, when they were asked for (`Exiv2.read(bytes:label:previews:)`), from the same parse.
    public internal(set) var previews: [Exiv2Preview] = []

    /// A document field by field (a worker process's answer, read back from its compact binary form).
    public init(
        entries: [RawEntry], mimeType: String, warnings: [String], byteOrder: String?, previews: [Exiv2Preview] = []
    ) {
        self.entries = entries
        self.mimeType = mimeType
        self.warnings = warnings
        self.byteOrder = byteOrder
        self.previews = previews
    }
}

extension Exiv2Document {
    /// The same document with other previews: a worker process sends the previews' bytes apart from the rest.
    public func with(previews: [Exiv2Preview]) -> Exiv2Document {
        var d = self
        d.previews = previews
        return d
    }
}

/// A clean Exif TIFF blob for a HEIC and what encoding had to drop.
public struct ExifBlob: Sendable, Codable {
    /// The TIFF bytes, starting "II*\0" or "MM\0*".
    public let bytes: [UInt8]
    /// What ExifParser::encode dropped or shrank, one line each (empty when nothing was lost).
    public let encodingLosses: [String]

    public init(bytes: [UInt8], encodingLosses: [String]) {
        self.bytes = bytes
        self.encodingLosses = encodingLosses
    }
}

/// One embedded preview as exiv2's PreviewManager lists it.
public struct Exiv2Preview: Sendable, Equatable, Codable {
    /// "image/jpeg", or "image/tiff" for a TIFF-IFD preview exiv2 wraps in a small TIFF of its own.
    public let mimeType: String
    /// The size exiv2 read from the preview's tags (0 when unknown); the decoded size is what counts.
    public let width: Int
    public let height: Int
    /// The preview's bytes; empty when exiv2 could not extract them (bytes past the end of a truncated file) or they
    /// exceeded the size limit.
    public let data: [UInt8]
}

extension Exiv2Preview {
    /// A preview field by field (a worker process's answer, its bytes sent apart).
    public static func fields(mimeType: String, width: Int, height: Int, data: [UInt8]) -> Exiv2Preview {
        Exiv2Preview(mimeType: mimeType, width: width, height: height, data: data)
    }
}

/// Owns one shim doc handle; freed in deinit.
private final class DocHandle {
    let pointer: OpaquePointer
    init(_ p: OpaquePointer) { pointer = p }
    deinit { rb_exiv2_doc_free(pointer) }

    func document() -> Exiv2Document {
        let n = rb_exiv2_doc_count(pointer)
        var entries: [RawEntry] = []
        entries.reserveCapacity(n)
        var e = rb_exiv2_entry()
        for i in 0..<n where rb_exiv2_doc_entry(pointer, i, &e) != 0 {
            let family: RawEntry.Family
            switch e.family {
            case RB_EXIV2_FAMILY_IPTC: family = .iptc
            case RB_EXIV2_FAMILY_XMP: family = .xmp
            default: family = .exif
            }
            let raw: [UInt8] =
                e.raw == nil ? [] : Array(UnsafeBufferPointer(start: e.raw, count: e.raw_size))
            entries.append(
                RawEntry(
                    family: family, key: String(cString: e.key), group: String(cString: e.group),
                    ifd: String(cString: e.ifd), tagName: String(cString: e.tag_name), tag: e.tag,
                    typeID: Int(e.type_id), count: Int(e.count), raw: raw, text: String(cString: e.text),
                    isMakerNote: e.makernote != 0))
        }
        let warnings = String(cString: rb_exiv2_doc_warnings(pointer)).split(separator: "\n").map(String.init)
        let bo = rb_exiv2_doc_byte_order(pointer)
        return Exiv2Document(
            entries: entries, mimeType: String(cString: rb_exiv2_doc_mime(pointer)), warnings: warnings,
            byteOrder: bo == 1 ? "II" : bo == 2 ? "MM" : nil)
    }
}

/// Owns one shim blob handle; freed in deinit.
private final class BlobHandle {
    let pointer: OpaquePointer
    init(_ p: OpaquePointer) { pointer = p }
    deinit { rb_exiv2_blob_free(pointer) }
    var bytes: [UInt8] {
        let n = rb_exiv2_blob_size(pointer)
        guard n > 0, let p = rb_exiv2_blob_bytes(pointer) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: n))
    }
    var report: [String] { String(cString: rb_exiv2_blob_report(pointer)).split(separator: "\n").map(String.init) }
}

/// Safe Swift face over the exiv2 shim. Every C call of the shim goes through this module.
/// All functions are safe to call from any thread (the shim serialises XMP work: docs/platform.md).
public enum Exiv2 {
    /// exiv2's version, read from the library at run time (`Exiv2::versionString()`).
    public static var version: String { String(cString: rb_exiv2_version()) }

    private static func call(
        _ operation: String, path: String?, _ body: (UnsafeMutablePointer<CChar>, Int) -> rb_exiv2_status
    ) throws(Exiv2Error) {
        var buffer = [CChar](repeating: 0, count: 1024)
        let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        guard status == RB_EXIV2_OK else {
            var message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if message.isEmpty { message = status == RB_EXIV2_BAD_ARGUMENT ? "bad argument" : "failed" }
            // One line: exiv2 messages sometimes carry newlines.
            message = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
            throw Exiv2Error(operation: operation, path: path, message: message)
        }
    }

    /// Opens a file with exiv2 (`ImageFactory::open`, BMFF enabled) and reads its Exif, IPTC and XMP.
    /// - Parameter path: the file.
    /// - Returns: every entry exiv2 decoded, MakerNote tags included.
    /// - Throws: `Exiv2Error` with exiv2's message.
    public static func read(path: String) throws(Exiv2Error) -> Exiv2Document {
        var handle: OpaquePointer?
        try call("read", path: path) { rb_exiv2_read_file(path, &handle, $0, $1) }
        guard let handle else { throw Exiv2Error(operation: "read", path: path, message: "no result") }
        return DocHandle(handle).document()
    }

    /// Decodes an Exif TIFF blob from memory (`ExifParser::decode`); an "Exif\0\0" prefix is skipped.
    /// - Throws: `Exiv2Error` when there is no TIFF header or exiv2 fails.
    public static func decodeExif(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        var handle: OpaquePointer?
        try call("decode Exif", path: nil) { msg, cap in
            bytes.withUnsafeBufferPointer { b in
                rb_exiv2_decode_exif(b.baseAddress ?? UnsafePointer(bitPattern: 1)!, b.count, &handle, msg, cap)
            }
        }
        guard let handle else { throw Exiv2Error(operation: "decode Exif", path: nil, message: "no result") }
        return DocHandle(handle).document()
    }

    /// Decodes an XMP packet from memory (`XmpParser::decode`, under the XMP lock).
    /// - Throws: `Exiv2Error` when the XMP toolkit rejects the packet.
    public static func decodeXMP(_ bytes: [UInt8]) throws(Exiv2Error) -> Exiv2Document {
        var handle: OpaquePointer?
        try call("decode XMP", path: nil) { msg, cap in
            bytes.withUnsafeBufferPointer { b in
                rb_exiv2_decode_xmp(b.baseAddress ?? UnsafePointer(bitPattern: 1)!, b.count, &handle, msg, cap)
            }
        }
        guard let handle else { throw Exiv2Error(operation: "decode XMP", path: nil, message: "no result") }
        return DocHandle(handle).document()
    }

    /// The embedded previews of a file (PreviewManager: DNG/TIFF preview IFDs, Exif thumbnails, maker previews),
    /// in exiv2's order (smallest first).
    /// - Parameters:
    ///   - path: the file.
    ///   - maxBytes: previews larger than this are listed without their bytes.
    /// - Throws: `Exiv2Error` when exiv2 cannot open or read the file.
    public static func previews(path: String, maxBytes: Int = 64 << 20) throws(Exiv2Error) -> [Exiv2Preview] {
        var handle: OpaquePointer?
        try call("read previews", path: path) { rb_exiv2_read_previews(path, max(0, maxBytes), &handle, $0, $1) }
        guard let handle else { throw Exiv2Error(operation: "read previews", path: path, message: "no result") }
        return list(handle)
    }

    /// The previews of a shim list, which is freed.
    private static func list(_ handle: OpaquePointer) -> [Exiv2Preview] {
        defer { rb_exiv2_previews_free(handle) }
        var p = rb_exiv2_preview()
        return (0..<rb_exiv2_previews_count(handle)).compactMap { i in
            guard rb_exiv2_previews_get(handle, i, &p) != 0 else { return nil }
            let data = p.data == nil ? [] : Array(UnsafeBufferPointer(start: p.data, count: p.size))
            return Exiv2Preview(
                mimeType: String(cString: p.mime_type), width: Int(p.width), height: Int(p.height), data: data)
        }
    }

    /// Reads a file's Exif, IPTC and XMP from its bytes, already in memory (`ImageFactory::open(const byte*, long)`,
    /// BMFF enabled): exiv2 opens no file. With `previews`, the embedded previews are listed from the same parse
    /// (as `previews(path:maxBytes:)` lists them) into the document's `previews`.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - label: the file's path, which names it in errors (as `read(path:)` does).
    ///   - previews: list the embedded previews too.
    ///   - maxPreviewBytes: previews larger than this are listed without their bytes.
    /// - Throws: `Exiv2Error` with exiv2's message.
    public static func read(bytes: [UInt8], label: String?, previews: Bool = false, maxPreviewBytes: Int = 64 << 20)
        throws(Exiv2Error) -> Exiv2Document
    {
        let r = bytes.withUnsafeBytes { b in
            Result { () throws(Exiv2Error) in
                try read(memory: b, label: label, previews: previews, maxPreviewBytes: maxPreviewBytes)
            }
        }
        return try r.get()
    }

    /// `read(bytes:label:previews:maxPreviewBytes:)` of bytes the caller keeps in memory for the call (a worker's
    /// read-only view of the parent's sealed bytes: no copy of the file).
    public static func read(
        memory: UnsafeRawBufferPointer, label: String?, previews: Bool = false, maxPreviewBytes: Int = 64 << 20
    ) throws(Exiv2Error) -> Exiv2Document {
        var handle: OpaquePointer?
        var list: OpaquePointer?
        let cap = max(0, maxPreviewBytes)
        let p = (memory.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        try call("read", path: label) { msg, n in
            if previews { return rb_exiv2_read_memory(p, memory.count, label, &handle, &list, cap, msg, n) }
            return rb_exiv2_read_memory(p, memory.count, label, &handle, nil, cap, msg, n)
        }
        let found = list.map(Self.list) ?? []
        guard let handle else { throw Exiv2Error(operation: "read", path: label, message: "no result") }
        var doc = DocHandle(handle).document()
        doc.previews = found
        return doc
    }

    /// Byte order for a built Exif blob.
    public enum ByteOrder: Int32, Sendable {
        case keepSource = 0
        case littleEndian = 1
        case bigEndian = 2
    }

    /// Builds a clean Exif TIFF blob for a HEIC from a source file's Exif.
    ///
    /// Removes the thumbnail, strip/tile/SubIFD/JPEGInterchangeFormat/CFA and image-structure tags, SubImage and
    /// Image2+ groups and DNG tags 0xC612–0xC7FF; sets Orientation 1 (the pixels are written upright),
    /// PixelXDimension/PixelYDimension and Software. Then encodes (`ExifParser::encode`) and compares after
    /// encoding, because encode silently drops or shrinks entries to stay under 64 KB.
    /// - Parameters:
    ///   - path: the source file (any format exiv2 reads).
    ///   - pixelWidth: the output's width (0 leaves the dimension tags alone).
    ///   - pixelHeight: the output's height.
    ///   - software: the Software string, or nil to keep the source's.
    ///   - byteOrder: the blob's byte order.
    /// - Returns: the blob and the encoding losses.
    /// - Throws: `Exiv2Error` when the file cannot be read or encoding fails.
    public static func buildHEICExif(
        from path: String, pixelWidth: Int, pixelHeight: Int, software: String?, byteOrder: ByteOrder = .keepSource
    ) throws(Exiv2Error) -> ExifBlob {
        var handle: OpaquePointer?
        let w = UInt32(clamping: pixelWidth)
        let h = UInt32(clamping: pixelHeight)
        try call("build Exif", path: path) { msg, cap in
            if let software {
                return rb_exiv2_build_heic_exif(path, w, h, software, byteOrder.rawValue, &handle, msg, cap)
            }
            return rb_exiv2_build_heic_exif(path, w, h, nil, byteOrder.rawValue, &handle, msg, cap)
        }
        guard let handle else { throw Exiv2Error(operation: "build Exif", path: path, message: "no result") }
        let blob = BlobHandle(handle)
        return ExifBlob(bytes: blob.bytes, encodingLosses: blob.report)
    }

    /// The output's Exif and XMP from one parse of the source's bytes, already in memory (exiv2 opens no file): what
    /// `buildHEICExif(from:pixelWidth:pixelHeight:software:byteOrder:)` and
    /// `buildXMP(from:sidecar:pixelWidth:pixelHeight:)` give for the file, each with its own result; `label`, the
    /// file's path, names it in errors. `sidecar` is the XMP sidecar's bytes and path, already read.
    public static func buildHEICMetadata(
        bytes: [UInt8], label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (bytes: [UInt8], label: String)?, byteOrder: ByteOrder = .keepSource
    ) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>) {
        let side = sidecar?.bytes ?? []
        return bytes.withUnsafeBytes { b in
            side.withUnsafeBytes { sb in
                buildHEICMetadata(
                    memory: b, label: label, pixelWidth: pixelWidth, pixelHeight: pixelHeight, software: software,
                    sidecar: sidecar.map { (sb, $0.label) }, byteOrder: byteOrder)
            }
        }
    }

    /// `buildHEICMetadata(bytes:label:pixelWidth:pixelHeight:software:sidecar:byteOrder:)` of bytes the caller keeps
    /// in memory for the call (a worker's read-only view of the parent's sealed bytes: no copy of the file).
    public static func buildHEICMetadata(
        memory: UnsafeRawBufferPointer, label: String, pixelWidth: Int, pixelHeight: Int, software: String?,
        sidecar: (memory: UnsafeRawBufferPointer, label: String)?, byteOrder: ByteOrder = .keepSource
    ) -> (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>) {
        var exif: OpaquePointer?
        var xmp: OpaquePointer?
        var (exifStatus, xmpStatus) = (RB_EXIV2_ERROR, RB_EXIV2_ERROR)
        var exifMessage = [CChar](repeating: 0, count: 1024)
        var xmpMessage = [CChar](repeating: 0, count: 1024)
        let (w, h) = (UInt32(clamping: pixelWidth), UInt32(clamping: pixelHeight))
        func bytes(_ m: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
            (m.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        }
        exifMessage.withUnsafeMutableBufferPointer { em in
            xmpMessage.withUnsafeMutableBufferPointer { xm in
                _ = rb_exiv2_build_heic_metadata_memory(
                    bytes(memory), memory.count, label, w, h, software, byteOrder.rawValue,
                    sidecar.map { bytes($0.memory) }, sidecar?.memory.count ?? 0, sidecar?.label, &exif, &exifStatus,
                    &xmp, &xmpStatus, em.baseAddress!, xm.baseAddress!, min(em.count, xm.count))
            }
        }
        func failure(_ operation: String, _ status: rb_exiv2_status, _ buffer: [CChar]) -> Exiv2Error {
            var message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if message.isEmpty { message = status == RB_EXIV2_BAD_ARGUMENT ? "bad argument" : "failed" }
            message = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
            return Exiv2Error(operation: operation, path: label, message: message)
        }
        let exifResult: Result<ExifBlob, Exiv2Error>
        if exifStatus == RB_EXIV2_OK, let exif {
            let blob = BlobHandle(exif)
            exifResult = .success(ExifBlob(bytes: blob.bytes, encodingLosses: blob.report))
        } else {
            exifResult = .failure(failure("build Exif", exifStatus, exifMessage))
        }
        let xmpResult: Result<[UInt8], Exiv2Error> =
            xmpStatus == RB_EXIV2_OK && xmp != nil
            ? .success(BlobHandle(xmp!).bytes) : .failure(failure("build XMP", xmpStatus, xmpMessage))
        return (exifResult, xmpResult)
    }

    /// Builds an XMP packet from a file's XMP merged with its sidecar (rating, label, keywords, caption).
    /// - Parameters:
    ///   - path: the source file.
    ///   - sidecar: the `.xmp` sidecar, or nil.
    ///   - pixelWidth: output width; updates exif:PixelXDimension / tiff:ImageWidth when present (0: leave).
    ///   - pixelHeight: output height.
    /// - Returns: the packet bytes without a packet wrapper; empty when there is no XMP at all.
    /// - Throws: `Exiv2Error` when a file cannot be read or the packet cannot be encoded.
    public static func buildXMP(from path: String, sidecar: String?, pixelWidth: Int = 0, pixelHeight: Int = 0)
        throws(Exiv2Error) -> [UInt8]
    {
        var handle: OpaquePointer?
        let w = UInt32(clamping: pixelWidth)
        let h = UInt32(clamping: pixelHeight)
        try call("build XMP", path: path) { msg, cap in
            if let sidecar { return rb_exiv2_build_xmp(path, sidecar, w, h, &handle, msg, cap) }
            return rb_exiv2_build_xmp(path, nil, w, h, &handle, msg, cap)
        }
        guard let handle else { throw Exiv2Error(operation: "build XMP", path: path, message: "no result") }
        return BlobHandle(handle).bytes
    }
}
