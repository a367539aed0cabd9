import Foundation

/// The temp files being written right now, so an interrupt (Ctrl-C, SIGTERM) can remove them before the process
/// ends. A SIGKILL cannot be caught: the next run's start-up sweep removes those.
enum InFlight {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: Set<String> = []
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

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
