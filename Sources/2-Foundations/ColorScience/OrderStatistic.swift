// Order statistics without a full sort: a percentile of a few million values is one of them (or two, interpolated),
// and a sort is O(n log n) where a selection is O(n) on average.

/// The k-th smallest of a list of values: what `sorted()[k]` gives, without sorting.
public enum OrderStatistic {
    /// Rearranges `values` so that `values[k]` is the value `sorted()` puts at `k`, every value before it is ≤ it and
    /// every value after it ≥ it. Returns `values[k]`.
    /// - Precondition: `0 ≤ k < values.count`, and no NaN among the values (the caller sorts those).
    @inlinable @discardableResult
    public static func select<T: Comparable>(_ values: inout [T], _ k: Int) -> T {
        precondition(k >= 0 && k < values.count, "order statistic out of range")
        return values.withUnsafeMutableBufferPointer { select(in: $0, k, from: 0) }
    }

    /// `select` within `p[from...]`, whose values are all ≥ every value before `from` (a previous selection's right
    /// part): a quickselect with median-of-three pivots and Hoare's partition, which stops on values equal to the
    /// pivot from both sides, so that many equal values (clipped samples, 8-bit codes) still split evenly.
    @inlinable
    static func select<T: Comparable>(in p: UnsafeMutableBufferPointer<T>, _ k: Int, from: Int) -> T {
        var lo = from
        var hi = p.count - 1
        while hi > lo {
            // p[lo] ≤ p[mid] ≤ p[hi]: the pivot, and a sentinel at each end for the scans.
            let mid = lo + (hi - lo) / 2
            if p[mid] < p[lo] { p.swapAt(mid, lo) }
            if p[hi] < p[lo] { p.swapAt(hi, lo) }
            if p[hi] < p[mid] { p.swapAt(hi, mid) }
            if hi - lo <= 2 { break }
            let pivot = p[mid]
            var i = lo
            var j = hi
            while true {
                repeat { i += 1 } while p[i] < pivot
                repeat { j -= 1 } while pivot < p[j]
                if i >= j { break }
                p.swapAt(i, j)
            }
            // Every value in lo...j is ≤ every value in j + 1...hi, and both parts are non-empty.
            if k <= j { hi = j } else { lo = j + 1 }
        }
        return p[k]
    }

    /// `sorted()[k]` of floating-point values: selected, or sorted when a NaN (which has no order) is among them.
    @inlinable
    public static func value<T: FloatingPoint>(_ values: inout [T], _ k: Int) -> T {
        values.contains(where: \.isNaN) ? values.sorted()[k] : select(&values, k)
    }

    /// `sorted()[k]` and `sorted()[k + 1]` (the second nil when `k` is the last index), by selection.
    @inlinable
    public static func pair<T: Comparable>(_ values: [T], _ k: Int) -> (T, T?) {
        var a = values
        let first = select(&a, k)
        return (first, k + 1 < a.count ? a[(k + 1)...].min() : nil)
    }

    /// `pair` of floating-point values at each of `ks` (ascending or not) on one copy of `values`, or from a sort when
    /// a NaN (which has no order) is among them: each selection after the first runs only in the part above the
    /// previous rank.
    @inlinable
    public static func pairValues<T: FloatingPoint>(_ values: [T], _ ks: [Int]) -> [(T, T?)] {
        precondition(ks.allSatisfy { $0 >= 0 && $0 < values.count }, "order statistic out of range")
        if values.contains(where: \.isNaN) {
            let s = values.sorted()
            return ks.map { (s[$0], $0 + 1 < s.count ? s[$0 + 1] : nil) }
        }
        var a = values
        var out = [(T, T?)](repeating: (0, nil), count: ks.count)
        a.withUnsafeMutableBufferPointer { p in
            var from = 0
            for i in ks.indices.sorted(by: { ks[$0] < ks[$1] }) {
                // Ranks below `from` are in place already (a repeated rank, or the one after the last).
                let k = ks[i]
                let first = k < from ? p[k] : select(in: p, k, from: from)
                from = max(from, k + 1)
                var second: T? = nil
                if k + 1 < p.count {
                    // The values above k are ≥ p[k]: the next in order is their least.
                    second = k + 1 < from ? p[k + 1] : select(in: p, k + 1, from: from)
                    from = max(from, k + 2)
                }
                out[i] = (first, second)
            }
        }
        return out
    }
}
