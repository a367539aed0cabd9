// Order statistics without a full sort: a percentile of a few million values is one of them (or two, interpolated),
// and a sort is O(n log n) where a selection is O(n) on average.

/// The k-th smallest of a list of values: what `sorted()[k]` gives, without sorting.
public enum OrderStatistic {
    /// Rearranges `values` so that `values[k]` is the value `sorted()` puts at `k`, every value before it is ≤ it and
    /// every value after it ≥ it (a three-way quickselect, median-of-three pivots). Returns `values[k]`.
    /// - Precondition: `0 ≤ k < values.count`, and no NaN among the values (the caller sorts those).
    @inlinable @discardableResult
    public static func select<T: Comparable>(_ values: inout [T], _ k: Int) -> T {
        precondition(k >= 0 && k < values.count, "order statistic out of range")
        return values.withUnsafeMutableBufferPointer { p in
            var lo = 0
            var hi = p.count - 1
            while lo < hi {
                let (a, b, c) = (p[lo], p[lo + (hi - lo) / 2], p[hi])
                let pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b))
                // [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot.
                var lt = lo
                var i = lo
                var gt = hi
                while i <= gt {
                    if p[i] < pivot {
                        p.swapAt(lt, i)
                        lt += 1
                        i += 1
                    } else if pivot < p[i] {
                        p.swapAt(i, gt)
                        gt -= 1
                    } else {
                        i += 1
                    }
                }
                if k < lt {
                    hi = lt - 1
                } else if k > gt {
                    lo = gt + 1
                } else {
                    break
                }
            }
            return p[k]
        }
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

    /// `pair` of floating-point values: selected, or sorted when a NaN (which has no order) is among them.
    @inlinable
    public static func pairValue<T: FloatingPoint>(_ values: [T], _ k: Int) -> (T, T?) {
        guard values.contains(where: \.isNaN) else { return pair(values, k) }
        let s = values.sorted()
        return (s[k], k + 1 < s.count ? s[k + 1] : nil)
    }
}
