import Foundation
import Hashing
import Testing

@testable import Digest

/// FIPS 180-4 / NIST CAVP short-message vectors, one-shot.
@Test func sha256KnownVectors() {
    #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
        SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
        SHA256.hex([UInt8](repeating: 0x61, count: 1000))
            == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    #expect(SHA256.digest(Array("abc".utf8)).count == 32)
}

/// One million 'a' fed in 1,000-byte chunks (the FIPS 180-2 long vector).
@Test func sha256StreamsTheMillionAVector() {
    var s = SHA256()
    for _ in 0..<1000 { s.update([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) }
    #expect(s.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
}

/// Streaming across odd chunk sizes (inside, at and across the 64-byte block) equals one shot, and `sha256sum`
/// (coreutils, an independent implementation) agrees for the same bytes written to a file.
@Test func sha256StreamingEqualsOneShotAndSha256sum() throws {
    let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 3) }
    var s = SHA256()
    var i = 0
    for step in [1, 63, 64, 65, 127, 3000] where i < bytes.count {
        let end = min(bytes.count, i + step)
        s.update(Array(bytes[i..<end]))
        i = end
    }
    s.update(Array(bytes[i...]))
    let streamed = s.hexDigest()
    #expect(streamed == SHA256.hex(bytes))
    #expect(streamed == SHA256.hex(Data(bytes)))

    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("x.bin")
    try Data(bytes).write(to: file)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    p.arguments = [file.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    p.waitUntilExit()
    let oracle = String(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64))
    #expect(oracle.count == 64)
    #expect(try SHA256.hex(fileAt: file) == oracle)
    #expect(streamed == oracle)

    // A symlink is refused when asked (the batch never hashes through one); a missing file is a FileError.
    let link = dir.appendingPathComponent("link.bin")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
    #expect(try SHA256.hex(fileAtPath: link.path) == oracle)
    #expect(throws: SHA256.FileError.self) { try SHA256.hex(fileAtPath: link.path, followSymlinks: false) }
    #expect(throws: SHA256.FileError.self) { try SHA256.hex(fileAtPath: dir.appendingPathComponent("no").path) }
}

// MARK: - Hashing (libcrypto) agrees with Digest

/// The batch's file fingerprint through libcrypto equals the pure-Swift digest byte for byte, at every length around
/// the block and chunk boundaries, and fails the same way on a missing file and on a refused symlink.
@Test func fileSHA256ThroughLibcryptoEqualsDigest() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hashing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    for n in [0, 1, 55, 56, 63, 64, 65, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 3, 3 << 20] {
        var bytes = [UInt8](repeating: 0, count: n)
        for i in 0..<n {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[i] = UInt8(truncatingIfNeeded: state)
        }
        let url = dir.appendingPathComponent("f\(n)")
        try Data(bytes).write(to: url)
        let fast = try FileSHA256.hex(fileAtPath: url.path)
        #expect(fast == SHA256.hex(bytes), "length \(n)")
        #expect(fast == (try SHA256.hex(fileAtPath: url.path)), "length \(n)")
    }
    #expect(
        (try? FileSHA256.hex(fileAtPath: dir.appendingPathComponent("f0").path))
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    let missing = dir.appendingPathComponent("missing").path
    #expect(throws: SHA256.FileError(path: missing, operation: "open", errno: ENOENT)) {
        try FileSHA256.hex(fileAtPath: missing)
    }
    let link = dir.appendingPathComponent("link").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir.appendingPathComponent("f1").path)
    #expect(
        try FileSHA256.hex(fileAtPath: link) == (try FileSHA256.hex(fileAtPath: dir.appendingPathComponent("f1").path)))
    #expect(throws: SHA256.FileError(path: link, operation: "open", errno: ELOOP)) {
        try FileSHA256.hex(fileAtPath: link, followSymlinks: false)
    }
}
