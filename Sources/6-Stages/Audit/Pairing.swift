import FileKinds
import Foundation

/// One unit of audit work: an output with or without its source, or a source whose output is missing.
public struct AuditJob: Hashable, Sendable {
    /// The stable case name: the output's path relative to its root (the source's when the output is missing).
    public var name: String
    public var source: URL?
    public var output: URL?
    /// How the source and output are shown in reports (relative to the roots given, so reports are stable).
    public var sourceDisplay: String?
    public var outputDisplay: String?

    public init(name: String, source: URL?, output: URL?, sourceDisplay: String? = nil, outputDisplay: String? = nil) {
        self.name = name
        self.source = source
        self.output = output
        self.sourceDisplay = sourceDisplay ?? source?.path
        self.outputDisplay = outputDisplay ?? output?.path
    }
}

/// The result of pairing: the jobs, and the outputs that had no source.
public struct Pairing: Sendable, Equatable {
    public var jobs: [AuditJob]
    public var unmatchedOutputs: [String]
    /// The whole list `--shard` splits, before sharding: every file under `--sources` (relative paths), every output
    /// under `--outputs` alone, or the SOURCE column of a pairs file (as written). Empty for a single pair.
    public var shardKeys: [String]

    public init(jobs: [AuditJob], unmatchedOutputs: [String], shardKeys: [String] = []) {
        self.jobs = jobs
        self.unmatchedOutputs = unmatchedOutputs
        self.shardKeys = shardKeys
    }

    /// File extensions (lower case) the auditor reads as outputs.
    public static let outputExtensions = FileKinds.folderOutputs

    /// The output formats `--formats` names and the extensions each stands for.
    public static let formatExtensions = FileKinds.outputFormats

