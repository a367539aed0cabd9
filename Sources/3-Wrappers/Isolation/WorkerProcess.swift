import CIsolation
import Foundation

/// One long-lived worker process and its channel, used by one caller at a time (`WorkerPool` hands it out).
// unchecked: one caller at a time (the pool lends it out); the kept grant's state is under `keptLock`.
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let channel: Int32
    private let config: WorkerPool.Config
    /// False once the process died or was killed: the pool replaces it.
    private(set) var alive = true
    /// The pool's sealed inputs, so a file's bytes are copied into shared memory once for all its requests.
    var inputs: SealedInputCache?
    /// Told of each grant: true when the kept grant was reused (the pool's statistics).
    var countGrant: (@Sendable (Bool) -> Void)?
    /// The grant this worker keeps mapped between requests, mapped here too, and whether a lease of it is live: while
    /// the parent reads it (a RAW frame in use), the worker gets a new memfd instead (docs/security.md, "Kept grants").
    private var kept: SharedMapping?
    private var keptLeased = false
    private let keptLock = NSLock()

    init(pid: pid_t, channel: Int32, config: WorkerPool.Config) {
        self.pid = pid
        self.channel = channel
        self.config = config
    }

    /// Whether this worker's kept grant is there and free, so that its next request reuses it (the pool prefers
    /// such a worker).
    var keptIsFree: Bool {
        keptLock.lock()
        defer { keptLock.unlock() }
        return kept != nil && !keptLeased
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

    /// What a request returned: the worker's answer and the pixels it wrote (nil when there were none).
    struct Answer {
        var answer: WorkerAnswer
        var pixels: SharedMapping?
    }

    /// Sends `op` with the file's bytes and supervises the worker until it answers, dies or runs out of time.
    /// - Parameters:
    ///   - pixels: the image's pixel count, for the deadline (nil: not known yet; the worker's stage messages may
    ///     tell).
    ///   - stage: the stage named before the worker reports one.
    ///   - budget: the file's allowance when the request is part of one file's work (all its requests together).
    /// - Throws: `DecodeFailure`: `worker` when the worker died or was killed (it is then not alive), `library` or
    ///   `refused` when it answered so; `IsolationError` when the request could not be made or the worker's messages
    ///   were refused.
    func run(_ op: Operation, bytes: [UInt8], pixels: Int?, stage firstStage: String, budget: FileBudget?)
        throws -> Answer
    {
        let request = try WorkerWire.encode(
            WorkerRequest.decode(op, cpuSeconds: config.timeout.cpuSeconds(pixels: nil)))
        guard request.count <= WorkerWire.requestBytes else {
            throw IsolationError.protocolError("a request of \(request.count) bytes")
        }
        let sealed = try inputs?.input(for: bytes) ?? SealedInput(bytes)
        let input = sealed.fd
        defer { withExtendedLifetime(sealed) {} }
        // The file's budget when the caller works on one file (all its requests together), else this request's.
        let before = budget?.spent ?? 0
        var allowed = budget?.allowance(pixels: pixels) ?? config.timeout.seconds(pixels: pixels)
        var stage = firstStage
        if allowed - before <= 0 {
            throw DecodeFailure.worker(WorkerFailure(kind: .timeout(seconds: allowed), stage: stage, wholeFile: true))
        }
        let start = Date()
        defer { budget?.charge(Date().timeIntervalSince(start)) }
        var pixelsMapping: SharedMapping?
        var needs = 0
        var note: rb_death_note?
        do { try send(request, fd: input) } catch {
            // The worker went away while idle (killed from outside): the pool starts another for this request.
            retire()
            throw IsolationError.workerGone
        }
        var buffer = [UInt8](repeating: 0, count: WorkerWire.replyBytes)
        while true {
            let left = allowed - before - Date().timeIntervalSince(start)
            let ready = left <= 0 ? 0 : rb_wait_readable(channel, Int32(min(left * 1000, Double(Int32.max))))
            if ready == 0 {
                _ = rb_kill(pid)
                _ = reap()
                let f = WorkerFailure(kind: .timeout(seconds: allowed), stage: stage, wholeFile: budget != nil)
                throw DecodeFailure.worker(f)
            }
            var fd: Int32 = -1
            let n = buffer.withUnsafeMutableBytes { rb_recv(channel, $0.baseAddress, $0.count, &fd) }
            if fd >= 0 { close(fd) }
            if n <= 0 {
                // End of stream (or a broken channel): the worker is gone; what killed it decides the verdict.
                throw DecodeFailure.worker(death(reap(), note: note, stage: stage))
            }
            if n == MemoryLayout<rb_death_note>.size, buffer.starts(with: [0x52, 0x42, 0x44, 0x58]) {
                note = buffer.withUnsafeBytes { $0.loadUnaligned(as: rb_death_note.self) }
                continue
            }
            let reply: WorkerReply
            switch WorkerWire.decode(WorkerReply.self, buffer[0..<n]) {
            case .success(let r): reply = r
            case .failure(let error):
                retire()
                throw IsolationError.protocolError("unreadable message (\(error))")
            }
            switch reply {
            case .stage(let name, let p):
                stage = name
                if let p, pixels == nil {
                    allowed = budget?.allowance(pixels: p) ?? config.timeout.seconds(pixels: p)
                }
            case .need(let count, let workerKept):
                guard count >= 0, UInt64(count) <= config.addressSpace else {
                    retire()
                    throw IsolationError.protocolError("the worker asked for \(count) bytes")
                }
                needs += 1
                pixelsMapping = try grant(count, workerKept: workerKept, firstInRequest: needs == 1)
            case .done(let answer): return Answer(answer: answer, pixels: pixelsMapping)
            case .failed(let library): throw DecodeFailure.library(library)
            case .gaveUp(let reason): throw DecodeFailure.refused(reason: reason)
            }
        }
    }

    /// Answers a worker's need of `count` bytes: with its kept grant when that is free, as large and the request's
    /// first (a second need of one request may come while the worker still uses the first grant); else with a new
    /// memfd, which becomes the kept grant when it is at least as large. Returns the parent's view, a lease.
    private func grant(_ count: Int, workerKept: Int?, firstInRequest: Bool) throws -> SharedMapping {
        keptLock.lock()
        // A worker that no longer keeps its grant (LibRaw never gave it back) says so: it is forgotten here too.
        if workerKept != kept?.count { kept = nil }
        if let k = kept, !keptLeased, firstInRequest, count <= k.count {
            keptLeased = true
            keptLock.unlock()
            try sendGrant(.reuse, fd: -1)
            countGrant?(true)
            return lease(k, count: count)
        }
        keptLock.unlock()
        let out = rb_memfd("readback-pixels", count)
        guard out >= 0 else { throw IsolationError.system("memfd_create", -out) }
        defer { close(out) }
        let mapping = try SharedMapping.map(out, count: count, writable: false)
        keptLock.lock()
        let keep = firstInRequest && count >= (kept?.count ?? 0)
        if keep {
            kept = mapping
            keptLeased = true
        }
        keptLock.unlock()
        try sendGrant(.grant(keep: keep), fd: out)
        countGrant?(false)
        return keep ? lease(mapping, count: count) : mapping
    }

    /// Sends a grant; a worker that cannot be told is retired, so the two sides never disagree on the kept grant.
    private func sendGrant(_ g: WorkerRequest, fd: Int32) throws {
        do { try send(WorkerWire.encode(g), fd: fd) } catch {
            retire()
            throw error
        }
    }

    /// A view of the kept grant `k` that frees it for reuse when it goes.
    private func lease(_ k: SharedMapping, count: Int) -> SharedMapping {
        k.lease(count: count) { [weak self] in
            guard let self else { return }
            keptLock.lock()
            if kept === k { keptLeased = false }
            keptLock.unlock()
        }
    }

    private func send(_ data: Data, fd: Int32) throws {
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
