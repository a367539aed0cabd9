import Foundation
import Store

/// The temp files being written right now, so an interrupt (Ctrl-C, SIGTERM) can remove them before the process
/// ends. A SIGKILL cannot be caught: the next run's start-up sweep removes those.
enum InFlight {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: Set<String> = []
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    /// The running batch's store and batch row, so an interrupt can say its items in flight were not crashes.
    nonisolated(unsafe) private static var store: (path: String, batchID: Int64)?

    static func setStore(path: String, batchID: Int64) { lock.withLock { store = (path, batchID) } }

    /// An interrupt is not a crash: the batch's items mid-attempt go back to `pending` at once. Best effort through
    /// a second connection (a shard's exclusive store refuses it); the next run's start does the same anyway, since
    /// an interrupt leaves no crash mark.
    private static func releaseItemsInFlight() {
        guard let store = lock.withLock({ store }) else { return }
        guard let db = try? Database(path: store.path, migrations: Schema.migrations, busyTimeoutMilliseconds: 2000)
        else { return }
        _ = try? db.run(
            "UPDATE items SET state = 'pending' WHERE batch_id = ? AND state IN ('converting', 'written')",
            [store.batchID])
        db.close()
    }

    static func add(_ path: String) { lock.withLock { _ = paths.insert(path) } }
    static func remove(_ path: String) { lock.withLock { _ = paths.remove(path) } }

    /// Removes every registered temp file (the interrupt path).
    static func removeAll() -> Int {
        lock.withLock {
            // Names are registered before the converter creates the file: count only files that were there.
            let n = paths.filter { unlink($0) == 0 }.count
            paths.removeAll()
            return n
        }
    }

    /// Installs SIGINT/SIGTERM handlers that delete in-flight temp files, then exit 130 (SIGINT) or 143 (SIGTERM).
    /// Originals are untouched (removal only ever follows a finished run), and the store is consistent (SQLite
    /// transactions); the next run resumes.
    /// - Parameter message: where to say what happened.
    static func installHandlers(message: @escaping @Sendable (String) -> Void) {
        lock.withLock {
            guard sources.isEmpty else { return }
            for (sig, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
                signal(sig, SIG_IGN)
                let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                s.setEventHandler {
                    let n = removeAll()
                    releaseItemsInFlight()
                    message(
                        "readback convert: interrupted; \(n) partial output(s) removed, no original touched; run again to resume"
                    )
                    _exit(code)
                }
                s.resume()
                sources.append(s)
            }
        }
    }
}
