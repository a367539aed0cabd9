import CXattr
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What makes a file *that* library entry besides its bytes: its times, permission bits, owner and the `user.*`
/// extended attributes desktop tools keep there (KDE/GNOME tags, ratings, comments, the download origin).
/// Read with `lstat`/`llistxattr`/`lgetxattr`, never following a symlink.
public struct FileFacts: Sendable, Equatable {
    /// Permission bits (`st_mode & 0o7777`).
    public var mode: UInt32
    public var uid: UInt32
    public var gid: UInt32
    /// Access and modification times, nanoseconds since the epoch.
    public var atimeNs: Int64
    public var mtimeNs: Int64
    /// The `user.*` extended attributes, by name. Other namespaces (`security.*`, `trusted.*`, `system.*`) belong to
    /// the system and are neither read nor carried.
    public var xattrs: [String: [UInt8]]
    /// False when the file's filesystem refuses extended attributes (`ENOTSUP`): nothing can be kept there.
    public var xattrsSupported: Bool

    public init(
        mode: UInt32, uid: UInt32, gid: UInt32, atimeNs: Int64, mtimeNs: Int64, xattrs: [String: [UInt8]] = [:],
        xattrsSupported: Bool = true
    ) {
        self.mode = mode
        self.uid = uid
        self.gid = gid
        self.atimeNs = atimeNs
        self.mtimeNs = mtimeNs
        self.xattrs = xattrs
        self.xattrsSupported = xattrsSupported
    }

    /// The largest name list and value Linux allows (XATTR_LIST_MAX, XATTR_SIZE_MAX): the read is bounded by them.
    static let maxListBytes = 65536
    static let maxValueBytes = 65536
}

/// A failed system call on a path; `description` is one line.
public struct FileFactsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let call: String
    public let code: Int32
    public var description: String { "\(path): \(call) failed: \(String(cString: strerror(code)))" }
}

extension FileFacts {
    /// Reads a file's facts.
    /// - Throws: `FileFactsError` when the file cannot be `lstat`ed or its attributes cannot be listed (other than a
    ///   filesystem without them, which reads as `xattrsSupported == false`).
    public static func read(path: String) throws(FileFactsError) -> FileFacts {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw FileFactsError(path: path, call: "lstat", code: errno) }
        var facts = FileFacts(
            mode: UInt32(st.st_mode) & 0o7777, uid: st.st_uid, gid: st.st_gid,
            atimeNs: Int64(st.st_atim.tv_sec) * 1_000_000_000 + Int64(st.st_atim.tv_nsec),
            mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
        let names: [String]
        do throws(FileFactsError) {
            names = try listNames(path)
        } catch  where isUnsupported(error.code) {
            facts.xattrsSupported = false
            return facts
        }
        for name in names where name.hasPrefix("user.") {
            if let value = try value(of: name, path: path) { facts.xattrs[name] = value }
        }
        // Some filesystems without attributes (ramfs) list none rather than refuse; asking for one tells.
        if names.isEmpty && lgetxattr(path, "user.readback.probe", nil, 0) < 0 && isUnsupported(errno) {
            facts.xattrsSupported = false
        }
        return facts
    }

    /// True for the errno a filesystem without extended attributes answers (`ENOTSUP`, the same as EOPNOTSUPP here).
    public static func isUnsupported(_ code: Int32) -> Bool { code == ENOTSUP || code == EOPNOTSUPP }

    /// The attribute names of `path` (every namespace the caller may see), bounded by XATTR_LIST_MAX.
    static func listNames(_ path: String) throws(FileFactsError) -> [String] {
        for _ in 0..<3 {  // the list may grow between the two calls; retry a few times
            let size = llistxattr(path, nil, 0)
            guard size >= 0 else { throw FileFactsError(path: path, call: "llistxattr", code: errno) }
            if size == 0 { return [] }
            let capacity = min(Int(size), maxListBytes)
            var buffer = [CChar](repeating: 0, count: capacity)
            let n = llistxattr(path, &buffer, capacity)
            if n < 0 && errno == ERANGE { continue }
            guard n >= 0 else { throw FileFactsError(path: path, call: "llistxattr", code: errno) }
            return buffer[0..<Int(n)].split(separator: 0).map { String(decoding: $0.map(UInt8.init), as: UTF8.self) }
        }
        throw FileFactsError(path: path, call: "llistxattr", code: ERANGE)
    }

    /// One attribute's value, nil when it vanished between the list and the read.
    static func value(of name: String, path: String) throws(FileFactsError) -> [UInt8]? {
        for _ in 0..<3 {
            let size = lgetxattr(path, name, nil, 0)
            if size < 0 && errno == ENODATA { return nil }
            guard size >= 0 else { throw FileFactsError(path: path, call: "lgetxattr \(name)", code: errno) }
            if size == 0 { return [] }
            let capacity = min(Int(size), maxValueBytes)
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = lgetxattr(path, name, &buffer, capacity)
            if n < 0 && errno == ERANGE { continue }
            if n < 0 && errno == ENODATA { return nil }
            guard n >= 0 else { throw FileFactsError(path: path, call: "lgetxattr \(name)", code: errno) }
            return Array(buffer[0..<Int(n)])
        }
        throw FileFactsError(path: path, call: "lgetxattr \(name)", code: ERANGE)
    }
}

