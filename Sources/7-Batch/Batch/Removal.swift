import Digest
import Foundation

/// How originals are removed once their outputs are verified.
public enum RemovalMode: String, Sendable {
    /// Moved to the freedesktop Trash of the source's filesystem (undoable).
    case trash
    /// Unlinked.
    case delete
}

/// The capability to remove originals. Removal code requires one; the only way to make one is parsing the value of
/// `--remove-originals`, so without that flag no code path can reach removal.
public struct RemovalPermit: Sendable, Equatable {
    public let mode: RemovalMode

    private init(mode: RemovalMode) { self.mode = mode }

    /// Parses the value of `--remove-originals` (`trash` or `delete`); `nil` for anything else.
    public init?(parsingFlagValue value: String) {
        guard let mode = RemovalMode(rawValue: value) else { return nil }
        self.init(mode: mode)
    }
}

/// Where an original went.
struct RemovalRecord: Sendable {
    var how: RemovalMode
    /// The trash path for `trash`, `nil` for `delete`.
    var trashedTo: String?
}

/// Removes one verified original, the permit in hand. Never follows a symlink, never leaves `root`.
/// - Parameters:
///   - path: the canonical source path.
///   - root: the canonical source root it was found under.
///   - permit: the capability created from `--remove-originals`.
///   - environment: for `XDG_DATA_HOME` / `HOME` (injected so tests use a scratch Trash).
/// - Throws: `BatchError.refused` when the path is not a regular file inside the root, `BatchError.io` on failure.
func removeOriginal(
    path: String, root: String, permit: RemovalPermit, environment: [String: String]
) throws -> RemovalRecord {
    guard let i = try FileOps.info(path) else { throw BatchError.refused(path: path, reason: "source vanished") }
    guard !i.isSymlink, i.isRegular else {
        throw BatchError.refused(path: path, reason: "not a regular file (symlinks are never followed)")
    }
    let dir = (path as NSString).deletingLastPathComponent
    guard let realDir = FileOps.realPath(dir), let realRoot = FileOps.realPath(root),
        FileOps.isInside(realDir, root: realRoot), realDir == dir
    else {
        throw BatchError.refused(path: path, reason: "outside the source root \(root) (or reached through a symlink)")
    }
    switch permit.mode {
    case .delete:
        if unlink(path) != 0 { throw BatchError.io(path: path, operation: "unlink", errno: errno) }
        try FileOps.fsyncDirectory(dir)
        return RemovalRecord(how: .delete, trashedTo: nil)
    case .trash:
        let to = try Trash.move(path, environment: environment)
        return RemovalRecord(how: .trash, trashedTo: to)
    }
}

