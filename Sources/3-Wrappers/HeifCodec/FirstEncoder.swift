import Foundation
import Synchronization

extension HeifEncoder {
    /// Serialises the first encode of each bit depth in the process. x265 fills its table of primitives (one per bit
    /// depth: the 10-bit encoder is a separate build inside libx265) when its first encoder opens, testing one entry
    /// of the table without a lock; encoders opened at the same moment on other threads could then call an entry not
    /// yet filled. The tile pool opens one encoder per worker at once: a test's first 10-bit conversion in a process
    /// that had coded only 8-bit before died once on a null function pointer inside libx265 that way.
    ///
    /// Each build has its own lock: the first 8-bit encode (a small frame's gain map and thumbnail) need not wait
    /// for the first 10-bit one (its primary, coded at the same time) to finish, as it did under one lock.
    final class FirstEncoder: Sendable {
        static let gate = FirstEncoder()
        /// The bit depths coded once already.
        private let primed = Mutex<Set<Int>>([])
        /// The first encode of a depth runs with its build's lock held: 8 bits, 10, and 12 (or any other).
        private let eight = NSLock()
        private let ten = NSLock()
        private let other = NSLock()

        func run<T>(depth: Int, _ body: () throws -> T) throws -> T {
            if primed.withLock({ $0.contains(depth) }) { return try body() }
            let lock = depth == 8 ? eight : depth == 10 ? ten : other
            lock.lock()
            defer { lock.unlock() }
            defer { primed.withLock { _ = $0.insert(depth) } }
            return try body()
        }
    }
}
