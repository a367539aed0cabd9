import ReportModel
import Sharding

extension AuditJob {
    /// The path `--shard` hashes: the source's, relative to `--sources` (or as written in a pairs file), so audit
    /// shard K checks what convert shard K wrote; the output's, relative to `--outputs`, when there is no source.
    public var shardKey: String { sourceDisplay ?? outputDisplay ?? name }
}

extension Pairing {
    /// The part of this pairing that belongs to `shard`: its jobs and its unmatched outputs (an output without a
    /// source is keyed by its own relative path), with the run's `run.shard` and `run.sourceList`.
    /// - Parameter shard: K/N.
    /// - Returns: the restricted pairing, the shard's record (K, N, how many keys it holds) and the fingerprint of
    ///   the whole key list, the same for every shard of the run.
    public func restricted(to shard: Shard) -> (pairing: Pairing, shard: ShardRecord, sourceList: SourceListRecord) {
        let fingerprint = SourceListFingerprint(shardKeys)
        let mine = Pairing(
            jobs: jobs.filter { shard.contains($0.shardKey) },
            unmatchedOutputs: unmatchedOutputs.filter { shard.contains($0) },
            shardKeys: shardKeys.filter { shard.contains($0) })
        return (
            mine, ShardRecord(index: shard.index, count: shard.count, sources: mine.shardKeys.count),
            SourceListRecord(files: fingerprint.files, sha256: fingerprint.sha256)
        )
    }
}
