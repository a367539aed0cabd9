import Foundation

/// What `lstat` says about a path (never following a symlink).
struct FileInfo: Sendable, Equatable {
    var size: Int64
    /// Modification time in nanoseconds since the epoch.
    var mtimeNs: Int64
    var isRegular: Bool
    var isDirectory: Bool
    var isSymlink: Bool
    var device: UInt64
}

/// Small, explicit wrappers over the POSIX calls the batch relies on for durability. Each throws `BatchError.io`
/// naming the path and the call.
enum FileOps {
    /// The prefix of every temp file Batch creates; anything with it in an output folder is ours to delete.
    static let tempPrefix = ".readback-tmp-"

    /// `lstat(path)`, or `nil` when nothing is there.
    static func info(_ path: String) throws -> FileInfo? {
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw BatchError.io(path: path, operation: "lstat", errno: errno)
        }
        let type = st.st_mode & S_IFMT
        return FileInfo(
            size: Int64(st.st_size),
            mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            isRegular: type == S_IFREG, isDirectory: type == S_IFDIR, isSymlink: type == S_IFLNK,
            device: UInt64(st.st_dev))
    }

    /// Flushes a file's data and metadata to stable storage (`fsync`).
    static func fsyncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw BatchError.io(path: path, operation: "open for fsync", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw BatchError.io(path: path, operation: "fsync", errno: errno) }
    }

    /// Flushes a directory's entries (after a rename, create or unlink in it).
    static func fsyncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw BatchError.io(path: path, operation: "open directory for fsync", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw BatchError.io(path: path, operation: "fsync directory", errno: errno) }
    }

    /// Creates `path` and its parents (mode 0755); an existing directory is fine, a symlink is refused.
    static func makeDirectories(_ path: String) throws {
        if let i = try info(path) {
            if i.isDirectory { return }
            throw BatchError.refused(path: path, reason: "exists and is not a directory")
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw BatchError.io(path: path, operation: "mkdir", errno: errno)
        }
    }

    /// The temp path for an output: in the destination folder, so the final step is a same-filesystem `rename`.
    static func tempPath(for finalPath: String) -> String {
        let dir = (finalPath as NSString).deletingLastPathComponent
        let name = (finalPath as NSString).lastPathComponent
        return (dir as NSString).appendingPathComponent("\(tempPrefix)\(UUID().uuidString.lowercased())-\(name)")
    }

    /// The final path a temp file becomes (`<dir>/.readback-tmp-<uuid>-<name>` → `<dir>/<name>`), or nil for a
    /// name `tempPath(for:)` did not make.
    static func finalPath(ofTemp path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix(tempPrefix) else { return nil }
        let rest = name.dropFirst(tempPrefix.count)
        guard rest.count > 37, rest[rest.index(rest.startIndex, offsetBy: 36)] == "-" else { return nil }
        return ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            String(rest.dropFirst(37)))
    }

    /// Publishes a finished temp file under its final name: fsync the file, `rename` it into place (atomic,
    /// never a copy), fsync the directory.
    static func publish(temp: String, final: String) throws {
        try fsyncFile(temp)
        if rename(temp, final) != 0 { throw BatchError.io(path: final, operation: "rename into place", errno: errno) }
        try fsyncDirectory((final as NSString).deletingLastPathComponent)
    }

    /// Creates `path` (which must not exist) and writes all of `bytes`; on any failure the partial file is removed.
    /// - Parameters:
    ///   - write: the write call, injectable so tests can fail it (a full disk) after some bytes.
    /// - Throws: `BatchError.io` naming the path and errno (ENOSPC for a full disk).
    static func writeNewFile(
        _ bytes: [UInt8], to path: String,
        write: (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }
    ) throws {
        // Private until the source's mode is carried over: a private photo's output is never readable by others.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw BatchError.io(path: path, operation: "create", errno: errno) }
        var failure: BatchError?
        bytes.withUnsafeBytes { b in
            var off = 0
            while off < b.count {
                let n = write(fd, b.baseAddress! + off, b.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .io(path: path, operation: "write", errno: errno)
                    return
                }
                if n == 0 {
                    failure = .io(path: path, operation: "write", errno: ENOSPC)
                    return
                }
                off += n
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = .io(path: path, operation: "fsync", errno: errno) }
        if close(fd) != 0 && failure == nil { failure = .io(path: path, operation: "close", errno: errno) }
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Removes a file if it exists (no error when already gone).
    static func removeIfPresent(_ path: String) {
        unlink(path)
    }

    /// Deletes every Batch temp file under `root` (a killed run's leftovers); returns the paths removed.
    /// Does not follow symlinks.
    /// - Parameter outputs: when given (a shard), only the temp files that would become one of these outputs are
    ///   removed: the other shards writing into the same folder at the same time keep theirs.
    static func removeTempFiles(under root: String, outputs: Set<String>? = nil) throws -> [String] {
        var removed: [String] = []
        guard let rootInfo = try info(root), rootInfo.isDirectory else { return [] }
        var stack = [root]
        while let dir = stack.popLast() {
            for name in try listDirectory(dir) {
                let path = (dir as NSString).appendingPathComponent(name)
                guard let i = try info(path) else { continue }
                if i.isDirectory {
                    stack.append(path)
                } else if name.hasPrefix(tempPrefix) && (i.isRegular || i.isSymlink) {
                    if let outputs, !(finalPath(ofTemp: path).map(outputs.contains) ?? false) { continue }
                    if unlink(path) != 0 && errno != ENOENT {
                        throw BatchError.io(path: path, operation: "unlink leftover temp file", errno: errno)
                    }
                    removed.append(path)
                }
            }
        }
        return removed.sorted()
    }

    /// The entry names of a directory (without "." and ".."), sorted.
    static func listDirectory(_ path: String) throws -> [String] {
        guard let d = opendir(path) else { throw BatchError.io(path: path, operation: "opendir", errno: errno) }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The canonical absolute path (symlinks resolved), or `nil` when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The canonical form of an absolute path that may not exist yet: the deepest existing ancestor resolved with
    /// `realpath`, the rest appended as given (so a run before and after the folder exists agree).
    static func canonicalPath(_ path: String) -> String {
        if let r = realPath(path) { return r }
        let parent = (path as NSString).deletingLastPathComponent
        if parent == path || parent.isEmpty { return path }
        return (canonicalPath(parent) as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// True when `path` is `root` or lies inside it (both canonical).
    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }
}

/// An exclusive `flock` on a lock file next to the state database, held for the whole run; the kernel releases it
/// when the process ends, even by SIGKILL.
final class FileLock {
    let path: String
    private let fd: Int32

    /// Takes the lock without waiting.
    /// - Throws: `BatchError.storeBusy` when another process holds it, `BatchError.io` when the file cannot be opened.
    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw BatchError.io(path: path, operation: "open lock file", errno: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { throw BatchError.storeBusy(lockPath: path) }
            throw BatchError.io(path: path, operation: "flock", errno: e)
        }
        self.fd = fd
        // Record who holds it, for a human looking at the file.
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { write(fd, $0, strlen($0)) }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
