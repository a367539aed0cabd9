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
    let first = Held(gate, depth: 10)
    // Another depth's first encode runs to the end while the 10-bit one is open.
    #expect(
        inBackground { _ = try? gate.run(depth: 8) {} }.wait(timeout: .now() + 10) == .success,
        "the first 8-bit encode waited for the 10-bit one")
    // A second first encode of the same depth waits for the first.
    let entered = Flag()
    let second = inBackground { _ = try? gate.run(depth: 10) { entered.set() } }
    Thread.sleep(forTimeInterval: 0.3)
    #expect(!entered.isSet, "two first 10-bit encodes ran at once")
    first.release()
    #expect(first.done.wait(timeout: .now() + 10) == .success)
    #expect(second.wait(timeout: .now() + 10) == .success)
    #expect(entered.isSet)
    // Primed: a 10-bit encode runs while another 10-bit one is open.
    let open = Held(gate, depth: 10)
    #expect(
        inBackground { _ = try? gate.run(depth: 10) {} }.wait(timeout: .now() + 10) == .success,
        "a primed depth waited")
    open.release()
    // An error from the first encode still releases its lock.
    struct Boom: Error {}
    #expect(throws: Boom.self) { try gate.run(depth: 12) { throw Boom() } }
    #expect(try gate.run(depth: 12) { 7 } == 7)
}

/// An encode of `depth` through `gate` held open on its own thread (until `release`), once it is inside the gate.
private struct Held {
    let done: DispatchSemaphore
    private let go = DispatchSemaphore(value: 0)

    init(_ gate: HeifEncoder.FirstEncoder, depth: Int) {
        let (inside, go) = (DispatchSemaphore(value: 0), go)
        done = inBackground {
            _ = try? gate.run(depth: depth) {
                inside.signal()
                go.wait()
            }
        }
        inside.wait()
    }

    func release() { go.signal() }
}

/// Runs `body` on a thread of its own; the semaphore is signalled when it returns.
private func inBackground(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    return done
}

/// A flag threads set and read.
private final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
