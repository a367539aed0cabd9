import CIsolation
import Foundation

/// Which items were in flight when the process itself died of a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
/// SIGABRT, SIGTRAP), and in which stage: the only deaths that count an attempt against a file.
///
/// A handler installed for the run writes one line per item in flight into a file opened beforehand (async-signal-safe
/// C: `crash_marks.c`), then lets the signal go on. The next run reads the file before it plans: a marked item counts
/// one attempt (`Ledger.recordAttemptsEndedByExit(crashed:)`); an item left mid-attempt without a mark (SIGKILL, an
/// OOM kill, power loss, a preempted job) goes back to pending, uncounted, since its end says nothing about the file.
/// A decoder worker's death is the worker supervisor's to report (`decode.*`), as before.
enum CrashMarks {
    enum Stage: Int32, Sendable {
        case conversion = 1
        case readBack = 2

        var name: String { self == .conversion ? "conversion" : "read-back audit" }
    }

    struct Mark: Sendable, Equatable {
        let stage: Stage
        let signal: Int32

        /// "SIGSEGV".
        var signalName: String {
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT",
                SIGTRAP: "SIGTRAP",
            ]
            return names[signal] ?? "signal \(signal)"
        }
    }

    /// The marks file beside the store.
    static func path(forStore dbPath: String) -> String { dbPath + ".crash-marks" }

    /// The marks an earlier process left (the last per item); empty when there is no file. Reads at most 1 MB.
    static func read(_ path: String) -> [Int64: Mark] {
        guard let h = FileHandle(forReadingAtPath: path) else { return [:] }
        defer { try? h.close() }
        let data = (try? h.read(upToCount: 1 << 20)) ?? Data()
        var marks: [Int64: Mark] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count == 3, let item = Int64(f[0]), item > 0, let s = Int32(f[1]), let stage = Stage(rawValue: s),
                let signal = Int32(f[2])
            else { continue }
            marks[item] = Mark(stage: stage, signal: signal)
        }
        return marks
    }

    /// Opens (empties) the marks file and installs the handler, for the rest of the run.
    /// - Throws: `BatchError.io` when the file cannot be opened.
    static func install(_ path: String) throws {
        let rc = rb_marks_install(path)
        if rc < 0 { throw BatchError.io(path: path, operation: "open the crash marks", errno: -rc) }
    }

    /// Restores the handlers it replaced and removes the (empty) marks file: the run ended by itself. (Installed once
    /// the plan is made, `BatchEngine.planAndSchedule`; uninstalled when the run's store closes.)
    static func uninstall(_ path: String) {
        rb_marks_uninstall()
        unlink(path)
    }

    /// One item in flight; `release()` when its attempt ended, however it ended.
    struct Slot: Sendable {
        let index: Int32

        func moved(to stage: Stage) { rb_marks_stage(index, stage.rawValue) }
        func release() { rb_marks_release(index) }
    }

    static func claim(item: Int64, stage: Stage) -> Slot { Slot(index: rb_marks_claim(item, stage.rawValue)) }

    /// Test hook, debug builds only (the product never has it): `READBACK_TEST_PARENT_CRASH=NAME:STAGE` (stage
    /// `conversion` or `read-back`) makes this process die of SIGSEGV when the file named NAME reaches STAGE.
    static func testCrash(file path: String, stage: Stage) {
        #if DEBUG
            guard let hook = ProcessInfo.processInfo.environment["READBACK_TEST_PARENT_CRASH"] else { return }
            let want = stage == .conversion ? "conversion" : "read-back"
            if hook == (path as NSString).lastPathComponent + ":" + want { raise(SIGSEGV) }
        #endif
    }
}
