import Foundation
import HEIF

/// Wraps one image item of a file as the primary of a minimal HEIF that libheif can decode on its own.
enum Rewrap {
    /// The standalone file for `item` (`HEIFFile.standaloneFile(for:)`), or nil when it cannot be built.
    static func standalone(_ file: HEIFFile, _ item: UInt32) -> [UInt8]? {
        file.standaloneFile(for: item)
    }
}
