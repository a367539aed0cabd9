import Findings
import Foundation

/// The one versioned model every audit report is rendered from (JSON, HTML, JUnit).
///
/// Readers check `schemaVersion` first (``AuditReport/decode(_:)`` does) and refuse versions they do not know.
/// The model is pure data: the clock and the paths are injected by whoever builds it, so renderings are stable.
/// The schema is documented in docs/report-schema.md.
public struct AuditReport: Codable, Hashable, Sendable {
    /// The version of this schema. Bump it on any change a reader could notice. Version 2 dropped
    /// `files[].thumbnails` (thumbnails are files beside report.html now); version 3 added `files[].fileFacts`
    /// (times, mode, owner, xattrs and sidecar of a pair); version 4 renamed the container codes to the catalogue's
    /// one spelling (`container.iloc.unknownItem` became `container.iloc.unknown-item`; `FindingCode.aliases`).
    public static let currentSchemaVersion = 4
    /// The versions ``AuditReport/decode(_:)`` reads: a version-1 report (an earlier `--baseline`) reads as
    /// the current version, its thumbnails ignored; a version-2 report has no `fileFacts`; a report before version 4
    /// has its old code names read as the current ones.
    public static let readableSchemaVersions = 1...currentSchemaVersion

    public var schemaVersion: Int
    /// Readback's name and version.
    public var tool: ToolInfo
    /// Library versions read at run time, sorted by name.
    public var libraries: [LibraryVersion]
    /// What was asked for.
    public var run: RunParameters
    /// Counts over `files`; always recomputed by ``AuditReport/recomputeSummary()``.
    public var summary: Summary
    /// One result per audited file (or per source without an output), in pairing order.
    public var files: [FileResult]
    /// Outputs found in `--outputs` that had no source (only in directory mode), relative paths, sorted.
    public var unmatchedOutputs: [String]
    /// Set when a `--baseline` was given.
    public var baseline: BaselineComparison?

    public init(
        tool: ToolInfo, libraries: [LibraryVersion], run: RunParameters, files: [FileResult],
        unmatchedOutputs: [String] = [], baseline: BaselineComparison? = nil
    ) {
        self.schemaVersion = Self.currentSchemaVersion
        self.tool = tool
        self.libraries = libraries.sorted { $0.name < $1.name }
        self.run = run
        self.files = files
        self.unmatchedOutputs = unmatchedOutputs.sorted()
        self.baseline = baseline
        self.summary = Summary()
        recomputeSummary()
    }

    /// Recomputes every file's verdict against `run.failOn` and the summary counts.
    public mutating func recomputeSummary() {
        for i in files.indices { files[i].verdict = files[i].verdict(failOn: run.failOn) }
        summary = Summary(files: files, unmatchedOutputs: unmatchedOutputs.count)
    }

    /// True when the run fails its gate: a finding at or above `run.failOn`, or, with a baseline, a regression.
    public var gateFails: Bool {
        if let baseline { return !baseline.regressions.isEmpty }
        return summary.failed > 0
    }
}

/// Readback's identity.
public struct ToolInfo: Codable, Hashable, Sendable {
    public var name: String
    public var version: String
    public init(name: String = "readback", version: String) {
        self.name = name
        self.version = version
    }
}

/// One library and the version it reported at run time.
public struct LibraryVersion: Codable, Hashable, Sendable {
    public var name: String
    public var version: String
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// How an audit found the files it judged; JSON holds the string.
public enum AuditMode: String, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// One source and its output.
    case pair
    /// A folder of sources and a folder of outputs, paired by name.
    case directories
    /// A list of source and output paths.
    case pairsFile = "pairs-file"
    /// A folder of outputs alone, with no source to compare with.
    case outputsOnly = "outputs-only"
    /// One output alone (`readback audit OUT`).
    case output

    /// The mode's string, as reports write it.
    public var description: String { rawValue }
}

