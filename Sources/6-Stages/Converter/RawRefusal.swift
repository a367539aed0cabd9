import Exiv2Bridge
import Foundation
import Isolation
import RawDecoder

/// A RAW LibRaw refused, named by its camera: the Exif Make and Model exiv2 reads from the same bytes (in a worker
/// when the pool is installed). A file exiv2 cannot read either keeps LibRaw's own reason.
enum RawRefusal {
    /// The one-line reason for `error` on the file whose bytes are `bytes`.
    static func reason(_ error: RawDecodeError, bytes: [UInt8], decoders: any Decoders) -> String {
        let identified = error.identified.flatMap {
            CameraIdentity(make: $0.first, model: $0.last, cameras: LibRaw.cameras)
        }
        return reason(error, camera: camera(in: bytes, decoders: decoders) ?? identified)
    }

    static func reason(_ error: RawDecodeError, camera: CameraIdentity?) -> String {
        error.reason(camera: camera, cameras: camera == nil ? [] : LibRaw.cameras)
    }

    /// The camera the file's Exif names, or nil when it names none (or exiv2 cannot read it).
    static func camera(in bytes: [UInt8], decoders: any Decoders) -> CameraIdentity? {
        guard let doc = try? decoders.exiv2(bytes: bytes, label: nil) else { return nil }
        func text(_ key: String) -> String? { doc.entries.first { $0.key == key }?.text }
        return CameraIdentity(
            make: text("Exif.Image.Make"), model: text("Exif.Image.Model"), cameras: LibRaw.cameras)
    }
}
