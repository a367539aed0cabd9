import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `text` to a new nameless temporary file and returns its `/proc/self/fd` path: x265 opens settings files
/// (`scaling-list`, `lambda-file`) by path, and a file without a name cannot outlive the process, however it ends.
/// The descriptor stays open (close-on-exec) for the process's life; callers make one per named set.
func namelessFile(_ text: String, operation: String) throws(HeifError) -> String {
    func fail(_ what: String, closing fd: Int32? = nil) -> HeifError {
        let reason = String(cString: strerror(errno))
        if let fd { close(fd) }
        return HeifError(operation: operation, message: "\(what): \(reason)")
    }
    // A file without a name (O_TMPFILE: Linux's `__O_TMPFILE | O_DIRECTORY`, a macro Swift does not import), so
    // not even a kill leaves one; where the filesystem has none, a named file unlinked at once.
    let dir = NSTemporaryDirectory()
    var fd = open(dir, O_RDWR | O_CLOEXEC | 0o20_200_000, 0o600)
    if fd < 0 {
        let file = (dir as NSString).appendingPathComponent("readback-x265-\(UUID().uuidString)")
        fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw fail("cannot create \(file)") }
        unlink(file)
    }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw fail("cannot write the file", closing: fd) }
    let path = "/proc/self/fd/\(fd)"
    guard access(path, R_OK) == 0 else { throw fail("cannot reopen the file through \(path)", closing: fd) }
    return path
}

/// Nameless files (`namelessFile`) of one kind of x265 settings file (scaling lists, λ tables), each named set
/// written once and kept for the process's life.
final class NamelessFiles: Sendable {
    private let operation: String
    private let paths = Mutex<[String: String]>([:])

    init(operation: String) { self.operation = operation }

    /// The path of the file of the set `name`, written with `text` the first time it is asked for.
    func path(_ name: String, text: String) throws(HeifError) -> String {
        try paths.withLock { (paths: inout [String: String]) throws(HeifError) -> String in
            if let p = paths[name] { return p }
            let p = try namelessFile(text, operation: operation)
            paths[name] = p
            return p
        }
    }
}
