import Sharding

/// `--shard K/N|auto`, shared by `convert` and `audit` (docs/distributed.md).
enum ShardOption {
    /// The option's declaration; `what` names what a shard takes ("files", "sources"); `sentence` writes the help
    /// as a sentence, as `convert` writes its options' help.
    static func spec(_ what: String, sentence: Bool = false) -> OptionSpec {
        let help =
            "ake only shard K of N (0 ≤ K < N): the \(what) whose relative path's SHA-256 mod N is K; auto reads "
            + "SLURM_ARRAY_TASK_ID/_COUNT, JOB_COMPLETION_INDEX with READBACK_SHARDS, or CI_NODE_INDEX/_TOTAL"
        return .value("shard", "K/N|auto", sentence ? "T" + help + "." : "t" + help)
    }

    /// The shard asked for, or nil without `--shard`.
    /// - Throws: `UsageError` with `Shard`'s one-line reason.
    static func parse(_ args: ParsedArguments, environment: [String: String]) throws(UsageError) -> Shard? {
        guard let raw = args.value("shard") else { return nil }
        do { return try Shard(parsing: raw, environment: environment) } catch { throw UsageError(error.message) }
    }
}
