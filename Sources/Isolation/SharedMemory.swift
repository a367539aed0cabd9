import CIsolation
import Foundation

/// A memory file (memfd) mapped into this process; unmapped when the last reference goes. The pixels a worker
/// decoded are read through it in place.
public final class SharedMapping: @unchecked Sendable {
    public let base: UnsafeMutableRawPointer
    public let count: Int

    private init(base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { munmap(base, max(count, 1)) }

    /// Maps `fd` (`count` bytes, at least 1 mapped), read-only or writable, shared.
    static func map(_ fd: Int32, count: Int, writable: Bool) throws -> SharedMapping {
        let prot = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
        guard let p = mmap(nil, max(count, 1), prot, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw IsolationError.system("mmap of \(count) bytes", errno)
        }
        return SharedMapping(base: p, count: count)
    }
}

/// A memfd holding `bytes`, sealed against any change: the request a worker reads.
func sealedMemoryFile(_ bytes: [UInt8]) throws -> Int32 {
    let fd = rb_memfd("readback-input", bytes.count)
    guard fd >= 0 else { throw IsolationError.system("memfd_create", -fd) }
    do {
        let m = try SharedMapping.map(fd, count: bytes.count, writable: true)
        bytes.withUnsafeBytes { b in
            if let src = b.baseAddress { m.base.copyMemory(from: src, byteCount: b.count) }
        }
    } catch {
        close(fd)
        throw error
    }
    let rc = rb_seal(fd)
    guard rc == 0 else {
        close(fd)
        throw IsolationError.system("sealing the input memfd", -rc)
    }
    return fd
}

/// A failure of the isolation machinery itself (not of a decoder).
public enum IsolationError: Error, CustomStringConvertible, Sendable {
    case system(String, Int32)
    case protocolError(String)
    /// An idle worker was gone before it got the request (nothing of the file was read).
    case workerGone

    public var description: String {
        switch self {
        case .system(let what, let e): return "\(what) failed: \(String(cString: strerror(e)))"
        case .protocolError(let what): return "worker protocol: \(what)"
        case .workerGone: return "the decoder's worker was gone before the request"
        }
    }
}
