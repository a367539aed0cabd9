import Findings
import Foundation
import ReportModel
import Sharding

/// `readback merge`: joins the shard reports of a ``ShardSet`` into one report.json, report.html and junit.xml,
/// streaming. Each shard report is read one file entry at a time (``ReportStream``), the entries of all shards are
/// merged in name order (each shard's report is sorted, so the result is the unsharded run's order), and every
/// entry goes straight to scratch files beside the outputs; only the counts, the unmatched outputs and the baseline
/// comparison stay in memory. The three files are assembled at the end, when the counts are known.
public enum ShardMerge {
    /// What the merge applies to the merged result.
    public struct Options: Sendable {
        /// The gate: every file's verdict is recomputed against it.
        public var failOn: Severity
        /// An earlier report.json and the path as given: regressions against it gate the merge.
        public var baseline: (url: URL, path: String)?

        public init(failOn: Severity = .error, baseline: (url: URL, path: String)? = nil) {
            self.failOn = failOn
            self.baseline = baseline
        }
    }

    /// Merges `set` into `folder` (created if needed).
    /// - Parameters:
    ///   - set: the checked shard reports.
    ///   - folder: where report.json, report.html, junit.xml and thumbs/ go; must not be one of the shard folders.
    ///   - options: the gate and the baseline.
    ///   - onFile: called with each merged file (its verdict set), in order.
    /// - Returns: the merged report without its files (its summary, run and baseline as written).
    /// - Throws: ``ShardSet/Refusal`` when an entry is in the wrong shard or in two shards (nothing is written),
    ///   ``ReportStream/Failure`` for a report that cannot be read, or the file system's error.
    public static func merge(
        _ set: ShardSet, into folder: URL, options: Options, onFile: (FileResult) -> Void = { _ in }
    ) throws -> AuditReport {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The thumbnails gather in a scratch folder that replaces thumbs/ only once the reports are written.
        let scratchThumbs = folder.appendingPathComponent(".merge-thumbs", isDirectory: true)
        try? FileManager.default.removeItem(at: scratchThumbs)
        let writer = try MergedReportWriter(folder: folder, gate: options.failOn)
        do {
            let baseline = try options.baseline.map {
                try BaselineLookup(url: $0.url, streamable: set.members[0].header.run.mode != .pairsFile)
            }
            var regressions: [BaselineComparison.Change] = []
            var improvements: [BaselineComparison.Change] = []
            try mergeEntries(set) { f, origin in
                var f = f
                f.verdict = f.verdict(failOn: options.failOn)
                if let baseline {
                    let (r, i) = Baseline.changes(before: try baseline.entry(named: f.name), now: f)
                    regressions += r
                    improvements += i
                }
                let links = copyThumbnails(origin, to: scratchThumbs, index: writer.count)
                try writer.append(f, thumbnails: links)
                onFile(f)
            }
            var header = mergedHeader(set, failOn: options.failOn)
            if let b = options.baseline {
                header.baseline = BaselineComparison(path: b.path, regressions: regressions, improvements: improvements)
            }
            header.summary = writer.summary
            header.summary.unmatchedOutputs = header.unmatchedOutputs.count
            try writer.finish(header: header)
            try replaceThumbnails(in: folder, with: scratchThumbs)
            return header
        } catch {
            writer.discard()
            try? FileManager.default.removeItem(at: scratchThumbs)
            throw error
        }
    }

    /// Where a merged entry came from: its shard's folder and its index in that shard's report (its thumbnails).
    struct Origin {
        let folder: String
        let index: Int
    }

    /// Calls `body` with every entry of every shard, in name order, after checking that the entry belongs to the
    /// shard that reported it and that no name comes twice.
    static func mergeEntries(_ set: ShardSet, _ body: (FileResult, Origin) throws -> Void) throws {
        let streams = try set.members.map { try ReportStream(path: $0.reportURL.path) }
        var heap = NameHeap()
        for (k, s) in streams.enumerated() {
            if let f = try s.nextFile() { heap.push(.init(file: f, shard: k, index: s.fileIndex - 1)) }
        }
        var previous: (name: String, shard: Int)?
        while let head = heap.pop() {
            let member = set.members[head.shard]
            let f = head.file
            let key = f.source ?? f.output ?? f.name
            let owner = Shard.index(of: key, count: set.count)
            guard owner == head.shard else {
                throw ShardSet.Refusal(problems: [
                    "\(member.folder): \(f.name) belongs to shard \(owner)/\(set.count), not \(head.shard)/\(set.count)"
                ])
            }
            if let p = previous, p.name.utf8.elementsEqual(f.name.utf8) {
                throw ShardSet.Refusal(problems: [
                    "\(f.name) appears twice: in \(set.members[p.shard].folder) and \(member.folder)"
                ])
            }
            previous = (f.name, head.shard)
            try body(f, Origin(folder: member.folder, index: head.index))
            if let next = try streams[head.shard].nextFile() {
                heap.push(.init(file: next, shard: head.shard, index: streams[head.shard].fileIndex - 1))
            }
        }
    }

