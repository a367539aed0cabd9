import Foundation
import Synchronization
import Testing

@testable import HeifCodec

/// The first encode of each bit depth runs alone among that depth's first encodes, and only among them: while the
/// first 10-bit encode is held open, the first 8-bit one runs to the end (it did not under one lock for all depths,
/// which left a small frame's gain map waiting for its primary), and a second 10-bit one does not start until the
/// first is done. Afterwards a primed depth runs without waiting at all.
@Test func firstEncodesWaitOnlyForTheirOwnDepth() throws {
    let gate = HeifEncoder.FirstEncoder()
    let holding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let firstDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? gate.run(depth: 10) {
            holding.signal()
            release.wait()
        }
        firstDone.signal()
    }
    holding.wait()
    // Another depth's first encode runs to the end while the 10-bit one is open.
    let eightDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? gate.run(depth: 8) {}
        eightDone.signal()
    }
    #expect(eightDone.wait(timeout: .now() + 10) == .success, "the first 8-bit encode waited for the 10-bit one")
    // A second first encode of the same depth waits for the first.
    let entered = Flag()
    let secondDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? gate.run(depth: 10) { entered.set() }
        secondDone.signal()
    }
    Thread.sleep(forTimeInterval: 0.3)
    #expect(!entered.isSet, "two first 10-bit encodes ran at once")
    release.signal()
    #expect(firstDone.wait(timeout: .now() + 10) == .success)
    #expect(secondDone.wait(timeout: .now() + 10) == .success)
    #expect(entered.isSet)
    // Primed: a 10-bit encode runs while another 10-bit one is open.
    let open = DispatchSemaphore(value: 0)
    let close = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? gate.run(depth: 10) {
            open.signal()
            close.wait()
        }
    }
    open.wait()
    let primedDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? gate.run(depth: 10) {}
        primedDone.signal()
    }
    #expect(primedDone.wait(timeout: .now() + 10) == .success, "a primed depth waited")
    close.signal()
    // An error from the first encode still primes nothing wrongly and releases the lock.
    struct Boom: Error {}
    #expect(throws: Boom.self) { try gate.run(depth: 12) { throw Boom() } }
    #expect(try gate.run(depth: 12) { 7 } == 7)
}

/// A flag threads set and read.
private final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
