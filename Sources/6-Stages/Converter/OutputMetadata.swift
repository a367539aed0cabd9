import Exiv2Bridge
import FileFacts
import Foundation
import Isolation

/// The output's metadata, written at encode time.
enum OutputMetadata {
    /// The XMP sidecar merged into the output's XMP: `options.sidecar`, else one beside the source.
    static func sidecar(for source: URL, options: ConvertOptions) -> URL? {
        options.sidecar ?? Sidecar.locate(for: source)
    }

    /// Exif (CIPA DC-008) rebuilt by exiv2 for the output: Orientation 1, new pixel dimensions, Software; and the
    /// file's XMP merged with its sidecar. What exiv2 could not re-encode (e.g. an oversized MakerNote) is a known loss.
    /// exiv2 parses the source's and the sidecar's bytes in a decoder worker (the sidecar is read here).
    /// - Parameter bytes: the source file, already in memory.
    /// - Throws: `ConvertError` with a `decode.*` code when exiv2's worker died, hung or ran out of memory.
    static func build(
        for source: URL, bytes: [UInt8], width: Int, height: Int, options: ConvertOptions, decoders: any Decoders,
        losses: inout [String]
    ) throws -> (exif: [UInt8]?, xmp: [UInt8]?, sidecar: [String]) {
        var side = sidecar(for: source, options: options)
        var sidecarBytes: [UInt8]?
        if let url = side {
            switch Sidecars.bytes(url) {
            case .success(let b): sidecarBytes = b
            case .failure(let e):
                losses.append("XMP sidecar \(url.lastPathComponent) not carried: \(e.message)")
                side = nil
            }
        }
        let built: (exif: Result<ExifBlob, Exiv2Error>, xmp: Result<[UInt8], Exiv2Error>)
        do {
            built = try decoders.buildHEICMetadata(
                bytes: bytes, label: source.path, pixelWidth: width, pixelHeight: height, software: options.software,
                sidecar: side.flatMap { url in sidecarBytes.map { ($0, url.path) } }, byteOrder: .keepSource)
        } catch {
            if case .worker = error { throw ConvertError(file: source.lastPathComponent, failure: error) }
            // No answer, and the worker is alive: neither is carried, for the same reason.
            let e = Exiv2Error(operation: "read", path: source.path, message: error.message)
            built = (.failure(e), .failure(e))
        }
        var exif: [UInt8]?
        switch built.exif {
        case .success(let blob):
            if !blob.bytes.isEmpty { exif = blob.bytes }  // a source without Exif loses nothing
            losses += blob.encodingLosses.map { "Exif: \($0)" }
        case .failure(let error): losses.append("Exif not carried: \(error)")
        }
        var xmp: [UInt8]?
        switch built.xmp {
        case .success(let packet): if !packet.isEmpty { xmp = packet }
        case .failure(let error): losses.append("XMP not carried: \(error)")
        }
        // The XMP that Exif carried in tag 700 (XMLPacket) is written as the XMP item instead: not a loss.
        if xmp != nil { losses.removeAll { $0.contains("Exif.Image.XMLPacket") } }
        let routes =
            side.flatMap { url in sidecarBytes.map { sidecarRoutes(url, bytes: $0, output: xmp, decoders: decoders) } }
            ?? []
        return (exif, xmp, routes)
    }

    /// Where the sidecar's properties went ("IMG_1.CR2.xmp → XMP: xmp:Rating, …"), one line per destination.
    /// - Parameter bytes: the sidecar, already read.
    static func sidecarRoutes(_ sidecar: URL, bytes: [UInt8], output xmp: [UInt8]?, decoders: any Decoders)
        -> [String]
    {
        let name = sidecar.lastPathComponent
        guard let doc = try? decoders.exiv2(bytes: bytes, label: sidecar.path) else {
            return ["\(name): unreadable, nothing carried"]
        }
        let outputKeys = xmp.flatMap { try? decoders.exiv2XMP($0) }?.entries.map(\.key) ?? []
        let keys = doc.entries.filter { $0.family == .xmp }.map(\.key)
        return Sidecar.routes(sidecarKeys: keys, outputKeys: outputKeys).map { "\(name) \($0)" }
    }
}