    /// The merged run: the shards' mode, decoding, policy, roots and versions (shard 0's), the earliest start, the
    /// shards' durations and jobs added up, the gate given to the merge, the source list, and N.
    static func mergedHeader(_ set: ShardSet, failOn: Severity) -> AuditReport {
        let first = set.members[0].header
        let runs = set.members.map(\.header.run)
        let duration = runs.reduce(0) { $0 + $1.durationSeconds }
        let run = RunParameters(
            mode: first.run.mode, startedAt: runs.map(\.startedAt).min() ?? first.run.startedAt,
            durationSeconds: (duration * 1000).rounded() / 1000, failOn: failOn, decode: first.run.decode,
            jobs: runs.reduce(0) { $0 + $1.jobs }, policy: first.run.policy, roots: first.run.roots,
            sourceList: set.sourceList, mergedShards: set.count)
        return AuditReport(
            tool: first.tool, libraries: first.libraries, run: run, files: [],
            unmatchedOutputs: set.members.flatMap(\.header.unmatchedOutputs))
    }

    /// Links (or copies) an entry's thumbnails from its shard's `thumbs/` into `scratch` under its merged index;
    /// returns the links report.html uses once `scratch` has become `thumbs/`.
    static func copyThumbnails(_ origin: Origin, to scratch: URL, index: Int) -> ThumbnailLinks {
        var links = ThumbnailLinks()
        for image in ThumbnailFolder.Image.allCases {
            let from = URL(fileURLWithPath: origin.folder)
                .appendingPathComponent(ThumbnailFolder.relativePath(index: origin.index, image)).path
            guard FileManager.default.fileExists(atPath: from) else { continue }
            let rel = ThumbnailFolder.relativePath(index: index, image)
            let to = scratch.appendingPathComponent((rel as NSString).lastPathComponent).path
            try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            if link(from, to) != 0 {
                guard (try? FileManager.default.copyItem(atPath: from, toPath: to)) != nil else { continue }
            }
            switch image {
            case .primary: links.primary = rel
            case .gainMap: links.gainMap = rel
            case .reference: links.reference = rel
            }
        }
        return links
    }

    /// Removes an earlier run's thumbnails from `folder/thumbs` and moves the merge's in.
    static func replaceThumbnails(in folder: URL, with scratch: URL) throws {
        let thumbs = ThumbnailFolder(reportDirectory: folder)
        try thumbs.clear()
        let fm = FileManager.default
        guard fm.fileExists(atPath: scratch.path) else { return }
        if !fm.fileExists(atPath: thumbs.url.path) {
            try fm.moveItem(at: scratch, to: thumbs.url)
            return
        }
        for name in try fm.contentsOfDirectory(atPath: scratch.path) {
            try fm.moveItem(at: scratch.appendingPathComponent(name), to: thumbs.url.appendingPathComponent(name))
        }
        try fm.removeItem(at: scratch)
    }
}

/// A min-heap of the shards' current entries by name (Swift's `<`, the order the audit sorts its jobs in), ties
/// by shard.
struct NameHeap {
    struct Entry {
        let file: FileResult
        let shard: Int
        let index: Int
    }

    private var items: [Entry] = []

    private static func less(_ a: Entry, _ b: Entry) -> Bool {
        a.file.name != b.file.name ? a.file.name < b.file.name : a.shard < b.shard
    }

    mutating func push(_ e: Entry) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var m = i
            if l < items.count && Self.less(items[l], items[m]) { m = l }
            if r < items.count && Self.less(items[r], items[m]) { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}

/// The baseline's entry for each merged file. A baseline sorted by name (every directories or outputs-only report,
/// and every merged one) is read alongside the merge, one entry at a time; any other is read into a table first.
final class BaselineLookup {
    private var stream: ReportStream?
    private var pending: FileResult?
    private var lastAsked: String?
    private var table: [String: FileResult] = [:]

    /// - Parameters:
    ///   - url: the baseline report.json.
    ///   - streamable: whether the merged files come in name order (not for pairs-file runs).
    init(url: URL, streamable: Bool) throws {
        let scan = try ReportStream(path: url.path)
        var sorted = streamable
        var previous: String?
        while sorted, let f = try scan.nextFile() {
            if let p = previous, !(p < f.name) { sorted = false }
            previous = f.name
        }
        _ = try scan.header()  // an unreadable report or an unsupported schemaVersion is refused here
        let again = try ReportStream(path: url.path)
        if sorted {
            stream = again
            pending = try again.nextFile()
        } else {
            while let f = try again.nextFile() {
                if table[f.name] == nil { table[f.name] = f }
            }
        }
    }

    /// The baseline's entry named `name`; in streaming mode names must be asked in increasing order.
    func entry(named name: String) throws -> FileResult? {
        guard let stream else { return table[name] }
        if let last = lastAsked, !(last < name) {
            throw ShardSet.Refusal(problems: ["the merged files are not in name order (\(last), then \(name))"])
        }
        lastAsked = name
        while let p = pending, p.name < name { pending = try stream.nextFile() }
        guard let p = pending, p.name == name else { return nil }
        return p
    }
}
