import CCrypto
import Digest

/// SHA-256 of whole files through OpenSSL's libcrypto, which uses the CPU's SHA extensions where present: the batch
/// fingerprints every source (tens of megabytes each), and the pure-Swift `Digest.SHA256` is several times slower
/// (docs/tiling.md). The digest is the same (a test holds them equal); `Digest.SHA256` stays the implementation for
/// in-memory bytes and the pure cores.
public enum FileSHA256 {
    /// The digest of the file at `path` as lowercase hex, read in 1 MiB chunks (bounded memory).
    /// - Parameter followSymlinks: false refuses a symlink at `path` (O_NOFOLLOW), as the batch does for sources.
    /// - Throws: `SHA256.FileError` when the file cannot be opened or read (or libcrypto fails, errno 0).
    public static func hex(fileAtPath path: String, followSymlinks: Bool = true) throws(SHA256.FileError) -> String {
        guard let ctx = EVP_MD_CTX_new() else {
            throw SHA256.FileError(path: path, operation: "start SHA-256 (EVP_MD_CTX_new)", errno: 0)
        }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            throw SHA256.FileError(path: path, operation: "start SHA-256 (EVP_DigestInit_ex)", errno: 0)
        }
        var updated = true
        try SHA256.forEachChunk(ofFileAt: path, followSymlinks: followSymlinks) {
            updated = EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) == 1
            return updated
        }
        guard updated else { throw SHA256.FileError(path: path, operation: "hash (EVP_DigestUpdate)", errno: 0) }
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(ctx, $0.baseAddress, &len) }
        guard ok == 1, len == 32 else {
            throw SHA256.FileError(path: path, operation: "finish SHA-256 (EVP_DigestFinal_ex)", errno: 0)
        }
        return SHA256.hexString(out)
    }

    /// The digest of bytes already in memory as lowercase hex (libcrypto's one-shot `EVP_Digest`): a source the batch
    /// read once is fingerprinted from memory, with the digest `hex(fileAtPath:)` gives for its file.
    public static func hex(bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        let ok =
            bytes.withUnsafeBytes { b in
                out.withUnsafeMutableBufferPointer {
                    EVP_Digest(b.baseAddress, b.count, $0.baseAddress, &len, EVP_sha256(), nil)
                }
            } == 1 && len == 32
        // libcrypto's one-shot digest does not fail on valid pointers; the pure-Swift digest stands in if it did.
        return ok ? SHA256.hexString(out) : SHA256.hex(bytes)
    }
}
