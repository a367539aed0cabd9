import Foundation
import Store
import Synchronization

/// The temp files being written right now, so an interrupt (Ctrl-C, SIGTERM) can remove them before the process
/// ends. A SIGKILL cannot be caught: the next run's start-up sweep removes those.
enum InFlight {
    private struct State {
        var paths: Set<String> = []
        var sources: [DispatchSourceSignal] = []
        /// The running batch's store and batch row, so an interrupt can say its items in flight were not crashes.
        var store: (path: String, batchID: Int64)?
    }
    private static let state = Mutex(State())

    static func setStore(path: String, batchID: Int64) { state.withLock { $0.store = (path, batchID) } }

    /// An interrupt is not a crash: the batch's items mid-attempt go back to `pending` at once. Best effort through
    /// a second connection (a shard's exclusive store refuses it); the next run's start does the same anyway, since
    /// an interrupt leaves no crash mark.
    private static func releaseItemsInFlight() {
        guard let store = state.withLock({ $0.store }) else { return }
        guard let db = try? Database(path: store.path, migrations: Schema.migrations, busyTimeoutMilliseconds: 2000)
        else { return }
        _ = try? db.run(
            "UPDATE items SET state = 'pending' WHERE batch_id = ? AND state IN ('converting', 'written')",
            [store.batchID])
        db.close()
    }

    static func add(_ path: String) { state.withLock { _ = $0.paths.insert(path) } }
    static func remove(_ path: String) { state.withLock { _ = $0.paths.remove(path) } }

    /// Removes every registered temp file (the interrupt path).
    static func removeAll() -> Int {
        state.withLock { s in
            // Names are registered before the converter creates the file: count only files that were there.
            let n = s.paths.filter { unlink($0) == 0 }.count
            s.paths.removeAll()
            return n
        }
    }

    /// Installs SIGINT/SIGTERM handlers that delete in-flight temp files, then exit 130 (SIGINT) or 143 (SIGTERM).
    /// Originals are untouched (removal only ever follows a finished run), and the store is consistent (SQLite
    /// transactions); the next run resumes.
    /// - Parameter message: where to say what happened.
    static func installHandlers(message: @escaping @Sendable (String) -> Void) {
        state.withLock { st in
            guard st.sources.isEmpty else { return }
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
                st.sources.append(s)
            }
        }
    }
}
