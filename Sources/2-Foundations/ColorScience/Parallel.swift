import Dispatch
import Synchronization

/// The one pool for pixel work: Dispatch's `concurrentPerform`, which runs the iterations on as many threads as there
/// are cores and returns when all are done. Every parallel pixel pass (render, reductions, noise probe, the render
/// check's measures, the worker's previews) goes through here, so the work a conversion or an audit starts never
/// oversubscribes the cores, whatever the number of files in flight. The closures are `@Sendable`, so the compiler
/// checks what they share; a buffer whose iterations write disjoint parts travels as an `UnsafeSendable`, each with
/// its reason at the call site. What each pass returns does not depend on the number of cores.
///
/// File-level parallelism lives above (docs/ARCHITECTURE.md, "Concurrency"): `--jobs` files at once on blocking
/// threads, and the batch's bookkeeping in an actor.
public enum Parallel {
    /// Runs `body(0) … body(iterations − 1)` at once on the pool; returns when every iteration is done.
    public static func forEach(_ iterations: Int, _ body: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
    }

    /// Runs `first` and `second` at once and returns both results: for two independent per-image passes, which would
    /// otherwise leave a core idle while the other works.
    public static func both<A: Sendable, B: Sendable>(
        _ first: @Sendable () -> A, _ second: @Sendable () -> B
    ) -> (A, B) {
        let slots = Mutex<(A?, B?)>((nil, nil))
        forEach(2) { i in
            if i == 0 {
                let a = first()
                slots.withLock { $0.0 = a }
            } else {
                let b = second()
                slots.withLock { $0.1 = b }
            }
        }
        return slots.withLock { ($0.0!, $0.1!) }
    }
}

/// A pointer or buffer handed to `Parallel.forEach` iterations, which read it or write disjoint parts of it.
// unchecked: a pointer whose users read it or write disjoint parts of it, all inside one Parallel.forEach.
public struct UnsafeSendable<P>: @unchecked Sendable {
    public let value: P
    public init(_ v: P) { value = v }
}