/// The freedesktop.org Trash (Trash specification 1.0): the home trash `$XDG_DATA_HOME/Trash` when the file is on
/// the same filesystem, otherwise `<mount top>/.Trash-<uid>`; a `.trashinfo` file records the original path and
/// the deletion date so a file manager can restore it. Files are `rename`d, never copied.
enum Trash {
    /// The trash folder for a file on device `device`.
    static func directory(forFileIn dir: String, device: UInt64, environment: [String: String]) throws -> (
        trash: String, topDir: String?
    ) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        // The device of the home trash: of the deepest existing ancestor of $XDG_DATA_HOME/Trash.
        var probe = dataHome + "/Trash"
        while (try FileOps.info(probe)) == nil, probe != "/" { probe = (probe as NSString).deletingLastPathComponent }
        if let p = try FileOps.info(probe), p.device == device { return (dataHome + "/Trash", nil) }
        // Otherwise the top directory of the file's mount: climb while the parent is on the same device.
        var top = dir
        while top != "/" {
            let parent = (top as NSString).deletingLastPathComponent
            guard let pi = try FileOps.info(parent), pi.device == device else { break }
            top = parent
        }
        return ((top as NSString).appendingPathComponent(".Trash-\(getuid())"), top)
    }

    /// Moves `path` to its filesystem's trash; returns where it went.
    /// - Throws: `BatchError.io` when the trash cannot be created or the rename fails (the file stays in place).
    static func move(_ path: String, environment: [String: String]) throws -> String {
        guard let i = try FileOps.info(path) else { throw BatchError.refused(path: path, reason: "source vanished") }
        let dir = (path as NSString).deletingLastPathComponent
        let (trash, topDir) = try directory(forFileIn: dir, device: i.device, environment: environment)
        let files = trash + "/files"
        let infoDir = trash + "/info"
        for d in [trash, files, infoDir] {
            if (try FileOps.info(d)) == nil {
                try FileOps.makeDirectories(d)
                chmod(d, 0o700)
            }
        }
        guard let ti = try FileOps.info(trash), ti.isDirectory, !ti.isSymlink, ti.device == i.device else {
            throw BatchError.refused(path: path, reason: "trash \(trash) is not a folder on the file's filesystem")
        }
        let base = (path as NSString).lastPathComponent
        let ext = (base as NSString).pathExtension
        let stem = (base as NSString).deletingPathExtension
        // Reserve a name by creating its .trashinfo exclusively (the spec's atomic step), then rename the file.
        var n = 1
        let recorded: String
        if let topDir, FileOps.isInside(path, root: topDir), topDir != "/" {
            recorded = String(path.dropFirst(topDir.count + 1))
        } else {
            recorded = path
        }
        let pathLine = "Path=\(percentEncode(recorded))"
        while true {
            let name = n == 1 ? base : (ext.isEmpty ? "\(stem).\(n)" : "\(stem).\(n).\(ext)")
            let infoPath = infoDir + "/" + name + ".trashinfo"
            var fd = open(infoPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                guard errno == EEXIST else {
                    throw BatchError.io(path: infoPath, operation: "create trashinfo", errno: errno)
                }
                if try isOrphan(infoPath: infoPath, file: files + "/" + name, pathLine: pathLine) {
                    fd = open(infoPath, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
                }
                if fd < 0 {
                    n += 1
                    continue
                }
            }
            let text = "[Trash Info]\n\(pathLine)\nDeletionDate=\(deletionDate())\n"
            let bytes = Array(text.utf8)
            let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let synced = fsync(fd) == 0
            close(fd)
            guard wrote == bytes.count, synced else {
                let e = errno
                unlink(infoPath)
                throw BatchError.io(path: infoPath, operation: "write trashinfo", errno: e)
            }
            let dest = files + "/" + name
            if (try FileOps.info(dest)) != nil {
                unlink(infoPath)
                n += 1
                continue
            }
            if rename(path, dest) != 0 {
                let e = errno
                unlink(infoPath)
                throw BatchError.io(path: path, operation: "move to trash \(trash)", errno: e)
            }
            try FileOps.fsyncDirectory(files)
            try FileOps.fsyncDirectory(dir)
            return dest
        }
    }

    /// Whether an existing `.trashinfo` is our own orphan (a run killed between creating it and the rename): no file
    /// in files/, and our Path line, or no Path line at all once it is a minute old. A younger one without a Path may
    /// be another process's (another shard trashing a file of the same name into the same Trash) between its two
    /// steps, and reusing it would let both rename a file onto one name.
    static func isOrphan(infoPath: String, file: String, pathLine: String) throws -> Bool {
        guard try FileOps.info(file) == nil else { return false }
        let existing = (try? String(contentsOfFile: infoPath, encoding: .utf8)) ?? ""
        let lines = existing.split(separator: "\n")
        if lines.contains(where: { $0 == pathLine }) { return true }
        guard !lines.contains(where: { $0.hasPrefix("Path=") }), let info = try FileOps.info(infoPath) else {
            return false
        }
        return Date().timeIntervalSince1970 - Double(info.mtimeNs) / 1e9 > 60
    }

    /// RFC 2396 escaping of a path, keeping "/" (as the spec asks).
    static func percentEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-_.~")
        return s.utf8.map { b -> String in
            let c = Character(UnicodeScalar(b))
            if b < 0x80, let scalar = c.unicodeScalars.first, allowed.contains(scalar) { return String(c) }
            return String(format: "%%%02X", b)
        }.joined()
    }

    /// Local time as YYYY-MM-DDThh:mm:ss.
    static func deletionDate() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone.current
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return f.string(from: Date())
    }
}

