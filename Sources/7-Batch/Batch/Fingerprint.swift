import Digest
import FileContent
import Hashing

extension SHA256 {
    /// The digest of a source file as lowercase hex (libcrypto, `Hashing`), never read through a symlink (the batch's
    /// change fingerprint).
    /// - Throws: `BatchError.io` naming the file and the failed call.
    static func hex(ofFileAt path: String) throws -> String {
        do { return try FileSHA256.hex(fileAtPath: path, followSymlinks: false) } catch {
            throw BatchError.io(path: error.path, operation: error.operation, errno: error.errno)
        }
    }

    /// A source's whole content, read once for its fingerprint, its conversion and its read-back, never through a
    /// symlink.
    /// - Throws: `BatchError.io` naming the file.
    static func source(_ path: String) throws -> [UInt8] {
        do { return try FileContent.read(path: path, followSymlinks: false) } catch {
            throw BatchError.io(path: path, operation: "read (\(error))", errno: error.errno)
        }
    }

    /// The fingerprint of a source already in memory (libcrypto, the same digest as `hex(ofFileAt:)`).
    static func hex(ofSource bytes: [UInt8]) -> String { FileSHA256.hex(bytes: bytes) }
}
