import Foundation

/// The compact rows of a large report.html as script files beside the page, loaded on demand: the page keeps the
/// summary, every failing file's row, the first failing files' and first passing files' details, and one empty
/// placeholder per chunk of the other passing files' rows. Each chunk is `report-files/chunk-<run>-<n>.js`, calling
/// the page's global `readbackChunk(n, "<tr>…</tr>…")` with its rows' HTML; a `<script src>` works over `file://`,
/// so no server is needed. The page loads a chunk when it scrolls near, and all of them before a sort or a filter.
/// The other failing files' details blocks are chunks too (`details-<run>-<n>.js`, `readbackDetails`), loaded when
/// they scroll near or their row's link is followed.
///
/// `<run>` is drawn anew for each report, so a page only ever names chunk files written for it: they are all
/// written before the page is renamed into place, and an earlier run's chunks are removed only after that.
final class HTMLRowChunks {
    /// The folder beside report.html that holds the chunks.
    static let folderName = "report-files"

    /// What a chunk holds: compact rows of the file table, or failing files' details blocks.
    enum Kind: String {
        case rows = "chunk"
        case details

        /// The page's function each chunk calls.
        var callback: String { self == .rows ? "readbackChunk" : "readbackDetails" }
        /// Entries per chunk: a details block weighs about ten rows.
        var size: Int { self == .rows ? HTMLRenderer.chunkRows : 100 }
    }

    let kind: Kind

    /// `DIR/report-files`.
    let url: URL
    /// This report's part of the chunks' names.
    let run: String
    private var buffer = ""
    private var rows = 0
    private var written: [URL] = []

    /// - Parameters:
    ///   - reportDirectory: the report's folder.
    ///   - run: this report's part of the chunks' names (drawn at random by default).
    ///   - kind: rows or details.
    init(reportDirectory: URL, run: String = randomRun(), kind: Kind = .rows) {
        url = reportDirectory.appendingPathComponent(Self.folderName, isDirectory: true)
        self.run = run
        self.kind = kind
    }

    /// A fresh run name: random hex.
    static func randomRun() -> String { String(UInt32.random(in: .min ... .max), radix: 16) }

    /// How many chunk files were written.
    var count: Int { written.count }

    /// The number of the chunk the next entry goes to (from 1).
    var next: Int { written.count + 1 }

    /// Adds one entry (a compact row or a details block); when that fills a chunk, writes it and returns the page's
    /// placeholder for it.
    func add(_ row: String) throws -> String? {
        buffer += row
        rows += 1
        return rows == kind.size ? try flush() : nil
    }

    /// Writes the last, partial chunk, if any, and returns its placeholder (or nothing).
    func finish() throws -> String { rows > 0 ? try flush() : "" }

    private func flush() throws -> String {
        let n = written.count + 1
        let name = "\(kind.rawValue)-\(run)-\(String(format: "%04d", n)).js"
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("\(kind.callback)(\(n),\"\(Self.jsString(buffer))\");\n".utf8).write(to: file)
        written.append(file)
        let src = "\(Self.folderName)/\(name)"
        let placeholder =
            kind == .rows
            ? Self.placeholder(n, src: src, rows: rows)
            : "<div class=\"dlazy\" data-details=\"\(n)\" data-src=\"\(src)\" style=\"min-height:\(rows * 40)px\"></div>\n"
        buffer = ""
        rows = 0
        return placeholder
    }

    /// An empty chunk in the page, as tall as its rows will be, loaded when it scrolls near (or before a sort or a
    /// filter).
    static func placeholder(_ n: Int, src: String, rows: Int) -> String {
        "<div class=\"chunk lazy\" data-chunk=\"\(n)\" data-src=\"\(src)\" data-rows=\"\(rows)\" "
            + "style=\"min-height:\(rows * 24)px\"><table class=\"ft\">\(HTMLRenderer.columns)<tbody></tbody></table>"
            + "</div>\n"
    }

    /// `s` as the inside of a double-quoted JavaScript string.
    static func jsString(_ s: String) -> String {
        var o = ""
        o.reserveCapacity(s.utf8.count + 64)
        for c in s.unicodeScalars {
            switch c {
            case "\\": o += "\\\\"
            case "\"": o += "\\\""
            case "\n": o += "\\n"
            case "\r": o += "\\r"
            case "\u{2028}": o += "\\u2028"
            case "\u{2029}": o += "\\u2029"
            default:
                if c.value < 0x20 {
                    o += "\\u00" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16)
                } else {
                    o.unicodeScalars.append(c)
                }
            }
        }
        return o
    }

    /// Removes the chunks this writer wrote (a report that stopped before its page was written).
    func discard() {
        for f in written { try? FileManager.default.removeItem(at: f) }
        Self.removeIfEmpty(url)
    }

    /// Removes the chunk files in `reportDirectory/report-files` that are not `keeping`'s (an earlier run's, after
    /// the new page is in place), then the folder if that leaves it empty. Other files are left alone.
    static func clear(in reportDirectory: URL, keeping run: String? = nil) {
        let folder = reportDirectory.appendingPathComponent(folderName, isDirectory: true)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for n in names where isChunkName(n) && (run == nil || n.split(separator: "-")[1] != run!) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(n))
        }
        removeIfEmpty(folder)
    }

    /// True for a name this writer gives (`chunk-1a2b3c-0001.js`, `details-1a2b3c-0001.js`).
    static func isChunkName(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        guard parts.count == 3, Kind(rawValue: String(parts[0])) != nil, name.hasSuffix(".js") else { return false }
        return parts[1].allSatisfy(\.isHexDigit) && parts[2].dropLast(3).allSatisfy(\.isNumber)
    }

    private static func removeIfEmpty(_ folder: URL) {
        if let left = try? FileManager.default.contentsOfDirectory(atPath: folder.path), left.isEmpty {
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
