import Foundation

/// Reads a `report.json` one file entry at a time, so a report of any size can be read in bounded memory
/// (`readback merge` reads a hundred shard reports at once this way).
///
/// The reader scans the top-level object byte by byte: every member but `files` is kept as raw JSON (they are small:
/// the run, the summary, the library versions); the elements of `files` are decoded one at a time on request, or
/// skipped without decoding. ``header()`` decodes the kept members into an ``AuditReport`` whose `files` is empty.
public final class ReportStream {
    /// A report that cannot be read: the file, the byte offset where reading stopped, and why.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// Where the scan is.
    private enum Position { case beforeFiles, inFiles, afterFiles, end }

    public let path: String
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var pos = 0
    private var end = 0
    /// Bytes of the file before `buffer[0]`.
    private var consumed = 0
    private var position = Position.beforeFiles
    /// The top-level members other than `files`: the key's raw JSON string, then the value's raw JSON.
    private var members: [(key: [UInt8], value: [UInt8])] = []
    private var firstElement = true
    private var started = false
    private let decoder = JSONDecoder()
    /// How many `files` entries were read or skipped so far: the index of the next one.
    public private(set) var fileIndex = 0

    /// Opens `path` for reading.
    /// - Throws: ``Failure`` when the file cannot be opened.
    public init(path: String) throws(Failure) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(message: "\(path): cannot open (\(String(cString: strerror(errno))))") }
    }

    deinit { close(fd) }

    /// The next file entry, decoded; nil after the last one.
    /// - Throws: ``Failure`` for malformed JSON or an entry that is not a `FileResult`.
    public func nextFile() throws(Failure) -> FileResult? {
        guard let raw = try nextElement(keep: true) else { return nil }
        do {
            return try decoder.decode(FileResult.self, from: Data(raw))
        } catch {
            throw failure("files[\(fileIndex - 1)] is not a file result (\(error))")
        }
    }

    /// Skips the next file entry without decoding it; false after the last one.
    public func skipFile() throws(Failure) -> Bool { try nextElement(keep: false) != nil }

    /// Reads to the end of the report (skipping the entries not yet read, undecoded) and decodes everything but
    /// `files`: the result's `files` is empty and its `summary` is the one stored.
    /// - Throws: ``Failure`` for malformed JSON, or an unsupported `schemaVersion` (``AuditReport/decode(_:)``).
    public func header() throws(Failure) -> AuditReport {
        while try skipFile() {}
        try scanMembers()
        var object: [UInt8] = Array("{\"files\":[]".utf8)
        for m in members {
            object += Array(",".utf8) + m.key + Array(":".utf8) + m.value
        }
        object.append(UInt8(ascii: "}"))
        do {
            return try AuditReport.decode(Data(object))
        } catch {
            throw Failure(message: "\(path): \(error)")
        }
    }

    // MARK: - Scanning

    private func failure(_ why: String) -> Failure {
        Failure(message: "\(path): \(why) (at byte \(consumed + pos))")
    }

    /// Refills the buffer; false at the end of the file.
    private func fill() throws(Failure) -> Bool {
        consumed += end
        pos = 0
        end = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure("read failed (\(String(cString: strerror(errno))))") }
            end = n
            return n > 0
        }
    }

    /// The byte at the cursor after any whitespace, not consumed; nil at the end of the file.
    private func peekSignificant() throws(Failure) -> UInt8? {
        while true {
            if pos == end, try !fill() { return nil }
            let c = buffer[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                pos += 1
            } else {
                return c
            }
        }
    }

    private func expect(_ byte: UInt8) throws(Failure) {
        guard try peekSignificant() == byte else {
            throw failure("expected '\(Character(UnicodeScalar(byte)))'")
        }
        pos += 1
    }

    /// Reads the top-level members up to `files` (keeping the others), or, after `files`, to the end.
    private func scanMembers() throws(Failure) {
        if position == .end { return }
        if !started {
            try expect(UInt8(ascii: "{"))
            started = true
        }
        while true {
            guard let c = try peekSignificant() else { throw failure("the report ends early") }
            if c == UInt8(ascii: "}") {
                pos += 1
                position = .end
                return
            }
            if c == UInt8(ascii: ",") { pos += 1 }
            guard try peekSignificant() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try captureValue(keep: true)
            try expect(UInt8(ascii: ":"))
            if key == Array("\"files\"".utf8) {
                guard position == .beforeFiles else { throw failure("\"files\" appears twice") }
                try expect(UInt8(ascii: "["))
                position = .inFiles
                return
            }
            members.append((key, try captureValue(keep: true)))
        }
    }

    /// The raw JSON of the next element of `files` (empty when not kept), or nil after the last one.
    private func nextElement(keep: Bool) throws(Failure) -> [UInt8]? {
        if position == .beforeFiles {
            try scanMembers()
            if position == .end { throw failure("the report has no \"files\"") }
        }
        guard position == .inFiles else { return nil }
        guard let c = try peekSignificant() else { throw failure("the report ends inside \"files\"") }
        if c == UInt8(ascii: "]") {
            pos += 1
            position = .afterFiles
            return nil
        }
        if !firstElement {
            guard c == UInt8(ascii: ",") else { throw failure("expected ',' between file entries") }
            pos += 1
        }
        firstElement = false
        guard try peekSignificant() == UInt8(ascii: "{") else { throw failure("a file entry is not an object") }
        let raw = try captureValue(keep: keep)
        fileIndex += 1
        return raw
    }

    /// Consumes one JSON value at the cursor (after whitespace) and returns its bytes when `keep` (else empty). Only
    /// the nesting and the strings are tracked; JSONDecoder checks the rest when the bytes are decoded.
    private func captureValue(keep: Bool) throws(Failure) -> [UInt8] {
        guard let first = try peekSignificant() else { throw failure("the report ends early") }
        let scalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        var out: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        var done = false
        while !done {
            if pos == end, try !fill() { throw failure("the report ends inside a value") }
            var i = pos
            buffer.withUnsafeBufferPointer { b in
                while i < end && !done {
                    let c = b[i]
                    if scalar {
                        if c == 0x2C || c == 0x7D || c == 0x5D || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                            done = true
                            break
                        }
                    } else if inString {
                        if escaped {
                            escaped = false
                        } else if c == 0x5C {
                            escaped = true
                        } else if c == 0x22 {
                            inString = false
                            if depth == 0 { done = true }
                        }
                    } else if c == 0x22 {
                        inString = true
                    } else if c == 0x7B || c == 0x5B {
                        depth += 1
                    } else if c == 0x7D || c == 0x5D {
                        depth -= 1
                        if depth == 0 { done = true }
                    }
                    i += 1
                }
            }
            if keep { out.append(contentsOf: buffer[pos..<i]) }
            pos = i
        }
        return out
    }
}
