import Foundation
import Store

/// The one error type of Batch; each case names the file and the reason in one line.
public enum BatchError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A system call failed on `path`.
    case io(path: String, operation: String, errno: Int32)
    /// Another run holds the store's lock.
    case storeBusy(lockPath: String)
    /// The state database failed.
    case store(SQLiteError)
    /// A source or output path is not acceptable (outside the root, a symlink, not a regular file).
    case refused(path: String, reason: String)
    /// The run was stopped after a fatal error on another item (e.g. the disk is full).
    case cancelled

    public var description: String {
        switch self {
        case .io(let path, let op, let e):
            return "\(Self.displayPath(path)): \(op) failed" + (e == 0 ? "" : ": \(String(cString: strerror(e)))")
        case .storeBusy(let lock):
            return "another 'readback convert' is already running on this store (lock \(lock) is held); "
                + "wait for it to finish or choose another --db"
        case .store(let e):
            return "state database: \(e.description)"
        case .refused(let path, let reason):
            return "\(path): \(reason)"
        case .cancelled:
            return "cancelled"
        }
    }

    /// A temp file is named after the output it becomes: `<dir>/.readback-tmp-<uuid>-<name>` shows as `<dir>/<name>`.
    static func displayPath(_ path: String) -> String {
        guard let final = FileOps.finalPath(ofTemp: path) else { return path }
        return final + " (while writing)"
    }

    /// True for errors that will repeat for every following item: disk full, quota, read-only filesystem.
    public var isFatalForBatch: Bool {
        switch self {
        case .io(_, _, let e): return e == ENOSPC || e == EDQUOT || e == EROFS
        case .store, .storeBusy: return true
        default: return false
        }
    }
}

extension Error {
    /// This error as one line of text (Batch's own errors without the type-name noise).
    var oneLine: String {
        if let b = self as? BatchError { return b.description }
        if let s = self as? SQLiteError { return s.description }
        return String(describing: self).replacingOccurrences(of: "\n", with: " ")
    }

    /// True when this error means no later item can succeed either (disk full and the like).
    var isFatalForBatch: Bool {
        if let b = self as? BatchError { return b.isFatalForBatch }
        if self is SQLiteError { return true }
        let ns = self as NSError
        if ns.domain == NSPOSIXErrorDomain { return [ENOSPC, EDQUOT, EROFS].contains(Int32(ns.code)) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return [ENOSPC, EDQUOT, EROFS].contains(Int32(underlying.code))
        }
        if ns.domain == NSCocoaErrorDomain && ns.code == NSFileWriteOutOfSpaceError { return true }
        return false
    }
}
