import CIsolation
import Foundation

/// A memory file (memfd) mapped into this process; unmapped when the last reference goes. The pixels a worker
/// decoded are read through it in place. A lease (`lease(count:released:)`) is a view of another mapping that tells
/// its owner when it goes: how a worker's kept grant is known to be free again (docs/security.md, "Kept grants").
// unchecked: immutable: a fixed mapping, read through `base`; writers own disjoint parts of it.
public final class SharedMapping: @unchecked Sendable {
    public let base: UnsafeMutableRawPointer
    public let count: Int
    /// A lease's mapping, kept mapped while the lease lives.
    private let leased: SharedMapping?
    private let released: (@Sendable () -> Void)?

    private init(
        base: UnsafeMutableRawPointer, count: Int, leased: SharedMapping? = nil,
        released: (@Sendable () -> Void)? = nil
    ) {
        self.base = base
        self.count = count
        self.leased = leased
        self.released = released
    }

    deinit {
        if let released {
            released()
        } else if leased == nil {
            munmap(base, max(count, 1))
        }
    }

    /// Maps `fd` (`count` bytes, at least 1 mapped), read-only or writable, shared.
    static func map(_ fd: Int32, count: Int, writable: Bool) throws -> SharedMapping {
        let prot = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
        guard let p = mmap(nil, max(count, 1), prot, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw IsolationError.system("mmap of \(count) bytes", errno)
        }
        return SharedMapping(base: p, count: count)
    }

    /// A view of this mapping's first `count` bytes (at most its size) that calls `released` when its last reference
    /// goes; it keeps this mapping mapped until then.
    func lease(count: Int, released: @escaping @Sendable () -> Void) -> SharedMapping {
        SharedMapping(base: base, count: min(count, self.count), leased: self, released: released)
    }
}

/// A memfd holding `bytes`, sealed against any change: the request a worker reads. The bytes go in with `pwrite`,
/// not through a writable mapping: the kernel fills each new page of the memory file with the bytes once, where a
/// mapping would take a page fault and zero each page first (25 against 45 ms for a 46 MB RAW here, docs/bench.md).
func sealedMemoryFile(_ bytes: [UInt8]) throws -> Int32 {
    let fd = rb_memfd("readback-input", bytes.count)
    guard fd >= 0 else { throw IsolationError.system("memfd_create", -fd) }
    let failure = bytes.withUnsafeBytes { b -> Int32 in
        var done = 0
        while done < b.count {
            let n = pwrite(fd, b.baseAddress! + done, min(b.count - done, 1 << 24), off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            done += n
        }
        return 0
    }
    guard failure == 0 else {
        close(fd)
        throw IsolationError.system("writing \(bytes.count) bytes to the input memfd", failure)
    }
    let rc = rb_seal(fd)
    guard rc == 0 else {
        close(fd)
        throw IsolationError.system("sealing the input memfd", -rc)
    }
    return fd
}

/// A sealed memfd holding a request's bytes; closed when the last reference goes.
// unchecked: immutable: a sealed memfd, closed in deinit.
final class SealedInput: @unchecked Sendable {
    let fd: Int32

    init(_ bytes: [UInt8]) throws { fd = try sealedMemoryFile(bytes) }

    deinit { close(fd) }
}

/// The sealed inputs of the last few large byte arrays sent to workers, so the same file's bytes cross into shared
/// memory once, not once per request: a RAW goes to LibRaw, to exiv2 for its previews, to exiv2 again for the
/// output's metadata and for the read-back audit (four 48 MB copies and their page faults per 24 MP file, the most of
/// what the workers cost a conversion beyond the in-process path, docs/bench.md). An entry is found by the array's
/// storage (its base address and count) and keeps that array alive, so no other array can have the same storage
/// while it is cached, and a caller that mutates its array gets new storage (copy on write) and a new entry. The
/// memfd is sealed against writes, so a worker can read it but never change what the next one reads.
// unchecked: every mutable field is read and written under `lock`.
final class SealedInputCache: @unchecked Sendable {
    /// Arrays smaller than this are sealed per request (a copy of them costs nothing worth keeping memory for).
    static let minimumBytes = 1 << 20

    private let capacity: Int
    private let lock = NSLock()
    private var entries: [(bytes: [UInt8], input: SealedInput)] = []
    /// Inputs being sealed: a second request for the same array waits for the first's memfd. The camera look's
    /// preview lookup and LibRaw's decode ask for a RAW's bytes at the same moment; each made its own 48 MB copy.
    private var sealing: [(bytes: [UInt8], job: Sealing)] = []

    /// One array's sealing in progress and its outcome, handed to every request that waited for it.
    // unchecked: the sealing thread writes `outcome` before signalling `done`; waiters read it after.
    private final class Sealing: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var outcome: Result<SealedInput, Error> = .failure(IsolationError.protocolError("sealing did not finish"))
    }

    /// - Parameter capacity: the inputs kept, most recently used last (a pool keeps one per worker: one file each).
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The sealed input holding `bytes`: the cached one when these are the same array's bytes, or the one another
    /// thread is sealing for them.
    func input(for bytes: [UInt8]) throws -> SealedInput {
        guard bytes.count >= Self.minimumBytes else { return try SealedInput(bytes) }
        let key = Self.storage(bytes)
        let same = { (other: [UInt8]) in other.count == bytes.count && Self.storage(other) == key }
        lock.lock()
        if let i = entries.firstIndex(where: { same($0.bytes) }) {
            let e = entries.remove(at: i)
            entries.append(e)
            lock.unlock()
            return e.input
        }
        if let waiting = sealing.first(where: { same($0.bytes) })?.job {
            lock.unlock()
            waiting.done.wait()
            waiting.done.signal()  // for the next one waiting
            return try waiting.outcome.get()
        }
        let job = Sealing()
        sealing.append((bytes, job))
        lock.unlock()
        let made = Result { try SealedInput(bytes) }
        lock.lock()
        sealing.removeAll { $0.job === job }
        if case .success(let input) = made { entries.append((bytes, input)) }
        let evicted = entries.count > capacity ? entries.removeFirst() : nil
        job.outcome = made
        lock.unlock()
        job.done.signal()
        _ = evicted  // released here, outside the lock
        return try made.get()
    }

    /// Drops every cached input (the end of a run).
    func removeAll() {
        lock.lock()
        let old = entries
        entries = []
        lock.unlock()
        _ = old
    }

    /// The address of an array's contiguous storage.
    private static func storage(_ a: [UInt8]) -> UnsafeRawPointer? {
        a.withUnsafeBytes { $0.baseAddress }
    }
}

/// A failure of the isolation machinery itself (not of a decoder).
enum IsolationError: Error, CustomStringConvertible, Sendable {
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
