import CIsolation
import Foundation

/// One long-lived worker process and its channel, used by one caller at a time (`WorkerPool` hands it out).
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let channel: Int32
    private let config: WorkerPool.Config
    /// False once the process died or was killed: the pool replaces it.
    private(set) var alive = true
    /// The pool's sealed inputs, so a file's bytes are copied into shared memory once for all its requests.
    var inputs: SealedInputCache?

    init(pid: pid_t, channel: Int32, config: WorkerPool.Config) {
        self.pid = pid
        self.channel = channel
        self.config = config
    }

    /// Ends the worker: closing the channel makes it exit; a worker that does not is killed.
    func retire() {
        guard alive else { return }
        alive = false
        close(channel)
        _ = rb_kill(pid)
        var sig: Int32 = 0
        var code: Int32 = 0
        _ = rb_reap(pid, &sig, &code)
    }

    /// What a request returned: the worker's final message and the pixels it wrote (nil when there were none).
    struct Answer {
        var message: WorkerMessage
        var pixels: SharedMapping?
    }

    /// Sends `request` with the file's bytes and supervises the worker until it answers, dies or runs out of time.
    /// - Parameters:
    ///   - deadline: the time allowed for a pixel count (nil: not known yet; the worker's stage messages may tell).
    ///   - stage: the stage named before the worker reports one.
    /// - Throws: `WorkerFailure` when the worker died or was killed (it is then not alive), `IsolationError`.
    func run(_ request: WorkerMessage, bytes: [UInt8], pixels: Int?, stage firstStage: String) throws -> Answer {
        let sealed = try inputs?.input(for: bytes) ?? SealedInput(bytes)
        let input = sealed.fd
        defer { withExtendedLifetime(sealed) {} }
        let start = Date()
        var allowed = config.timeout.seconds(pixels: pixels)
        var stage = firstStage
        var pixelsMapping: SharedMapping?
        var note: rb_death_note?
        do { try send(request, fd: input) } catch {
            // The worker went away while idle (killed from outside): the pool starts another for this request.
            retire()
            throw IsolationError.workerGone
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let left = allowed - Date().timeIntervalSince(start)
            let ready = left <= 0 ? 0 : rb_wait_readable(channel, Int32(min(left * 1000, Double(Int32.max))))
            if ready == 0 {
                _ = rb_kill(pid)
                _ = reap()
                throw WorkerFailure(kind: .timeout(seconds: allowed), stage: stage)
            }
            var fd: Int32 = -1
            let n = buffer.withUnsafeMutableBytes { rb_recv(channel, $0.baseAddress, $0.count, &fd) }
            if fd >= 0 { close(fd) }
            if n <= 0 {
                // End of stream (or a broken channel): the worker is gone; what killed it decides the verdict.
                throw death(reap(), note: note, stage: stage)
            }
            if n == MemoryLayout<rb_death_note>.size, buffer.starts(with: [0x52, 0x42, 0x44, 0x58]) {
                note = buffer.withUnsafeBytes { $0.loadUnaligned(as: rb_death_note.self) }
                continue
            }
            let m: WorkerMessage
            do { m = try JSONDecoder().decode(WorkerMessage.self, from: Data(buffer[0..<n])) } catch {
                retire()
                throw IsolationError.protocolError("unreadable message (\(error))")
            }
            switch m.kind {
            case .stage:
                stage = m.stage ?? stage
                if let p = m.pixels, pixels == nil { allowed = config.timeout.seconds(pixels: p) }
            case .need:
                let count = m.bytes ?? -1
                guard count >= 0, UInt64(count) <= config.addressSpace else {
                    retire()
                    throw IsolationError.protocolError("the worker asked for \(count) bytes")
                }
                let out = rb_memfd("readback-pixels", count)
                guard out >= 0 else { throw IsolationError.system("memfd_create", -out) }
                defer { close(out) }
                pixelsMapping = try SharedMapping.map(out, count: count, writable: false)
                try send(WorkerMessage(kind: .grant), fd: out)
            case .done, .failed:
                return Answer(message: m, pixels: pixelsMapping)
            case .request, .grant:
                retire()
                throw IsolationError.protocolError("unexpected \(m.kind.rawValue) from the worker")
            }
        }
    }

    private func send(_ m: WorkerMessage, fd: Int32) throws {
        let data = try JSONEncoder().encode(m)
        let rc = data.withUnsafeBytes { rb_send(channel, $0.baseAddress, $0.count, fd) }
        guard rc == 0 else { throw IsolationError.system("sending to the worker", -rc) }
    }

    /// Waits for the dead (or killed) worker: its terminating signal, or its exit status.
    private func reap() -> (signal: Int32, status: Int32) {
        alive = false
        close(channel)
        var sig: Int32 = 0
        var code: Int32 = 0
        _ = rb_reap(pid, &sig, &code)
        return (sig, code)
    }

    /// The verdict on a worker that died by itself. Out of memory: a fatal signal while its address space was at
    /// least `WorkerPool.nearCap` of its cap (an allocation refused by RLIMIT_AS ends in abort, a null dereference
    /// or a trap), or a SIGKILL the parent did not send (the kernel's out-of-memory killer). SIGXCPU: its CPU-time
    /// budget ran out, a timeout. SIGSYS: the seccomp filter stopped it. Any other signal: a crash.
    private func death(_ end: (signal: Int32, status: Int32), note: rb_death_note?, stage: String) -> WorkerFailure {
        let cap = config.addressSpace
        if end.signal == 0 { return WorkerFailure(kind: .exited(status: end.status), stage: stage) }
        if end.signal == SIGKILL { return WorkerFailure(kind: .outOfMemory(cap: cap), stage: stage) }
        if end.signal == SIGXCPU {
            return WorkerFailure(kind: .timeout(seconds: Double(config.timeout.cpuSeconds(pixels: nil))), stage: stage)
        }
        if end.signal == SIGSYS { return WorkerFailure(kind: .crashed(signal: SIGSYS, sandbox: true), stage: stage) }
        if let note, Double(note.address_space) >= WorkerPool.nearCap * Double(cap) {
            return WorkerFailure(kind: .outOfMemory(cap: cap), stage: stage)
        }
        return WorkerFailure(kind: .crashed(signal: end.signal, sandbox: false), stage: stage)
    }
}
