import CIsolation
import Foundation

/// A pool of long-lived decoder workers, as many as `--jobs`: the `readback` binary re-executed in its hidden
/// worker mode (`WorkerMain`). Callers borrow one at a time; a worker that died is replaced by a fresh one on the
/// next borrow, so one file can never stop a run.
// unchecked: every mutable field is read and written under `lock`.
public final class WorkerPool: @unchecked Sendable {
    /// How long a decode may take (`--file-timeout`).
    public struct Timeout: Sendable, Equatable {
        /// `--file-timeout SECONDS`; nil: the default rule.
        public var fixed: Double?
        public init(fixed: Double? = nil) { self.fixed = fixed }

        /// The default: 30 s plus 1 s per million pixels (the pixel count from the container, or the one the
        /// decoder reads from the file's header), 30 s while the count is not known.
        public static func defaultSeconds(pixels: Int?) -> Double { 30 + Double(pixels ?? 0) / 1_000_000 }

        /// The wall-clock time one decode may take.
        public func seconds(pixels: Int?) -> Double { fixed ?? Self.defaultSeconds(pixels: pixels) }

        /// The CPU-time budget of one decode (RLIMIT_CPU, a backstop behind the wall clock): four times the
        /// wall-clock allowance for the largest frame (libheif decodes with threads), at least 10 minutes.
        func cpuSeconds(pixels: Int?) -> Int { max(600, Int(4 * seconds(pixels: 400_000_000))) }
    }

    public struct Config: Sendable {
        /// The `readback` executable re-executed as a worker.
        public var executable: String
        /// Workers at most (`--jobs`).
        public var size: Int
        /// Each worker's address-space cap (RLIMIT_AS), bytes.
        public var addressSpace: UInt64
        public var timeout: Timeout

        public init(executable: String = "/proc/self/exe", size: Int, addressSpace: UInt64, timeout: Timeout) {
            self.executable = executable
            self.size = max(1, size)
            self.addressSpace = addressSpace
            self.timeout = timeout
        }
    }

    /// The share of its cap a worker's address space reaches before a death counts as out of memory.
    public static let nearCap = 0.75

    /// A worker's address-space cap from the memory `--jobs` plans per job (`perJob`, about 1 GB): four times it,
    /// since address space also counts what is reserved and never touched (thread stacks, allocator arenas, the
    /// mapped libraries), and at least 4 GiB.
    public static func addressSpace(perJob: Int64) -> UInt64 { max(4 << 30, 4 * UInt64(max(0, perJob))) }

    public let config: Config
    private let lock = NSCondition()
    private var idle: [WorkerProcess] = []
    private var live = 0
    private var spawned = 0
    private var framesInPlace = 0
    private var framesCopied = 0
    private var grantsReused = 0
    private var grantsNew = 0
    private let spawner: Spawner
    /// The sealed copies of the files' bytes the workers read, one per worker (`SealedInputCache`).
    private let inputs: SealedInputCache

    public init(_ config: Config) {
        self.config = config
        spawner = Spawner()
        inputs = SealedInputCache(capacity: config.size)
    }

    /// How many workers were started so far (replacements included).
    public var started: Int {
        lock.lock()
        defer { lock.unlock() }
        return spawned
    }

    /// RAW frames read where the worker's LibRaw left them (the frame arena), and frames copied packed.
    public var rawFrames: (inPlace: Int, copied: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (framesInPlace, framesCopied)
    }

    /// Shared memory granted to workers: a worker's kept grant reused, and new memfds (docs/security.md).
    public var grants: (reused: Int, new: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (grantsReused, grantsNew)
    }

    func countFrame(inPlace: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if inPlace { framesInPlace += 1 } else { framesCopied += 1 }
    }

    /// The live workers' process ids (the tests look for them after the parent is gone).
    public var pids: [pid_t] {
        lock.lock()
        defer { lock.unlock() }
        return idle.map(\.pid)
    }

    /// Starts up to `count` workers now (at most the pool's size), so that their start-up (the exec, the libraries'
    /// loading, the lockdown) overlaps the parent's own work before its first decode; they wait idle in the pool.
    /// A worker that cannot start is left to the first request, which reports it.
    public func prewarm(_ count: Int) {
        for _ in 0..<max(0, min(count, config.size)) {
            lock.lock()
            guard live < config.size else {
                lock.unlock()
                return
            }
            guard let w = try? spawnCounted() else { return }
            giveBack(w)
        }
    }

    /// Runs `body` with a worker of its own; a worker that died in it is not returned to the pool.
    /// A worker found gone before it got the request is replaced once.
    func withWorker<T>(_ body: (WorkerProcess) throws -> T) throws -> T {
        do { return try once(body) } catch IsolationError.workerGone { return try once(body) }
    }

