import ColorScience
import Testing

/// A small deterministic generator (the tests must give the same inputs every run).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Distinct values, many repeats (8-bit codes), one value only, already sorted and reversed, one value.
private func orderTestLists(_ rng: inout SplitMix) -> [[Double]] {
    [
        (0..<257).map { _ in Double.random(in: -1...1, using: &rng) },
        (0..<300).map { _ in Double(Int.random(in: 0...7, using: &rng)) },
        [Double](repeating: 3, count: 40),
        (0..<64).map(Double.init),
        (0..<64).reversed().map(Double.init),
        [42],
    ]
}

@Test func selectionGivesWhatASortPutsAtEveryIndex() {
    var rng = SplitMix(state: 7)
    for list in orderTestLists(&rng) {
        let sorted = list.sorted()
        for k in sorted.indices {
            var a = list
            let v = OrderStatistic.select(&a, k)
            #expect(v == sorted[k], "k \(k) of \(list.count)")
            #expect(a[..<k].allSatisfy { $0 <= v } && a[(k + 1)...].allSatisfy { $0 >= v })
            #expect(a.sorted() == sorted, "a permutation of the list")
            let (lo, hi) = OrderStatistic.pair(list, k)
            #expect(lo == sorted[k] && hi == (k + 1 < sorted.count ? sorted[k + 1] : nil))
        }
    }
}

/// Several ranks selected on one copy give what a sort puts at each rank and the next, whatever order the ranks come
/// in, repeated or adjacent, over the same lists as the single selection (and a NaN, which sends them to the sort).
@Test func severalRanksOnOneCopyGiveWhatASortPutsThere() {
    var rng = SplitMix(state: 11)
    for list in orderTestLists(&rng) + [[2, .nan, 1, 3]] {
        let sorted = list.sorted()
        let n = list.count
        let rankLists: [[Int]] = [
            [0], [n - 1], [n / 2, 0, n - 1], [n / 2, n / 2], [n / 3, n / 3 + 1, n / 3 + 2], [n - 1, n - 2, 0, 1],
            (0..<n).map { $0 }, (0..<n).reversed().map { $0 },
            (0..<12).map { _ in Int.random(in: 0..<n, using: &rng) },
        ]
        for ks in rankLists.map({ $0.filter { (0..<n).contains($0) } }) where !ks.isEmpty {
            let got = OrderStatistic.pairValues(list, ks)
            for (k, (lo, hi)) in zip(ks, got) {
                let want = (sorted[k], k + 1 < n ? sorted[k + 1] : nil)
                #expect(
                    lo.bitPattern == want.0.bitPattern && hi?.bitPattern == want.1?.bitPattern,
                    "rank \(k) of \(n) among \(ks.prefix(6))")
            }
        }
    }
}

/// Two computations run at once come back each in its own place, whatever they return.
@Test func parallelBothReturnsEachResultInItsPlace() {
    let (a, b) = Parallel.both({ (0..<1000).reduce(0, +) }, { "second" })
    #expect(a == 499_500 && b == "second")
    let (x, y) = Parallel.both({ [1.5, 2.5] }, { Optional<Int>.none })
    #expect(x == [1.5, 2.5] && y == nil)
}
