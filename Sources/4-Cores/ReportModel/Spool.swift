import Foundation

/// Text appended to a scratch file as it is produced, then copied into a final file between a head and a tail
/// known only at the end: how a report of any size is written in bounded memory (the head holds the counts).
public final class Spool {
    /// The scratch file; removed by ``discard()`` and after ``finish(head:tail:into:)``.
    public let url: URL
    private let handle: FileHandle
    private var pending: [UInt8] = []

    /// Creates (truncating) the scratch file at `url`.
    /// - Throws: the file system's error.
    public init(url: URL) throws {
        self.url = url
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    private var closed = false

    deinit { if !closed { try? handle.close() } }

    /// Appends `text` (buffered; written in 1 MB pieces).
    public func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 20 { try flush() }
    }

    /// Appends UTF-8 bytes (buffered; written in 1 MB pieces).
    public func append(bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try handle.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes `head`, the spooled text and `tail` into `final` (through a temporary file renamed into place, so a
    /// reader never sees a half-written file), then removes the scratch file.
    /// - Throws: the file system's error.
    public func finish(head: String, tail: String, into final: URL, sync: Bool = true) throws {
        try Self.write([.text(head), .spool(self), .text(tail)], into: final, sync: sync)
    }

    /// A piece of a final file: text, or a spool's contents.
    public enum Piece {
        case text(String)
        case spool(Spool)
    }

    /// Writes `pieces` in order into `final` through a temporary file renamed into place; the spools' scratch
    /// files are removed afterwards.
    /// - Parameter sync: flush the file to the disk (fsync) before the rename: a merge's report, which replaces
    ///   the shards' work, survives a power cut; an audit's report, rewritten by the next run, skips the wait.
    /// - Throws: the file system's error.
    public static func write(_ pieces: [Piece], into final: URL, sync: Bool = true) throws {
        let temp = final.deletingLastPathComponent().appendingPathComponent(".\(final.lastPathComponent).part")
        guard FileManager.default.createFile(atPath: temp.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temp.path])
        }
        let out = try FileHandle(forWritingTo: temp)
        do {
            for piece in pieces {
                switch piece {
                case .text(let t): try out.write(contentsOf: Data(t.utf8))
                case .spool(let s): try s.copy(into: out)
                }
            }
            if sync { try out.synchronize() }
            try out.close()
        } catch {
            try? out.close()
            try? FileManager.default.removeItem(at: temp)
            throw error
        }
        if rename(temp.path, final.path) != 0 {
            let e = errno
            try? FileManager.default.removeItem(at: temp)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: final.path, "errno": e])
        }
        for case .spool(let s) in pieces { s.discard() }
    }

    /// Flushes, closes, and copies the spooled text to `out`.
    private func copy(into out: FileHandle) throws {
        try flush()
        try handle.close()
        closed = true
        let input = try FileHandle(forReadingFrom: url)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try out.write(contentsOf: chunk) }
    }

    /// Removes the scratch file (a run that stopped before finishing).
    public func discard() {
        if !closed { try? handle.close() }
        closed = true
        try? FileManager.default.removeItem(at: url)
    }
}

/// Writes a `report.json` whose files stream past one at a time: the text is exactly ``AuditReport/jsonText()`` of
/// the same report, the head (everything that sorts before `files`, `schemaVersion` first) and the tail (the run,
/// the summary, ...) written at the end when the counts are known.
public final class ReportJSONSpool {
    private let spool: Spool
    private let encoder: JSONEncoder
    private var count = 0

    /// - Parameter scratch: the scratch file for the entries.
    public init(scratch: URL) throws {
        spool = try Spool(url: scratch)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    }

    /// Appends one file entry.
    public func append(_ file: FileResult) throws {
        let data = try encoder.encode(file)
        // Each entry sits two levels deep (the report object, the files array): four spaces; blank lines (inside an
        // empty array or object) stay empty, as JSONEncoder writes them. Done on the bytes: splitting a String into
        // lines costs more than encoding it.
        var out: [UInt8] = count == 0 ? [0x0A] : [0x2C, 0x0A]
        out.reserveCapacity(data.count + data.count / 4 + 2)
        var lineStart = true
        for b in data {
            if lineStart && b != 0x0A { out.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
            lineStart = b == 0x0A
            out.append(b)
        }
        try spool.append(bytes: out)
        count += 1
    }

    /// Writes the report: `header`'s text (its `files` ignored) around the entries appended.
    /// - Throws: the file system's error.
    public func finish(header: AuditReport, into final: URL, sync: Bool = true) throws {
        var empty = header
        empty.files = []
        let text = empty.jsonText()
        let marker = "\n  \"files\" : [\n\n  ]"
        guard let range = text.range(of: marker) else {
            throw CocoaError(.coderInvalidValue, userInfo: [NSDebugDescriptionErrorKey: "no files array in the header"])
        }
        let head = String(text[..<range.lowerBound]) + "\n  \"files\" : ["
        let tail = (count == 0 ? "\n" : "") + "\n  ]" + String(text[range.upperBound...])
        try spool.finish(head: head, tail: tail, into: final, sync: sync)
    }

    /// Removes the scratch file.
    public func discard() { spool.discard() }
}
