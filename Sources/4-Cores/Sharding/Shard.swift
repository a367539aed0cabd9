import Digest

/// One shard of a sharded run: shard `index` of `count` (0 ≤ index < count). A file belongs to the shard whose
/// index is the SHA-256 of its relative path modulo `count` (``Shard/index(of:count:)``); the rule is the same on
/// every machine and every run, so any scheduler can hand out the indices (docs/distributed.md).
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// K, from 0.
    public let index: Int
    /// N, at least 1.
    public let count: Int

    /// The largest N accepted: large enough for any cluster, small enough that the modular fold cannot overflow.
    public static let maxCount = 1_000_000

    /// A usage problem with `--shard`: one line, exit 2.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Shard `index` of `count`.
    /// - Throws: ``Failure`` unless 0 ≤ index < count ≤ ``maxCount``.
    public init(index: Int, count: Int) throws(Failure) {
        guard count >= 1, count <= Self.maxCount else {
            throw Failure(message: "the shard count N must be from 1 to \(Self.maxCount), not \(count)")
        }
        guard index >= 0, index < count else {
            throw Failure(message: "the shard index K must satisfy 0 ≤ K < N, not \(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// `shard-K-of-N`: the name of this shard's own folder (its store and lock) under `DST/.readback/`.
    public var folderName: String { "shard-\(index)-of-\(count)" }

    /// The scheduler variables `--shard auto` reads, in order: the first pair whose two variables are both set
    /// wins. GitLab's index counts from 1; the others from 0.
    public static let automaticSources: [(index: String, count: String, firstIndex: Int)] = [
        ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", 0),
        ("JOB_COMPLETION_INDEX", "READBACK_SHARDS", 0),
        ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ]

    /// Parses the value of `--shard`: `K/N`, or `auto` to read K and N from the scheduler's variables
    /// (``automaticSources``).
    /// - Parameters:
    ///   - value: the option's value.
    ///   - environment: the process environment (injected for tests).
    /// - Throws: ``Failure`` with a one-line reason: a malformed value, K or N out of range, or `auto` with none
    ///   of the variables set.
    public init(parsing value: String, environment: [String: String]) throws(Failure) {
        guard value == "auto" else {
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let k = Self.number(parts[0]), let n = Self.number(parts[1]) else {
                throw Failure(message: "--shard takes K/N (for example 0/4) or auto, not '\(value)'")
            }
            try self.init(index: k, count: n)
            return
        }
        for source in Self.automaticSources {
            guard let rawIndex = environment[source.index], let rawCount = environment[source.count] else { continue }
            guard let k = Self.number(Substring(rawIndex)), let n = Self.number(Substring(rawCount)) else {
                throw Failure(
                    message: "--shard auto: \(source.index)='\(rawIndex)' and \(source.count)='\(rawCount)' "
                        + "are not both whole numbers")
            }
            do {
                try self.init(index: k - source.firstIndex, count: n)
            } catch {
                throw Failure(message: "--shard auto (\(source.index), \(source.count)): \(error.message)")
            }
            return
        }
        let names = Self.automaticSources.map { "\($0.index)/\($0.count)" }.joined(separator: ", ")
        throw Failure(message: "--shard auto: none of \(names) is set; give --shard K/N")
    }

    /// Digits only: no sign, no spaces.
    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 9, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(s)
    }

    /// The shard a relative path belongs to: SHA-256 of its UTF-8 bytes, read as one 256-bit big-endian unsigned
    /// integer, modulo `count`. Computed by folding the digest's bytes first to last, `r = (r × 256 + byte) mod
    /// count`, which gives that same remainder.
    /// - Parameters:
    ///   - relativePath: the path relative to its root: `/`-separated, no leading `./`, bytes as listed (no
    ///     Unicode normalisation).
    ///   - count: N, 1 ... ``maxCount``.
    public static func index(of relativePath: String, count: Int) -> Int {
        precondition(count >= 1 && count <= maxCount, "shard count out of range")
        let n = UInt64(count)
        var r: UInt64 = 0
        for byte in SHA256.digest(Array(relativePath.utf8)) { r = (r << 8 | UInt64(byte)) % n }
        return Int(r)
    }

    /// True when `relativePath` belongs to this shard.
    public func contains(_ relativePath: String) -> Bool {
        count == 1 || Self.index(of: relativePath, count: count) == index
    }
}

/// The fingerprint of the list a sharded run splits: every shard of one run computes it over the same whole list,
/// before sharding, so equal fingerprints prove the shards split the same list (docs/distributed.md).
public struct SourceListFingerprint: Hashable, Sendable {
    /// How many paths the list holds.
    public let files: Int
    /// SHA-256 (lower-case hex) of the paths sorted by their UTF-8 bytes, each followed by one line feed (0x0A).
    /// The empty list's is SHA-256 of nothing.
    public let sha256: String

    /// The fingerprint of `relativePaths` (in any order; duplicates count once each time they appear).
    public init(_ relativePaths: [String]) {
        let sorted = relativePaths.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var h = SHA256()
        for p in sorted {
            h.update(p)
            h.update([0x0A] as [UInt8])
        }
        files = relativePaths.count
        sha256 = h.hexDigest()
    }
}