/// How the audit was run.
public struct RunParameters: Codable, Hashable, Sendable {
    /// `pair`, `directories`, `pairs-file`, `outputs-only` or `output`.
    public var mode: AuditMode
    /// When the run started, ISO 8601 UTC (from the injected clock).
    public var startedAt: String
    /// Seconds the run took (0 in goldens).
    public var durationSeconds: Double
    /// The severity at or above which a finding fails a file.
    public var failOn: Severity
    /// False with `--no-decode`.
    public var decode: Bool
    public var jobs: Int
    /// The policy file given, or `built-in`.
    public var policy: String
    /// The roots given on the command line (`sources`, `outputs`, `pairs`), as given.
    public var roots: [String: String]
    /// Present when the run audited one shard (`--shard K/N`); absent otherwise (docs/distributed.md).
    public var shard: ShardRecord?
    /// The list the shards split, fingerprinted before sharding: present on every shard report and on a merged one.
    public var sourceList: SourceListRecord?
    /// Present on a report made by `readback merge`: how many shard reports it joined.
    public var mergedShards: Int?

    public init(
        mode: AuditMode, startedAt: String, durationSeconds: Double = 0, failOn: Severity = .error, decode: Bool = true,
        jobs: Int = 1, policy: String = "built-in", roots: [String: String] = [:], shard: ShardRecord? = nil,
        sourceList: SourceListRecord? = nil, mergedShards: Int? = nil
    ) {
        self.mode = mode
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.failOn = failOn
        self.decode = decode
        self.jobs = jobs
        self.policy = policy
        self.roots = roots
        (self.shard, self.sourceList, self.mergedShards) = (shard, sourceList, mergedShards)
    }
}

/// `run.shard`: which shard of a sharded run a report covers.
public struct ShardRecord: Codable, Hashable, Sendable {
    /// K, from 0.
    public var index: Int
    /// N.
    public var count: Int
    /// How many entries of the source list belong to this shard; the shards' counts add up to `sourceList.files`.
    public var sources: Int

    public init(index: Int, count: Int, sources: Int) {
        (self.index, self.count, self.sources) = (index, count, sources)
    }
}

/// `run.sourceList`: the fingerprint of the whole list a sharded run splits (the files under `--sources`, or the
/// outputs under `--outputs` alone), the same on every shard of one run.
public struct SourceListRecord: Codable, Hashable, Sendable {
    /// How many paths the list holds.
    public var files: Int
    /// SHA-256 of the relative paths sorted by their UTF-8 bytes, each followed by a line feed.
    public var sha256: String

    public init(files: Int, sha256: String) { (self.files, self.sha256) = (files, sha256) }
}

/// How one metadata field fared between source and output: the metadata diff's own class (``FieldClass``, in
/// Findings), of which a row holds the coarser ``FieldClass/reportStatus`` (kept, changed, lost, added, expected
/// change, known loss) and writes its report string (``FieldClass/reportName``: `expected` for an expected change).
public typealias DiffStatus = FieldClass

/// One row of the metadata diff.
public struct DiffRow: Codable, Hashable, Sendable {
    /// `Group:Tag`, e.g. `GPS:GPSLatitude`.
    public var field: String
    /// The field's class as the report shows it (``FieldClass/reportStatus``).
    public var status: DiffStatus
    public var source: String?
    public var output: String?
    public var note: String?

    public init(field: String, status: DiffStatus, source: String?, output: String?, note: String? = nil) {
        self.field = field
        self.status = status.reportStatus
        self.source = source
        self.output = output
        self.note = note
    }

    enum CodingKeys: String, CodingKey { case field, status, source, output, note }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .status)
        guard let status = FieldClass(reportName: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: c, debugDescription: "unknown metadata status '\(name)'")
        }
        self.init(
            field: try c.decode(String.self, forKey: .field), status: status,
            source: try c.decodeIfPresent(String.self, forKey: .source),
            output: try c.decodeIfPresent(String.self, forKey: .output),
            note: try c.decodeIfPresent(String.self, forKey: .note))
    }

    /// Writes the row with the report's string for its class (``FieldClass/reportName``).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(field, forKey: .field)
        try c.encode(status.reportName, forKey: .status)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(output, forKey: .output)
        try c.encodeIfPresent(note, forKey: .note)
    }
}

/// The state of one part of a gain map.
public enum PartStatus: String, Codable, Hashable, Sendable {
    case pass, fail, absent
}

/// The four parts of one gain map (ISO 21496-1 `tmap` or Apple's auxiliary `hdrgainmap`).
public struct GainMapResult: Codable, Hashable, Sendable {
    /// `iso` (a `tmap` derived item) or `apple` (an `auxl` item with the Apple URN).
    public var kind: String
    /// The tmap item, or the Apple aux item.
    public var item: UInt32?
    /// The description: the item graph that says "this is a gain map of that primary".
    public var description: PartStatus
    /// The gain-map metadata: the tmap payload, or the Apple XMP (HDRGainMap namespace).
    public var metadata: PartStatus
    /// The gain-map pixels: the item's data reachable through `iloc` (and decodable when decoding).
    public var data: PartStatus
    /// The colour space of the alternate rendition (tmap `colr`), or of the Apple map.
    public var colourSpace: PartStatus