// MARK: - What an attribute means

/// What a `user.*` attribute is to the person whose photo it is.
public enum XattrRole: String, Sendable, CaseIterable {
    /// Desktop tags (`user.xdg.tags`, KDE Dolphin/Baloo and GNOME).
    case tags
    /// A star rating (`user.baloo.rating`, `user.xdg.rating`).
    case rating
    /// A comment (`user.xdg.comment`).
    case comment
    /// A checksum of the file's bytes (`user.shatag.*`, `user.checksum.*`, `user.sha256`, …): true of the source's
    /// bytes, false of the output's, so it is dropped and recorded, never copied.
    case checksum
    /// Anything else (`user.xdg.origin.url`, an application's own).
    case other

    /// The role of an attribute name.
    public init(name: String) {
        let n = name.lowercased()
        switch n {
        case "user.xdg.tags": self = .tags
        case "user.baloo.rating", "user.xdg.rating": self = .rating
        case "user.xdg.comment": self = .comment
        default:
            let last = n.split(separator: ".").last.map(String.init) ?? n
            let digests: Set<String> = [
                "md5", "md5sum", "sha1", "sha1sum", "sha256", "sha256sum", "sha512", "sha512sum", "crc32", "xxhash",
                "xxh64", "xxh128", "blake2", "blake3", "b3sum", "checksum", "hash",
            ]
            if n.hasPrefix("user.shatag.") || n.hasPrefix("user.checksum") || digests.contains(last) {
                self = .checksum
            } else {
                self = .other
            }
        }
    }

    /// Tags, rating and comment: what the user typed into a file manager. Losing one is an error.
    public var isUserCurated: Bool { self == .tags || self == .rating || self == .comment }
}

// MARK: - Carrying facts to a new file

/// What carrying a source's facts to an output did.
public struct CarryReport: Sendable, Equatable {
    /// Attributes written to the output.
    public var carried: [String] = []
    /// Attributes not copied because they describe the source's bytes (checksums), sorted.
    public var dropped: [String] = []
    /// Attributes that could not be written, with why, sorted by name.
    public var failed: [String: String] = [:]
    /// Times, mode or owner that could not be set, one line each.
    public var problems: [String] = []

    public init() {}

    /// One line per thing not carried as asked (failed attributes and problems), for a report.
    public var lines: [String] {
        failed.keys.sorted().map { "xattr \($0) not carried: \(failed[$0]!)" } + problems
    }
}

extension FileFacts {
    /// The permission bits an output gets: the source's, without setuid/setgid/sticky; never wider than the source's.
    public var outputMode: UInt32 { mode & 0o777 }

    /// Carries these facts (a source's) to the new file at `path`, as `rsync -a` with xattrs would: every `user.*`
    /// attribute but checksums of the old bytes, the owner and group when running as root, the permission bits, then
    /// the access and modification times (last, since the other steps change none of them but writes would).
    /// - Parameter setAttribute: `lsetxattr`, injectable so a test can play a filesystem that refuses attributes on a
    ///   machine where none can be mounted; returns 0 or an errno.
    public func carry(
        to path: String,
        setAttribute: (String, String, [UInt8]) -> Int32 = { path, name, value in
            lsetxattr(path, name, value, value.count, 0) == 0 ? 0 : errno
        }
    ) -> CarryReport {
        var report = CarryReport()
        var unsupported = false
        for name in xattrs.keys.sorted() {
            if XattrRole(name: name) == .checksum {
                report.dropped.append(name)
                continue
            }
            if unsupported {
                report.failed[name] = "the output's filesystem does not support extended attributes"
                continue
            }
            let code = setAttribute(path, name, xattrs[name]!)
            if code == 0 {
                report.carried.append(name)
            } else if Self.isUnsupported(code) {
                unsupported = true
                report.failed[name] = "the output's filesystem does not support extended attributes"
            } else {
                report.failed[name] = String(cString: strerror(code))
            }
        }
        if geteuid() == 0, lchown(path, uid, gid) != 0 {
            report.problems.append("owner \(uid):\(gid) not set: \(String(cString: strerror(errno)))")
        }
        if chmod(path, mode_t(outputMode)) != 0 {
            report.problems.append(
                "mode \(String(outputMode, radix: 8)) not set: \(String(cString: strerror(errno)))")
        }
        if let problem = stampTimes(on: path) { report.problems.append(problem) }
        return report
    }

    /// Sets `path`'s access and modification times to these (to the nanosecond); a problem line, or nil.
    public func stampTimes(on path: String) -> String? {
        func spec(_ ns: Int64) -> timespec {
            let (s, r) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
            return r < 0
                ? timespec(tv_sec: Int(s - 1), tv_nsec: Int(r + 1_000_000_000))
                : timespec(tv_sec: Int(s), tv_nsec: Int(r))
        }
        var times = [spec(atimeNs), spec(mtimeNs)]
        if utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) != 0 {
            return "times not set: \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
