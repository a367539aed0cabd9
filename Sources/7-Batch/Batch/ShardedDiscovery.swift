import Foundation
import Sharding

extension Discovery.Result {
    /// The part of what discovery found that belongs to `shard`, keyed by each source's path relative to the SRC it
    /// was found under (a SRC given as a file: its name). Discovery ran over everything first, so two sources that
    /// map to one output are caught even when they fall into different shards.
    ///
    /// A SRC argument that does not exist is kept only when its name falls into this shard: it may be a file that
    /// another shard converted and removed, which only that shard's store knows. Every other argument problem
    /// concerns every shard.
    func restricted(to shard: Shard) -> Discovery.Result {
        var r = Discovery.Result()
        r.files = files.filter { shard.contains($0.relativePath) }
        for (p, key) in zip(problems, problemKeys) where shard.contains(key) {
            r.problems.append(p)
            r.problemKeys.append(key)
        }
        r.argumentProblems = argumentProblems.filter {
            !$0.missing || shard.contains(($0.argument as NSString).lastPathComponent)
        }
        r.skippedSymlinks = skippedSymlinks
        return r
    }
}