    public init(
        kind: String, item: UInt32?, description: PartStatus, metadata: PartStatus, data: PartStatus,
        colourSpace: PartStatus
    ) {
        self.kind = kind
        self.item = item
        self.description = description
        self.metadata = metadata
        self.data = data
        self.colourSpace = colourSpace
    }

    /// True when all four parts pass (an absent colour space counts for Apple maps, which carry none).
    public var isComplete: Bool {
        description == .pass && metadata == .pass && data == .pass && colourSpace != .fail
    }
}

/// The outcome of decoding one image of the output.
public struct DecodeResult: Codable, Hashable, Sendable {
    /// Which image was decoded; JSON holds the string.
    public enum Target: String, Codable, Hashable, Sendable, CaseIterable {
        case primary
        case gainmap
    }

    /// How decoding went; JSON holds the string.
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        case ok
        case failed
        /// Not tried: the image uses what the decoder cannot handle (the message names it).
        case skipped
    }

    /// `primary` or `gainmap`.
    public var target: Target
    /// `ok`, `failed` or `skipped`.
    public var status: Status
    public var width: Int?
    public var height: Int?
    public var bitDepth: Int?
    /// The decoder's message on failure.
    public var message: String?
    /// The library whose pixels these are, with its version ("libheif 1.15.1", "libavif 0.11.1"): an AVIF's primary
    /// is decoded by libavif (dav1d), by libheif when libavif cannot; absent in reports written before it was added.
    public var decoder: String?

    public init(
        target: Target, status: Status, width: Int? = nil, height: Int? = nil, bitDepth: Int? = nil,
        message: String? = nil, decoder: String? = nil
    ) {
        self.target = target
        self.status = status
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.message = message
        self.decoder = decoder
    }
}

/// The pass/fail of one file against the gate.
public enum Verdict: String, Codable, Hashable, Sendable {
    case pass, fail
}

/// Everything the auditor found about one file (or one source without an output).
public struct FileResult: Codable, Hashable, Sendable {
    /// Stable name of the case: the output's path relative to its root, or the source's when the output is missing.
    public var name: String
    public var source: String?
    public var output: String?
    public var sourceBytes: UInt64?
    public var outputBytes: UInt64?
    /// outputBytes ÷ sourceBytes, rounded to 4 decimals.
    public var sizeRatio: Double?
    /// The output's sha256 (hex), the key the real-world expectations use.
    public var sha256: String?
    /// `pass` or `fail` against the run's gate.
    public var verdict: Verdict
    /// The most severe finding's severity, or nil when there are none.
    public var worstSeverity: Severity?
    /// Sorted by ``Finding/reportOrder(_:_:)``.
    public var findings: [Finding]
    /// Sorted by field.
    public var metadata: [DiffRow]
    /// Sorted by kind.
    public var gainMaps: [GainMapResult]
    public var decode: [DecodeResult]
    /// The pair as library entries (modification time, mode, owner, `user.*` xattrs, the source's sidecar), in a
    /// fixed order; nil when there was no pair of files to compare.
    public var fileFacts: [FileFactRow]?

    public init(
        name: String, source: String? = nil, output: String? = nil, sourceBytes: UInt64? = nil,
        outputBytes: UInt64? = nil, sha256: String? = nil, findings: [Finding] = [], metadata: [DiffRow] = [],
        gainMaps: [GainMapResult] = [], decode: [DecodeResult] = [], fileFacts: [FileFactRow]? = nil
    ) {
        self.name = name
        self.source = source
        self.output = output
        self.sourceBytes = sourceBytes
        self.outputBytes = outputBytes
        if let s = sourceBytes, let o = outputBytes, s > 0 {
            self.sizeRatio = (Double(o) / Double(s) * 10000).rounded() / 10000
        }
        self.sha256 = sha256
        self.findings = findings.sorted(by: Finding.reportOrder)
        self.metadata = metadata.sorted { $0.field < $1.field }
        self.gainMaps = gainMaps.sorted { ($0.kind, $0.item ?? 0) < ($1.kind, $1.item ?? 0) }
        self.decode = decode
        self.fileFacts = fileFacts
        self.worstSeverity = findings.map(\.severity).max()
        self.verdict = .pass
    }