    /// The extensions of a `--formats` list ("heic,avif,jpeg").
    /// - Throws: ``Failure`` naming an unknown format.
    public static func extensions(formats list: String) throws(Failure) -> Set<String> {
        var out = Set<String>()
        for f in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            guard let e = formatExtensions[f] else {
                throw Failure(message: "unknown output format '\(f)' (known: avif, heic, heif, jpeg, jpg)")
            }
            out.formUnion(e)
        }
        guard !out.isEmpty else { throw Failure(message: "--formats names no format") }
        return out
    }

    /// An error reading a folder or a pairs file: one line naming the file and the reason.
    public struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// Pairs every output under `outputs` with the source under `sources` at the same relative folder and the same
    /// stem; extensions compare case-insensitively and are otherwise ignored.
    ///
    /// A source without an output becomes a job with `output == nil` (reported as `output.missing`); an output
    /// without a source is listed in `unmatchedOutputs`. When several sources share a stem (IMG_1.CR2, IMG_1.JPG) the
    /// first in byte order of the extension is used.
    /// - Throws: ``Failure`` when a folder cannot be read.
    public static func directories(
        sources: URL, outputs: URL, extensions: Set<String> = outputExtensions
    ) throws(Failure) -> Pairing {
        // An output folder inside the source folder (`convert . --out out`) holds outputs, not sources.
        let (sp, op) = (sources.standardizedFileURL.path, outputs.standardizedFileURL.path)
        let nested = op.hasPrefix(sp.hasSuffix("/") ? sp : sp + "/") ? String(op.dropFirst(sp.count)) : nil
        let inside = nested.map { ($0.hasPrefix("/") ? String($0.dropFirst()) : $0) + "/" }
        let src = try listFiles(sources).filter { s in inside.map { !s.hasPrefix($0) } ?? true }
        let out = try listFiles(outputs).filter { extensions.contains(ext($0).lowercased()) }
        var byKey: [String: String] = [:]
        for s in src.sorted() {
            let k = key(s)
            if byKey[k] == nil { byKey[k] = s }
        }
        var jobs: [AuditJob] = []
        var matchedSources = Set<String>()
        var unmatched: [String] = []
        for o in out.sorted() {
            if let s = byKey[key(o)] {
                matchedSources.insert(s)
                jobs.append(
                    AuditJob(
                        name: o, source: sources.appendingPathComponent(s), output: outputs.appendingPathComponent(o),
                        sourceDisplay: s, outputDisplay: o))
            } else {
                unmatched.append(o)
            }
        }
        for s in Set(byKey.values).subtracting(matchedSources).sorted() {
            jobs.append(AuditJob(name: s, source: sources.appendingPathComponent(s), output: nil, sourceDisplay: s))
        }
        jobs.sort { $0.name < $1.name }
        return Pairing(jobs: jobs, unmatchedOutputs: unmatched, shardKeys: src)
    }

    /// Every output under `outputs`, audited without a source.
    /// - Throws: ``Failure`` when the folder cannot be read.
    public static func outputsOnly(_ outputs: URL, extensions: Set<String> = outputExtensions) throws(Failure)
        -> Pairing
    {
        let out = try listFiles(outputs).filter { extensions.contains(ext($0).lowercased()) }.sorted()
        return Pairing(
            jobs: out.map {
                AuditJob(name: $0, source: nil, output: outputs.appendingPathComponent($0), outputDisplay: $0)
            },
            unmatchedOutputs: [], shardKeys: out)
    }

    /// Parses a pairs file: one `SOURCE<TAB>OUTPUT` per line; `#` comments and blank lines ignored; relative paths
    /// are relative to the pairs file's folder. An output that does not exist is kept (reported `output.missing`).
    /// - Parameters:
    ///   - text: the file's text.
    ///   - base: the folder relative paths are resolved against.
    ///   - name: the file name for error messages.
    /// - Throws: ``Failure`` naming the line of a malformed entry.
    public static func pairsFile(_ text: String, base: URL, name: String) throws(Failure) -> Pairing {
        var jobs: [AuditJob] = []
        var seen = Set<String>()
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count == 2, !cols[0].isEmpty, !cols[1].isEmpty else {
                throw Failure(message: "\(name):\(n + 1): expected SOURCE<TAB>OUTPUT, got '\(line)'")
            }
            func resolve(_ p: String) -> URL {
                p.hasPrefix("/") ? URL(fileURLWithPath: p) : base.appendingPathComponent(p)
            }
            var caseName = cols[1]
            if seen.contains(caseName) { caseName += " (line \(n + 1))" }
            seen.insert(caseName)
            let exists = FileManager.default.fileExists(atPath: resolve(cols[1]).path)
            jobs.append(
                AuditJob(
                    name: caseName, source: resolve(cols[0]), output: exists ? resolve(cols[1]) : nil,
                    sourceDisplay: cols[0], outputDisplay: exists ? cols[1] : nil))
        }
        return Pairing(jobs: jobs, unmatchedOutputs: [], shardKeys: jobs.compactMap(\.sourceDisplay))
    }

    /// The pairing key: relative folder + stem, extension dropped.
    static func key(_ rel: String) -> String {
        let e = ext(rel)
        return e.isEmpty ? rel : String(rel.dropLast(e.count + 1))
    }

    public static func ext(_ rel: String) -> String {
        let last = rel.split(separator: "/").last.map(String.init) ?? rel
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// Regular, non-hidden files under `root`, as paths relative to it, sorted. A symlink to a regular file is listed
    /// under the link's own path (the audit only reads, so a folder of links into an archive audits what they point
    /// to); links to folders are not followed (no loops), and links to nothing are left out.
    static func listFiles(_ root: URL) throws(Failure) -> [String] {
        try scan(root).files
    }

    /// What a folder holds for the audit: the files `listFiles` lists, and what it left out (non-hidden entries that
    /// are neither regular files nor links to one: links to folders, broken links, devices, sockets, pipes).
    public struct Scan: Sendable, Equatable {
        public var files: [String]
        public var skipped: [String]
    }

    /// Scans `root` (see `listFiles`).
    /// - Throws: ``Failure`` when `root` is not a folder or cannot be listed.
    public static func scan(_ root: URL) throws(Failure) -> Scan {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir), isDir.boolValue else {
            throw Failure(message: "\(root.path): not a folder")
        }
        let keys: [URLResourceKey] = [.isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey]
        guard
            let e = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        else { throw Failure(message: "\(root.path): cannot list the folder") }
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        var out = Scan(files: [], skipped: [])
        while let u = e.nextObject() as? URL {
            // The entry's folder resolved (the enumerator only descends into real folders under the root), the
            // entry's own name kept: a link is listed where it is, not where it points.
            let parent = u.deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
            let p = parent + "/" + u.lastPathComponent
            guard p.hasPrefix(rootPath + "/") else { continue }
            let rel = String(p.dropFirst(rootPath.count + 1))
            guard let v = try? u.resourceValues(forKeys: Set(keys)) else { continue }
            if v.isRegularFile == true {
                out.files.append(rel)
            } else if v.isSymbolicLink == true {
                var st = stat()
                if stat(u.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                    out.files.append(rel)
                } else {
                    out.skipped.append(rel)
                }
            } else if v.isDirectory != true {
                out.skipped.append(rel)
            }
        }
        out.files.sort()
        out.skipped.sort()
        return out
    }
}
