import Digest
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
}
