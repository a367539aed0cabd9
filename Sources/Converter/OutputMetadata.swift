import Exiv2Bridge
import FileFacts
import Foundation

/// The output's metadata, written at encode time.
enum OutputMetadata {
    /// The XMP sidecar merged into the output's XMP: `options.sidecar`, else one beside the source.
    static func sidecar(for source: URL, options: ConvertOptions) -> URL? {
        options.sidecar ?? Sidecar.locate(for: source)
    }

    /// Exif (CIPA DC-008) rebuilt by exiv2 for the output: Orientation 1, new pixel dimensions, Software; and the
    /// file's XMP merged with its sidecar. What exiv2 could not re-encode (e.g. an oversized MakerNote) is a known loss.
    /// - Parameter bytes: the source file, already in memory (exiv2 reads it from there; only the sidecar is opened).
    static func build(
        for source: URL, bytes: [UInt8], width: Int, height: Int, options: ConvertOptions, losses: inout [String]
    ) -> (exif: [UInt8]?, xmp: [UInt8]?, sidecar: [String]) {
        // One parse of the source's bytes gives both (exiv2 opens nothing but the sidecar).
        let side = sidecar(for: source, options: options)
        let built = Exiv2.buildHEICMetadata(
            bytes: bytes, label: source.path, pixelWidth: width, pixelHeight: height, software: options.software,
            sidecar: side?.path)
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
        return (exif, xmp, side.map { sidecarRoutes($0, output: xmp) } ?? [])
    }

    /// Where the sidecar's properties went ("IMG_1.CR2.xmp → XMP: xmp:Rating, …"), one line per destination.
    static func sidecarRoutes(_ sidecar: URL, output xmp: [UInt8]?) -> [String] {
        let name = sidecar.lastPathComponent
        guard let doc = try? Exiv2.read(path: sidecar.path) else { return ["\(name): unreadable, nothing carried"] }
        let outputKeys = xmp.flatMap { try? Exiv2.decodeXMP($0) }?.entries.map(\.key) ?? []
        let keys = doc.entries.filter { $0.family == .xmp }.map(\.key)
        return Sidecar.routes(sidecarKeys: keys, outputKeys: outputKeys).map { "\(name) \($0)" }
    }
}
