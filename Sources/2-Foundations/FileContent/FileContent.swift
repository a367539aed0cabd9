import Foundation
import Synchronization

/// A file's content read into memory, whole, in one read: the one way the reading paths (audit, diff, convert) get
/// a file's bytes, so each input is read once and handed on, and a test can count the reads per path
/// (`startCounting()`, `reads(of:)`). Facts about a file that are not its content (stat, extended attributes) are
/// read elsewhere, by path.
public enum FileContent {
    /// Why a file's content could not be read.
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable, CustomStringConvertible {
            case noSuchFile
            case isDirectory
            case cannotOpen
            case readFailed
        }
        public let path: String
        public let kind: Kind
        /// The failed call's errno (0 when there was none).
        public let errno: Int32

        public init(path: String, kind: Kind, errno: Int32 = 0) {
            self.path = path
            self.kind = kind
            self.errno = errno
        }

        public var description: String {
            "\(path): \(kind)" + (errno != 0 ? " (\(String(cString: strerror(errno))))" : "")
        }
    }

    /// Reads the whole file at `path`: one open, one buffer of the file's size filled by `read(2)`.
    /// - Parameter followSymlinks: false refuses a symlink at `path` (O_NOFOLLOW), as the batch does for sources.
    /// - Throws: `ReadError` naming the file and why.
    public static func read(path: String, followSymlinks: Bool = true) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let e = errno
            throw ReadError(
                path: path, kind: e == ENOENT ? .noSuchFile : e == EISDIR ? .isDirectory : .cannotOpen, errno: e)
        }
        defer { close(fd) }
        Tally.shared.record("read", path)
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ReadError(path: path, kind: .readFailed, errno: errno) }
        if st.st_mode & S_IFMT == S_IFDIR { throw ReadError(path: path, kind: .isDirectory) }
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: max(0, Int(st.st_size))) { buf, n in
            n = 0
            while n < buf.count {
                let got = Foundation.read(fd, buf.baseAddress! + n, buf.count - n)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if got == 0 { return }
                n += got
            }
        }
        if failure != 0 { throw ReadError(path: path, kind: .readFailed, errno: failure) }
        // A file that grew since fstat (or reports no size, as /proc files do): read on to its end. For the usual
        // file this is one read that finds the end.
        let more = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 << 16) { chunk -> Int32 in
            while bytes.count == Int(st.st_size) {
                let got = Foundation.read(fd, chunk.baseAddress, chunk.count)
                if got < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if got == 0 { break }
                bytes += chunk[0..<got]
                st.st_size = off_t(bytes.count)
            }
            return 0
        }
        if more != 0 { throw ReadError(path: path, kind: .readFailed, errno: more) }
        return bytes
    }

    /// Starts counting from now on (for tests; off by default, so a long batch keeps no list of paths): every
    /// content read of a path (event "read"), and what other layers tally with `tally(_:path:)`. Idempotent.
    public static func startCounting() { Tally.shared.start() }

    /// How many times the content of `path` was read since counting started.
    public static func reads(of path: String) -> Int { tallied("read", path: path) }

    /// Counts one `event` about `path` (when counting is on): the read-once tests' seam for what is not a read, as
    /// a reference render looked up ("reference").
    public static func tally(_ event: String, path: String) { Tally.shared.record(event, path) }

    /// How many times `event` was counted for `path`.
    public static func tallied(_ event: String, path: String) -> Int { Tally.shared.count(event, path) }

    /// Every path counted for `event`, with its count.
    public static func tallies(of event: String) -> [String: Int] { Tally.shared.all(event) }

    /// The process-wide tally (a dictionary behind a mutex, kept only once counting started).
    final class Tally: Sendable {
        static let shared = Tally()
        private struct State {
            var on = false
            var counts: [String: [String: Int]] = [:]
        }
        private let state = Mutex(State())

        func start() { state.withLock { $0.on = true } }

        func record(_ event: String, _ path: String) {
            state.withLock { s in if s.on { s.counts[event, default: [:]][path, default: 0] += 1 } }
        }

        func count(_ event: String, _ path: String) -> Int { state.withLock { $0.counts[event]?[path] ?? 0 } }

        func all(_ event: String) -> [String: Int] { state.withLock { $0.counts[event] ?? [:] } }
    }
}

extension FileContent.ReadError.Kind {
    /// The reason in words: "no such file", "is a directory", "cannot be opened for reading", "read failed".
    public var description: String {
        switch self {
        case .noSuchFile: "no such file"
        case .isDirectory: "is a directory"
        case .cannotOpen: "cannot be opened for reading"
        case .readFailed: "read failed"
        }
    }
}