    /// The verdict against a gate.
    public func verdict(failOn: Severity) -> Verdict {
        findings.contains { $0.severity.fails(gate: failOn) } ? .fail : .pass
    }

    /// The findings at or above the gate.
    public func failures(failOn: Severity) -> [Finding] {
        findings.filter { $0.severity.fails(gate: failOn) }
    }
}

/// One file fact of a pair: its value on each side and what happened to it.
public struct FileFactRow: Codable, Hashable, Sendable {
    /// `mtime`, `mode`, `owner`, `xattr NAME` or `sidecar NAME`.
    public var fact: String
    public var source: String?
    public var output: String?
    public var status: FileFactStatus

    public init(fact: String, source: String?, output: String?, status: FileFactStatus) {
        self.fact = fact
        self.source = source
        self.output = output
        self.status = status
    }
}

/// What became of one file fact, as the report spells it.
public enum FileFactStatus: String, Codable, Hashable, Sendable {
    case kept, lost, changed, widened, narrowed
    /// Dropped on purpose, a checksum of the old bytes kept.
    case dropped
    case added
    /// The output's filesystem has no extended attributes.
    case unsupported
    /// A sidecar's develop edits that the conversion did not apply.
    case editsNotApplied = "edits-not-applied"

    /// Whether the fact was lost or altered (marked in the HTML report and by `readback diff`).
    public var isLoss: Bool {
        switch self {
        case .lost, .changed, .widened, .unsupported, .editsNotApplied: true
        case .kept, .narrowed, .dropped, .added: false
        }
    }
}

/// Counts over the files of a report. JUnit's `tests`/`failures` equal `files`/`failed`.
public struct Summary: Codable, Hashable, Sendable {
    public var files: Int
    public var passed: Int
    public var failed: Int
    /// Findings per severity (every severity present, zero included).
    public var findingsBySeverity: [String: Int]
    /// Findings per code.
    public var findingsByCode: [String: Int]
    /// Files with at least one complete gain map.
    public var gainMapsComplete: Int
    public var unmatchedOutputs: Int

    public init() {
        files = 0
        passed = 0
        failed = 0
        findingsBySeverity = Dictionary(uniqueKeysWithValues: Severity.allCases.map { ($0.rawValue, 0) })
        findingsByCode = [:]
        gainMapsComplete = 0
        unmatchedOutputs = 0
    }

    public init(files list: [FileResult], unmatchedOutputs: Int) {
        self.init()
        for f in list { add(f) }
        self.unmatchedOutputs = unmatchedOutputs
    }

    /// Counts one more file (its `verdict` as set), so a summary can be built while files stream past.
    public mutating func add(_ f: FileResult) {
        files += 1
        if f.verdict == .fail { failed += 1 } else { passed += 1 }
        for x in f.findings {
            findingsBySeverity[x.severity.rawValue, default: 0] += 1
            findingsByCode[x.code.rawValue, default: 0] += 1
        }
        if f.gainMaps.contains(where: \.isComplete) { gainMapsComplete += 1 }
    }
}

/// The comparison with a baseline report (`--baseline OLD.json`).
public struct BaselineComparison: Codable, Hashable, Sendable {
    /// The baseline file as given.
    public var path: String
    public var regressions: [Change]
    public var improvements: [Change]

    public init(path: String, regressions: [Change], improvements: [Change]) {
        self.path = path
        self.regressions = regressions.sorted()
        self.improvements = improvements.sorted()
    }

    /// One difference between the baseline and this run, for one file.
    public struct Change: Codable, Hashable, Sendable, Comparable {
        /// The file's `name`.
        public var file: String
        /// `field-lost`, `gainmap-incomplete`, `new-error`, `new-file-failing` (regressions);
        /// `field-restored`, `gainmap-complete`, `error-fixed` (improvements).
        public var kind: String
        /// The field, gain-map kind or finding code concerned.
        public var subject: String

        public init(file: String, kind: String, subject: String) {
            self.file = file
            self.kind = kind
            self.subject = subject
        }

        public static func < (a: Change, b: Change) -> Bool {
            (a.file, a.kind, a.subject) < (b.file, b.kind, b.subject)
        }
    }
}
