import Foundation

/// A file's thumbnails: the primary image's, the first gain map's, and the reference render's (the source's own
/// rendering the render check compared the output with), shown beside the primary.
public struct ThumbnailSet<Value: Sendable & Hashable>: Sendable, Hashable {
    public var primary: Value?
    public var gainMap: Value?
    public var reference: Value?

    public init(primary: Value? = nil, gainMap: Value? = nil, reference: Value? = nil) {
        self.primary = primary
        self.gainMap = gainMap
        self.reference = reference
    }

    /// True when there is none.
    public var isEmpty: Bool { primary == nil && gainMap == nil && reference == nil }
}

/// Small PNG previews of one output's images, for the HTML report. They are never part of report.json, which
/// holds findings and facts only.
public typealias Thumbnails = ThumbnailSet<Data>

/// What report.html shows for one file's thumbnails: an `img` source each (a relative path or a data URI).
public typealias ThumbnailLinks = ThumbnailSet<String>

/// The report's thumbnails as files beside report.html: `thumbs/<n>-primary.png`, `thumbs/<n>-gainmap.png` and
/// `thumbs/<n>-reference.png`, where `n` is the file's index in the report. The audit writes them as each file is done (so memory does not grow
/// with the number of files); report.html links them by relative path, or inlines them when it must be one file.
// unchecked: `error` is read and written under `lock`; the rest is immutable.
public final class ThumbnailFolder: @unchecked Sendable {
    /// The report's folder (the thumbnails go into its `thumbs` subfolder).
    public let reportDirectory: URL
    private let lock = NSLock()
    private var error: (any Error)?

    /// The images of a file that get a thumbnail.
    public enum Image: String, CaseIterable, Sendable {
        case primary
        case gainMap = "gainmap"
        case reference
    }

    public init(reportDirectory: URL) { self.reportDirectory = reportDirectory }

    /// `DIR/thumbs`.
    public var url: URL { reportDirectory.appendingPathComponent("thumbs", isDirectory: true) }

    /// `thumbs/3-primary.png`: the path report.html uses, relative to the report's folder.
    public static func relativePath(index: Int, _ image: Image) -> String { "thumbs/\(index)-\(image.rawValue).png" }

    /// True for a name this folder writes (`3-primary.png`, `12-gainmap.png`).
    static func isThumbnailName(_ name: String) -> Bool {
        guard name.hasSuffix(".png"), let dash = name.firstIndex(of: "-") else { return false }
        let n = name[..<dash]
        let kind = name[name.index(after: dash)...].dropLast(4)
        return !n.isEmpty && n.allSatisfy(\.isASCII) && n.allSatisfy(\.isNumber)
            && Image(rawValue: String(kind)) != nil
    }

    /// Removes the thumbnails a run left here (only files named as this folder names them, then the folder if that
    /// leaves it empty), so a new report never shows an old run's image.
    /// - Throws: the file system's error.
    public func clear() throws {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: url.path) else { return }
        for n in names where Self.isThumbnailName(n) { try fm.removeItem(at: url.appendingPathComponent(n)) }
        if try fm.contentsOfDirectory(atPath: url.path).isEmpty { try fm.removeItem(at: url) }
    }

    /// Writes one file's thumbnails (creating the folder on first use). A failure is kept (``firstError``) and the
    /// thumbnail is left out; the audit itself goes on.
    public func write(_ t: Thumbnails, index: Int) {
        let pngs = [(Image.primary, t.primary), (.gainMap, t.gainMap), (.reference, t.reference)].compactMap { i, d in
            d.map { (i, $0) }
        }
        guard !pngs.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (image, png) in pngs { try png.write(to: file(index, image), options: .atomic) }
        } catch {
            lock.withLock { if self.error == nil { self.error = error } }
        }
    }

    /// The first error met writing thumbnails, if any.
    public var firstError: (any Error)? { lock.withLock { error } }

    /// The sources report.html uses for file `index`: the relative paths of the thumbnails that exist.
    public func links(index: Int) -> ThumbnailLinks {
        func link(_ i: Image) -> String? {
            FileManager.default.fileExists(atPath: file(index, i).path) ? Self.relativePath(index: index, i) : nil
        }
        return ThumbnailLinks(primary: link(.primary), gainMap: link(.gainMap), reference: link(.reference))
    }

    /// ``links(index:)`` for a whole report: the folder is listed once, instead of three `stat` calls per file
    /// (a report of 100,000 files without thumbnails would make 300,000 of them).
    public func linker() -> (Int) -> ThumbnailLinks {
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
        return { index in
            func link(_ i: Image) -> String? {
                let rel = Self.relativePath(index: index, i)
                return names.contains(String(rel.dropFirst("thumbs/".count))) ? rel : nil
            }
            return ThumbnailLinks(primary: link(.primary), gainMap: link(.gainMap), reference: link(.reference))
        }
    }

    /// The same thumbnails as PNG data URIs, read from their files (report.html as one self-contained file).
    public func inlined(index: Int) -> ThumbnailLinks {
        func uri(_ i: Image) -> String? { (try? Data(contentsOf: file(index, i))).map(PNG.dataURI) }
        return ThumbnailLinks(primary: uri(.primary), gainMap: uri(.gainMap), reference: uri(.reference))
    }

    private func file(_ index: Int, _ image: Image) -> URL {
        reportDirectory.appendingPathComponent(Self.relativePath(index: index, image))
    }
}