    private func once<T>(_ body: (WorkerProcess) throws -> T) throws -> T {
        let w = try borrow()
        defer { giveBack(w) }
        return try body(w)
    }

    private func borrow() throws -> WorkerProcess {
        lock.lock()
        while idle.isEmpty && live >= config.size { lock.wait() }
        // A worker whose kept grant is free first: its next pixels need no new shared memory.
        if let i = idle.lastIndex(where: \.keptIsFree) ?? idle.indices.last {
            let w = idle.remove(at: i)
            lock.unlock()
            return w
        }
        return try spawnCounted()
    }

    /// Starts one worker and counts it live; called with `lock` held and below the pool's size, returns unlocked.
    private func spawnCounted() throws -> WorkerProcess {
        live += 1
        spawned += 1
        lock.unlock()
        do {
            let w = try spawner.spawn(config)
            w.inputs = inputs
            w.countGrant = { [weak self] reused in
                guard let self else { return }
                lock.lock()
                if reused { grantsReused += 1 } else { grantsNew += 1 }
                lock.unlock()
            }
            return w
        } catch {
            lock.lock()
            live -= 1
            lock.signal()
            lock.unlock()
            throw error
        }
    }

    private func giveBack(_ w: WorkerProcess) {
        lock.lock()
        if w.alive { idle.append(w) } else { live -= 1 }
        lock.signal()
        lock.unlock()
    }

    /// Peak resident memory, MB: this (parent) process's, and the largest of the workers ended so far (reaped
    /// children: call after `shutdown()`). `make bench` reports both (`READBACK_WORKER_STATS=1`).
    public static func peakRSS() -> (parentMB: Double, largestWorkerMB: Double) {
        (Double(rb_peak_rss_kib(0)) / 1024, Double(max(0, rb_peak_rss_kib(1))) / 1024)
    }

    /// Ends every idle worker (at the end of a run).
    public func shutdown() {
        lock.lock()
        let all = idle
        idle = []
        live -= all.count
        lock.unlock()
        for w in all { w.retire() }
        inputs.removeAll()
    }
}

/// Starts workers from one thread that lives as long as the process: PR_SET_PDEATHSIG fires when the *thread* that
/// started a child ends, so workers started from a pool thread that later exits would be killed with it.
// unchecked: `jobs` is read and written under `lock`; the rest is immutable.
final class Spawner: @unchecked Sendable {
    private let lock = NSCondition()
    private var jobs: [(WorkerPool.Config, (Result<WorkerProcess, Error>) -> Void)] = []

    init() {
        let t = Thread { [self] in loop() }
        t.name = "readback-worker-spawner"
        t.stackSize = 1 << 20
        t.start()
    }

    func spawn(_ config: WorkerPool.Config) throws -> WorkerProcess {
        let done = DispatchSemaphore(value: 0)
        // unchecked: the spawner thread writes it before signalling `done`; it is read after `wait()`.
        nonisolated(unsafe) var result: Result<WorkerProcess, Error> = .failure(IsolationError.protocolError("spawn"))
        lock.lock()
        jobs.append(
            (
                config,
                {
                    result = $0
                    done.signal()
                }
            ))
        lock.signal()
        lock.unlock()
        done.wait()
        return try result.get()
    }

    private func loop() {
        while true {
            lock.lock()
            while jobs.isEmpty { lock.wait() }
            let (config, reply) = jobs.removeFirst()
            lock.unlock()
            reply(Result { try Self.start(config) })
        }
    }

    private static func start(_ config: WorkerPool.Config) throws -> WorkerProcess {
        var fds: [Int32] = [-1, -1]
        let rc = rb_socketpair(&fds)
        guard rc == 0 else { throw IsolationError.system("socketpair", -rc) }
        defer { close(fds[1]) }
        let args = [
            config.executable, WorkerMain.argument, String(getpid()), String(config.addressSpace),
        ]
        var env = ProcessInfo.processInfo.environment
        // Swift's crash reporter would exec a helper, which the sandbox forbids: the parent names the signal instead.
        env["SWIFT_BACKTRACE"] = "enable=no"
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        let pid = withCStrings(args) { argv in
            withCStrings(envStrings) { envp in rb_spawn(config.executable, argv, envp, fds[1]) }
        }
        guard pid > 0 else {
            close(fds[0])
            throw IsolationError.system("starting a worker (\(config.executable))", -pid)
        }
        return WorkerProcess(pid: pid, channel: fds[0], config: config)
    }
}

/// `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let c = strings.map { strdup($0) }
    defer { for p in c { free(p) } }
    return body(c + [nil])
}
