import Digest

extension SHA256 {
    /// The digest of a source file as lowercase hex, never read through a symlink (the batch's change fingerprint).
    /// - Throws: `BatchError.io` naming the file and the failed call.
    static func hex(ofFileAt path: String) throws -> String {
        do { return try hex(fileAtPath: path, followSymlinks: false) } catch let e as SHA256.FileError {
            throw BatchError.io(path: e.path, operation: e.operation, errno: e.errno)
        }
    }
}
