import Foundation

/// SHA-256 (FIPS 180-4), streaming, in pure Swift: Foundation on Linux has none. The implementation the pure cores and
/// in-memory bytes use — the audit report's file digests, the corpus manifest, the hashes of binary metadata values.
/// Whole source files in a batch go through `Hashing.FileSHA256` (libcrypto, much faster with the CPU's SHA
/// extensions; docs/tiling.md), which a test holds equal to this one.
public struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    public init() {}

    /// Feeds more bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            if pending.count == 64 {
                let block = pending
                block.withUnsafeBytes { compress($0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        while bytes.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
            offset += 64
        }
        if offset < bytes.count { pending.append(contentsOf: bytes[offset...]) }
    }

    /// Feeds more bytes.
    public mutating func update<C: ContiguousBytes>(_ data: C) {
        data.withUnsafeBytes { update($0) }
    }

    /// Pads, finishes and returns the 32-byte digest.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        let used = (pending.count + 1) % 64
        tail += [UInt8](repeating: 0, count: used <= 56 ? 56 - used : 120 - used)
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        let savedLength = length
        tail.withUnsafeBytes { update($0) }
        length = savedLength
        precondition(pending.isEmpty, "SHA-256 padding left a partial block")
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for w in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            out += [
                UInt8(w >> 24), UInt8(truncatingIfNeeded: w >> 16), UInt8(truncatingIfNeeded: w >> 8),
                UInt8(truncatingIfNeeded: w),
            ]
        }
        return out
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                let b = i * 4
                w[i] =
                    UInt32(block[b]) << 24 | UInt32(block[b + 1]) << 16 | UInt32(block[b + 2]) << 8
                    | UInt32(block[b + 3])
            }
            for i in 16..<64 {
                let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let bigSigma1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ bigSigma1 &+ ch &+ k[i] &+ w[i]
                    let bigSigma0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = bigSigma0 &+ maj
                    hh = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits.
    public mutating func hexDigest() -> String { Self.hexString(finalize()) }

    /// The 32-byte digest of `bytes`.
    public static func digest<C: ContiguousBytes>(_ bytes: C) -> [UInt8] {
        var s = SHA256()
        s.update(bytes)
        return s.finalize()
    }

    /// The digest of `bytes` as lowercase hex.
    public static func hex<C: ContiguousBytes>(_ bytes: C) -> String { hexString(digest(bytes)) }

    /// A file that could not be hashed: the path, the system call that failed and its errno.
    public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var operation: String
        public var errno: Int32
        public var description: String {
            errno == 0
                ? "\(path): cannot \(operation)" : "\(path): cannot \(operation): \(String(cString: strerror(errno)))"
        }

        public init(path: String, operation: String, errno: Int32) {
            self.path = path
            self.operation = operation
            self.errno = errno
        }
    }

    /// The digest of the file at `path` as lowercase hex, read in 1 MiB chunks (bounded memory).
    /// - Parameter followSymlinks: false refuses a symlink at `path` (O_NOFOLLOW), as the batch does for sources.
    /// - Throws: `FileError` when the file cannot be opened or read.
    public static func hex(fileAtPath path: String, followSymlinks: Bool = true) throws -> String {
        var s = SHA256()
        try forEachChunk(ofFileAt: path, followSymlinks: followSymlinks) {
            s.update($0)
            return true
        }
        return s.hexDigest()
    }

    /// Reads the file at `path` in 1 MiB chunks (bounded memory) and hands each to `body` — the file reading every
    /// whole-file digest shares (this one and `Hashing.FileSHA256`).
    /// - Parameters:
    ///   - followSymlinks: false refuses a symlink at `path` (O_NOFOLLOW).
    ///   - body: takes one chunk; returns false to stop reading.
    /// - Throws: `FileError` when the file cannot be opened or read.
    public static func forEachChunk(
        ofFileAt path: String, followSymlinks: Bool = true, _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(FileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw FileError(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        let chunk = 1 << 20
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buf.deallocate() }
        while true {
            let n = read(fd, buf.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, operation: "read", errno: errno)
            }
            if n == 0 || !body(UnsafeRawBufferPointer(rebasing: buf[0..<n])) { return }
        }
    }

    /// The digest of the file at `url` as lowercase hex (see `hex(fileAtPath:followSymlinks:)`).
    public static func hex(fileAt url: URL) throws -> String { try hex(fileAtPath: url.path) }

    /// Lowercase hex of `d`.
    public static func hexString(_ d: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(d.count * 2)
        for b in d {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
