import CIsolation
import Foundation
import Testing

/// The frame arena (frame_arena.c, docs/security.md): the process's calloc, realloc and free, which forward to glibc
/// unless an arena is armed. Armed, it is handed out once, only on the arming thread and only for a size in its
/// window; its free and realloc never reach glibc. Serialized: the arena is one per process.
@Suite(.serialized) struct FrameArenaTests {
    static let capacity = 1 << 20

    /// A fresh anonymous mapping standing for the granted shared memory (zero, as a fresh memfd is).
    func withRegion(_ body: (UnsafeMutableRawPointer) throws -> Void) rethrows {
        let p = mmap(nil, Self.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer {
            _ = rb_arena_reset()
            munmap(p, Self.capacity)
        }
        try body(p)
    }

    @Test func anArmedArenaGoesToTheFirstCallocOfItsSizeOnItsThread() throws {
        try withRegion { base in
            #expect(rb_arena_arm(base, Self.capacity, Self.capacity / 2) == 0)
            #expect(rb_arena_arm(base, Self.capacity, Self.capacity / 2) == -1, "one arena at a time")
            // Too small, then another thread: both from glibc.
            let small = try #require(calloc(16, 1024))
            #expect(small != base)
            free(small)
            let other = callocOnAnotherThread(Self.capacity / 8, 8)
            #expect(other != 0 && other != UInt(bitPattern: base))
            free(UnsafeMutableRawPointer(bitPattern: other))
            #expect(rb_arena_state() == 1)
            let image = try #require(calloc(Self.capacity / 8 - 16, 8))
            #expect(image == base)
            #expect(rb_arena_state() == 2)
            // Handed out once.
            let second = try #require(calloc(Self.capacity / 8 - 16, 8))
            #expect(second != base)
            free(second)
            #expect(rb_arena_reset() == -1, "a held arena is not reset")
            #expect(realloc(base, Self.capacity) == base, "a realloc within the arena stays")
            free(base)
            #expect(rb_arena_state() == 3)
            #expect(rb_arena_reset() == 3)
            #expect(rb_arena_state() == 0)
        }
    }

    @Test func aReallocIntoTheArenaKeepsTheBytesAndALargerOneMovesThemOut() throws {
        try withRegion { base in
            let old = try #require(malloc(64)).assumingMemoryBound(to: UInt8.self)
            for i in 0..<64 { old[i] = UInt8(i) }
            #expect(rb_arena_arm(base, Self.capacity, Self.capacity / 2) == 0)
            let moved = try #require(realloc(old, Self.capacity - 4096))
            #expect(moved == base)
            #expect((0..<64).allSatisfy { moved.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
            let out = try #require(realloc(moved, Self.capacity + 1))
            #expect(out != base)
            #expect(rb_arena_state() == 3)
            #expect((0..<64).allSatisfy { out.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
            free(out)
            #expect(rb_arena_reset() == 3)
        }
    }
}

/// calloc(`count`, `size`) on a new thread; the address it returned (0 for NULL).
private func callocOnAnotherThread(_ count: Int, _ size: Int) -> UInt {
    final class Result: @unchecked Sendable { var address: UInt = 0 }
    let result = Result()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        result.address = UInt(bitPattern: calloc(count, size))
        done.signal()
    }
    done.wait()
    return result.address
}
