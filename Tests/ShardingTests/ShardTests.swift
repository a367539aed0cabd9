import Testing

@testable import Sharding

/// The vectors of docs/distributed.md ("The sharding rule"), computed independently with Python's hashlib:
/// `int.from_bytes(hashlib.sha256(path.encode()).digest(), "big") % n`.
@Test(arguments: [
    ("a.dng", 4, 0),
    ("2024/\u{E9}t\u{E9}/IMG_0001.CR3", 4, 2),  // NFC: é is one scalar
    ("2024/\u{E9}t\u{E9}/IMG_0001.CR3", 64, 6),
    ("2024/e\u{301}te\u{301}/IMG_0001.CR3", 4, 2),  // NFD: e + combining acute; other bytes, other digest
    ("DCIM/100CANON/IMG_1234.CR2", 3, 1),
    ("DCIM/100CANON/IMG_1234.CR2", 1_000_000, 907_401),
    ("a.dng", 1, 0),
])
func shardOfAPathMatchesTheDocumentedVectors(path: String, count: Int, expected: Int) {
    #expect(Shard.index(of: path, count: count) == expected)
}

/// NFC and NFD spellings of one name are different bytes, so they may land in different shards: the rule never
/// normalises (Swift's `==` would call them equal; the rule must not).
@Test func theRuleHashesBytesNotCanonicalEquivalence() {
    let nfc = "2024/\u{E9}t\u{E9}/IMG_0001.CR3"
    let nfd = "2024/e\u{301}te\u{301}/IMG_0001.CR3"
    #expect(nfc == nfd)  // Swift's String equality is canonical equivalence
    #expect(SourceListFingerprint([nfc]).sha256 != SourceListFingerprint([nfd]).sha256)
}

/// Every path falls into exactly one shard, and the shards of a few hundred paths are not lopsided.
@Test func everyPathIsInExactlyOneShard() throws {
    let paths = (0..<400).map { "dir\($0 % 7)/IMG_\($0).dng" }
    let shards = try (0..<4).map { try Shard(index: $0, count: 4) }
    var sizes = [0, 0, 0, 0]
    for p in paths {
        let owners = shards.filter { $0.contains(p) }
        #expect(owners.count == 1)
        sizes[owners[0].index] += 1
    }
    #expect(sizes.allSatisfy { $0 > 60 && $0 < 140 }, "\(sizes)")
    #expect(try Shard(index: 0, count: 1).contains("anything"))
}

@Test func explicitShardsParseAndRefuseOutOfRange() throws {
    #expect(try Shard(parsing: "3/4", environment: [:]) == Shard(index: 3, count: 4))
    #expect(try Shard(parsing: "0/1", environment: [:]).folderName == "shard-0-of-1")
    for bad in ["4/4", "-1/4", "1/0", "1", "a/4", "1/4/5", " 1/4", "1/ 4", "", "/", "1/2000000"] {
        #expect(throws: Shard.Failure.self, "\(bad)") { try Shard(parsing: bad, environment: [:]) }
    }
    #expect(
        throws: Shard.Failure(message: "the shard index K must satisfy 0 ≤ K < N, not 4/4")
    ) { try Shard(parsing: "4/4", environment: [:]) }
}

@Test func autoReadsSlurmKubernetesAndGitLabInThatOrder() throws {
    let slurm = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"]
    let k8s = ["JOB_COMPLETION_INDEX": "5", "READBACK_SHARDS": "16"]
    let gitlab = ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"]
    #expect(try Shard(parsing: "auto", environment: slurm) == Shard(index: 2, count: 4))
    #expect(try Shard(parsing: "auto", environment: k8s) == Shard(index: 5, count: 16))
    // GitLab counts from 1.
    #expect(try Shard(parsing: "auto", environment: gitlab) == Shard(index: 0, count: 3))
    // Slurm wins over the others; a half-set pair is skipped.
    let all = slurm.merging(k8s) { a, _ in a }.merging(gitlab) { a, _ in a }
    #expect(try Shard(parsing: "auto", environment: all) == Shard(index: 2, count: 4))
    #expect(
        try Shard(parsing: "auto", environment: ["SLURM_ARRAY_TASK_ID": "1"].merging(gitlab) { a, _ in a })
            == Shard(index: 0, count: 3))
}

@Test func autoRefusesWithOneLineWhenNothingOrNonsenseIsSet() throws {
    let none = #expect(throws: Shard.Failure.self) { try Shard(parsing: "auto", environment: ["HOME": "/root"]) }
    #expect(
        none?.message
            == "--shard auto: none of SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX/READBACK_SHARDS, "
            + "CI_NODE_INDEX/CI_NODE_TOTAL is set; give --shard K/N")
    #expect(none?.message.contains("\n") == false)
    #expect(throws: Shard.Failure.self) {
        try Shard(parsing: "auto", environment: ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"])  // 1-based: 0 is bad
    }
    #expect(throws: Shard.Failure.self) {
        try Shard(parsing: "auto", environment: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"])
    }
}

/// The fingerprint: sorted by UTF-8 bytes, each path followed by LF; the vectors are Python's
/// `hashlib.sha256(b"".join(p + b"\n" for p in sorted(paths))).hexdigest()`.
@Test func sourceListFingerprintIsOrderIndependentAndDocumented() {
    let a = SourceListFingerprint(["b.dng", "a.dng"])
    #expect(a == SourceListFingerprint(["a.dng", "b.dng"]))
    #expect(a.files == 2)
    #expect(a.sha256 == "ea8a8767fa9318b6ff30924ac0f0a259261b583aa13f688e348ad9fe5b05295c")
    #expect(SourceListFingerprint([]).sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // Byte order, not Swift's String order: "Z" (0x5A) sorts before "a" (0x61), "é" (0xC3 0xA9) after "z".
    #expect(SourceListFingerprint(["é", "z", "a", "Z"]) == SourceListFingerprint(["Z", "a", "z", "é"]))
    #expect(SourceListFingerprint(["a.dng"]) != SourceListFingerprint(["a.dng", "a.dng"]))
}