// MARK: - The removal step of a run

extension BatchEngine {
    /// Verified items whose original is already gone while their output is still the verified file (a run killed
    /// between a removal and its record); the run records them as removed.
    func originalsAlreadyGone(ledger: Ledger) async throws -> [ItemRecord] {
        var gone: [ItemRecord] = []
        for rec in try await ledger.items(in: .verified) where (try FileOps.info(rec.sourcePath)) == nil {
            if let o = try FileOps.info(rec.outputPath), o.isRegular, o.size == rec.outputSize {
                gone.append(rec)
            }
        }
        return gone
    }

    /// The removal step of a run, after every item has drained and only with the permit: records the originals
    /// already gone, then re-checks each verified item and trashes or deletes its original.
    func removeOriginals(
        permit: RemovalPermit, alreadyGone: [ItemRecord], candidates: [Int64], ledger: Ledger,
        summary: inout BatchSummary
    ) async throws {
        for rec in alreadyGone {
            try await ledger.markRemoved(id: rec.id, how: nil, trashedTo: nil, note: "original already gone")
            summary.removed += 1
        }
        try await removeVerified(ids: candidates, permit: permit, ledger: ledger, summary: &summary)
    }

    /// Re-checks each verified item, then trashes or deletes its original.
    private func removeVerified(
        ids: [Int64], permit: RemovalPermit, ledger: Ledger, summary: inout BatchSummary
    ) async throws {
        let verified = try await ledger.items(in: .verified)
        let wanted = Set(ids)
        for rec in verified where wanted.contains(rec.id) {
            let display =
                (rec.sourcePath.hasPrefix(rec.sourceRoot + "/"))
                ? String(rec.sourcePath.dropFirst(rec.sourceRoot.count + 1)) : rec.sourcePath
            var refusal: String?
            if let s = try FileOps.info(rec.sourcePath), s.isRegular, !s.isSymlink {
                if s.size != rec.size || s.mtimeNs != rec.mtimeNs {
                    refusal = "source changed since it was converted"
                } else {
                    let h = try await offload { try SHA256.hex(ofFileAt: rec.sourcePath) }
                    if h != rec.hash { refusal = "source content changed since it was converted" }
                }
            } else {
                refusal = "source is no longer a regular file"
            }
            if refusal == nil {
                if let o = try FileOps.info(rec.outputPath), o.isRegular, o.size == rec.outputSize {
                } else {
                    refusal = "output missing or changed since it was verified"
                }
            }
            if let refusal {
                try await ledger.markKept(id: rec.id, reason: "original kept: \(refusal)")
                summary.removalRefused += 1
                await ledger.report(
                    ItemOutcome(
                        source: rec.sourcePath, relativeSource: display, output: rec.outputPath, relativeOutput: nil,
                        verdict: .kept, reasons: ["original kept: \(refusal)"]),
                    countsTowardsTotal: false)
                continue
            }
            do {
                let env = config.environment
                let r = try await offload {
                    try removeOriginal(path: rec.sourcePath, root: rec.sourceRoot, permit: permit, environment: env)
                }
                try await ledger.markRemoved(id: rec.id, how: r.how, trashedTo: r.trashedTo, note: nil)
                summary.removed += 1
                await ledger.report(
                    ItemOutcome(
                        source: rec.sourcePath, relativeSource: display, output: rec.outputPath, relativeOutput: nil,
                        verdict: .removed, trashedTo: r.trashedTo),
                    countsTowardsTotal: false)
            } catch {
                // The original is still in place (every removal path fails before touching it or leaves it); the
                // item stays verified so a later run retries.
                summary.removalRefused += 1
                err("readback convert: could not remove \(rec.sourcePath): \(error.oneLine); it stays in place")
            }
        }
    }
}
