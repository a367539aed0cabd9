import Foundation
import Isolation
import RawDecoder

/// A RAW at a glance, for `readback inspect`: the camera its metadata names and whether LibRaw lists it, the DNG
/// version and compression, and what LibRaw reads from it (sizes, levels, clipped share) or why it refuses it, in the
/// same words `convert` uses. Decoded in a worker when the pool is installed.
public struct RawInspection: Sendable, Codable, Equatable {
    public static let schemaVersion = 1
    public var schemaVersion = Self.schemaVersion
    public var file: String
    public var bytes: Int
    /// "Canon EOS R6", from the file's Exif (else from what LibRaw identified); nil when nothing names a camera.
    public var camera: String?
    /// Whether LibRaw's camera list names the camera (nil when no camera is named).
    public var listed: Bool?
    public var libRaw: String
    /// "1.7.0.0" for a DNG, else nil.
    public var dngVersion: String?
    /// The raw data is DNG 1.7 JPEG XL (Compression 52546), decoded with libjxl.
    public var jpegXL: Bool
    /// What LibRaw read, when it read raw data.
    public var decoded: Decoded?
    /// Why the file cannot be converted, when it cannot.
    public var refusal: String?

    public struct Decoded: Sendable, Codable, Equatable {
        public var width: Int, height: Int
        public var sensorWidth: Int, sensorHeight: Int
        public var blackLevel: Int, whiteLevel: Int
        public var linear: Bool
        public var clippedFraction: Double
    }

    /// Reads and decodes `path` (a RAW by its extension: `HEICConverter.rawExtensions`).
    /// - Throws: the file-system error when it cannot be read.
    public static func inspect(_ path: String, decoders: any Decoders) throws -> RawInspection {
        let url = URL(fileURLWithPath: path)
        let bytes = [UInt8](try Data(contentsOf: url))
        let named = RawRefusal.camera(in: bytes, decoders: decoders)
        var out = RawInspection(
            file: path, bytes: bytes.count, camera: named?.name, listed: named.map { $0.isListed(in: LibRaw.cameras) },
            libRaw: "LibRaw \(LibRaw.shortVersion)", dngVersion: nil, jpegXL: JXLDNG.isJXLDNG(Data(bytes)))
        do {
            let (meta, _) = try decoders.raw(
                bytes: bytes, name: url.lastPathComponent, options: RawDecodeOptions(halfSize: true))
            if out.camera == nil, let c = CameraIdentity(make: meta.make, model: meta.model, cameras: LibRaw.cameras) {
                (out.camera, out.listed) = (c.name, c.isListed(in: LibRaw.cameras))
            }
            if meta.isDNG {
                out.dngVersion = (0..<4).map { String((meta.dngVersion >> (24 - 8 * $0)) & 0xFF) }.joined(
                    separator: ".")
            }
            out.decoded = Decoded(
                width: meta.width, height: meta.height, sensorWidth: meta.rawWidth, sensorHeight: meta.rawHeight,
                blackLevel: meta.blackLevel, whiteLevel: meta.whiteLevel, linear: meta.isLinearDNG,
                clippedFraction: meta.clippedFraction)
        } catch {
            guard case .library(.libRaw(let e)) = error else {
                out.refusal = "\(error)"
                return out
            }
            let identified = e.identified.flatMap {
                CameraIdentity(make: $0.first, model: $0.last, cameras: LibRaw.cameras)
            }
            if out.camera == nil, let c = identified {
                (out.camera, out.listed) = (c.name, c.isListed(in: LibRaw.cameras))
            }
            out.refusal = RawRefusal.reason(e, camera: named ?? identified)
        }
        return out
    }

    /// The summary a person reads.
    public func text() -> String {
        var lines = ["\(file): \(bytes) bytes"]
        if let camera {
            let note =
                listed == true
                ? "\(libRaw) lists it"
                : dngVersion != nil ? "a DNG: read by its own tags" : "not in \(libRaw)'s camera list: readback cameras"
            lines.append("camera: \(camera) (\(note))")
        } else {
            lines.append("camera: none named")
        }
        if let dngVersion {
            lines.append("format: DNG \(dngVersion)" + (jpegXL ? ", JPEG XL raw data (decoded with libjxl)" : ""))
        } else if jpegXL {
            lines.append("format: JPEG XL raw data (decoded with libjxl)")
        }
        if let d = decoded {
            lines.append(
                "raw data: \(d.width)×\(d.height) visible of \(d.sensorWidth)×\(d.sensorHeight), "
                    + (d.linear ? "linear (demosaiced), " : "")
                    + "black \(d.blackLevel), white \(d.whiteLevel), "
                    + String(format: "%.1f%% clipped", d.clippedFraction * 100))
        }
        if let refusal { lines.append("raw data: refused: \(refusal)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The versioned machine form, keys sorted.
    public func json() throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try e.encode(self), as: UTF8.self) + "\n"
    }
}
