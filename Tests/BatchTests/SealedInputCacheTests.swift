import Foundation
import Testing

@testable import Isolation

/// The bytes a sealed input holds, read back through its descriptor.
private func contents(_ s: SealedInput) -> [UInt8] {
    var st = stat()
    guard fstat(s.fd, &st) == 0 else { return [] }
    var out = [UInt8](repeating: 0, count: Int(st.st_size))
    let n = out.withUnsafeMutableBytes { pread(s.fd, $0.baseAddress, $0.count, 0) }
    return n == out.count ? out : []
}

/// A file's bytes cross into shared memory once for all of its requests (LibRaw, exiv2's previews, the output's
/// metadata, the read-back audit): the same array gets the same sealed memfd; another array gets its own, even with
/// equal bytes or after a copy-on-write mutation; small arrays are not kept; the oldest entry goes past capacity;
/// and what is shared stays sealed against writes.
@Test func aFilesBytesAreSealedOnceAndNeverShared() throws {
    let cache = SealedInputCache(capacity: 2)
    let a = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let first = try cache.input(for: a)
    #expect(try cache.input(for: a) === first)
    #expect(contents(first) == a)
    // Equal bytes in other storage: not the same array, so not the same input.
    let equal = a.map { $0 }  // new storage (Array(a) would share a's)
    var mutated = a
    mutated[0] ^= 0xFF
    #expect(try cache.input(for: mutated) !== first)
    #expect(try cache.input(for: equal) !== first)
    #expect(contents(try cache.input(for: equal)) == a)
    #expect(contents(try cache.input(for: mutated)) == mutated)
    // Capacity 2: mutated and equal were used after a, so a was evicted: it is sealed again.
    #expect(try cache.input(for: a) !== first)
    // Small arrays are sealed per request.
    let small = [UInt8](repeating: 1, count: 1000)
    #expect(try cache.input(for: small) !== cache.input(for: small))
    // Sealed: no write reaches the bytes the next worker reads.
    let b: [UInt8] = [9]
    let w = b.withUnsafeBytes { pwrite(first.fd, $0.baseAddress, 1, 0) }
    #expect(w == -1)
    #expect(contents(first) == a)
    // Larger than one write (16 MiB): every byte arrives, in order.
    let large = (0..<((16 << 20) + 4099)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
    #expect(contents(try SealedInput(large)) == large)
}

/// Requests that arrive together for one array (the camera look's preview lookup and LibRaw's decode of a RAW) share
/// one sealed memfd: one copy of the file, not one per request.
@Test func requestsArrivingTogetherShareOneSealedInput() throws {
    let cache = SealedInputCache(capacity: 4)
    var bytes = [UInt8](repeating: 7, count: 8 << 20)
    for i in stride(from: 0, to: bytes.count, by: 4093) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12) }
    let a = bytes
    let n = 8
    let got = Got()
    DispatchQueue.concurrentPerform(iterations: n) { _ in got.add(try? cache.input(for: a)) }
    let first = try #require(got.inputs.first ?? nil)
    #expect(got.inputs.count == n)
    for input in got.inputs { #expect(input === first) }
    #expect(contents(first) == a)
}

/// What concurrent requests got, in the order they finished.
private final class Got: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var inputs: [SealedInput?] = []

    func add(_ input: SealedInput?) {
        lock.lock()
        inputs.append(input)
        lock.unlock()
    }
}
