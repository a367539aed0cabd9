import Dispatch

/// Two independent computations run at once, on two cores when there are two: for the per-image passes of an
/// audit, which would otherwise leave a core idle while the other works. What each returns does not depend on how
/// many cores there are.
public enum Concurrently {
    /// Runs `first` and `second` at once and returns both results.
    public static func run<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        var a: A?
        var b: B?
        withUnsafeMutablePointer(to: &a) { pa in
            withUnsafeMutablePointer(to: &b) { pb in
                withoutActuallyEscaping(first) { first in
                    withoutActuallyEscaping(second) { second in
                        let work = Work(first: first, second: second, a: pa, b: pb)
                        DispatchQueue.concurrentPerform(iterations: 2) { work.run($0) }
                    }
                }
            }
        }
        return (a!, b!)
    }

    /// The two computations and their results' storage; iteration 0 runs the first and writes `a`, iteration 1 the
    /// second and `b`, and both are done when `concurrentPerform` returns.
    // unchecked: iteration 0 alone writes `a` and iteration 1 alone `b`; both are read after concurrentPerform returns.
    private struct Work<A, B>: @unchecked Sendable {
        let first: () -> A
        let second: () -> B
        let a: UnsafeMutablePointer<A?>
        let b: UnsafeMutablePointer<B?>

        func run(_ i: Int) {
            if i == 0 { a.pointee = first() } else { b.pointee = second() }
        }
    }
}

/// A pointer or buffer handed to `concurrentPerform` iterations, which read it or write disjoint parts of it.
// unchecked: a pointer whose users read it or write disjoint parts of it, all inside one concurrentPerform.
public struct UnsafeSendable<P>: @unchecked Sendable {
    public let value: P
    public init(_ v: P) { value = v }
}
