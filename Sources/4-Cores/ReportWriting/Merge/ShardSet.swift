import Foundation
import ReportModel

/// The shard reports given to `readback merge`, checked as one complete set before anything is written.
public struct ShardSet: Sendable {
    /// One shard report: its folder and its header (everything but `files`, which is never held whole).
    public struct Member: Sendable {
        /// The report's folder as given.
        public let folder: String
        public let header: AuditReport
        public var shard: ShardRecord { header.run.shard! }
        public var reportURL: URL { URL(fileURLWithPath: folder).appendingPathComponent("report.json") }
    }

    /// Why a set is refused: one line per problem, each naming the shards concerned (exit 2).
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public let problems: [String]
        public var description: String { problems.joined(separator: "\n") }
    }

    /// The members, in shard order 0 ..< N.
    public let members: [Member]
    /// N.
    public var count: Int { members.count }
    /// The fingerprint every member carries.
    public var sourceList: SourceListRecord { members[0].header.run.sourceList! }

    /// What makes shard reports parts of one run: N, the source list, the mode and whether pixels were decoded.
    struct Identity: Hashable {
        let count: Int
        let sourceList: SourceListRecord
        let mode: AuditMode
        let decode: Bool

        init(_ run: RunParameters, _ shard: ShardRecord, _ list: SourceListRecord) {
            count = shard.count
            sourceList = list
            mode = run.mode
            decode = run.decode
        }

        var text: String {
            "N=\(count), \(sourceList.files) sources \(sourceList.sha256.prefix(12))…, mode \(mode)"
                + (decode ? "" : ", no decode")
        }
    }

    /// Reads the header of every report (each `report.json` once, its files skipped undecoded) and checks that
    /// they form one complete set: every one a shard report, all of one run (the same N, source list, mode and
    /// decoding; the run most of them share is the reference), every index 0 ..< N exactly once, and the
    /// shards' source counts adding up to the list's.
    /// - Parameter folders: the report folders as given.
    /// - Throws: ``Refusal`` naming the missing, duplicated and foreign shards; ``ReportStream/Failure`` for a
    ///   report that cannot be read.
    public init(folders: [String]) throws {
        var read: [(folder: String, header: AuditReport)] = []
        var problems: [String] = []
        for folder in folders {
            let url = URL(fileURLWithPath: folder).appendingPathComponent("report.json")
            let header = try ReportStream(path: url.path).header()
            guard header.run.shard != nil, header.run.sourceList != nil else {
                problems.append(
                    "\(folder): not a shard report (no run.shard and run.sourceList; audit with --shard K/N)")
                continue
            }
            read.append((folder, header))
        }
        let identities = read.map { Identity($0.header.run, $0.header.run.shard!, $0.header.run.sourceList!) }
        var votes: [Identity: Int] = [:]
        for i in identities { votes[i, default: 0] += 1 }
        // The run most reports belong to; a tie goes to the one given first.
        let reference = identities.max { a, b in
            votes[a]! != votes[b]!
                ? votes[a]! < votes[b]! : identities.firstIndex(of: a)! > identities.firstIndex(of: b)!
        }
        var byIndex: [Int: [Member]] = [:]
        for (r, identity) in zip(read, identities) {
            let s = r.header.run.shard!
            guard identity == reference else {
                problems.append(
                    "\(r.folder): foreign shard \(s.index)/\(s.count) of another run (\(identity.text); "
                        + "the others: \(reference!.text))")
                continue
            }
            byIndex[s.index, default: []].append(Member(folder: r.folder, header: r.header))
        }
        if let reference {
            let missing = (0..<reference.count).filter { byIndex[$0] == nil }
            if !missing.isEmpty {
                problems.append(
                    "missing shard(s) \(missing.map(String.init).joined(separator: ", ")) of \(reference.count)")
            }
            for (k, list) in byIndex.sorted(by: { $0.key < $1.key }) where list.count > 1 {
                problems.append(
                    "shard \(k)/\(reference.count) given \(list.count) times: "
                        + list.map(\.folder).joined(separator: ", "))
            }
            let counted = byIndex.values.compactMap(\.first).reduce(0) { $0 + $1.shard.sources }
            if problems.isEmpty && counted != reference.sourceList.files {
                problems.append(
                    "the shards hold \(counted) sources between them, but their list has \(reference.sourceList.files)")
            }
        }
        if read.isEmpty && problems.isEmpty { problems.append("no shard reports given") }
        guard problems.isEmpty else { throw Refusal(problems: problems) }
        members = byIndex.keys.sorted().map { byIndex[$0]![0] }
    }
}
