import Foundation

/// Builds each pair's output with the Debian tools, as a user runs them.
enum CalibrationBuild {
    /// ImageMagick's own convert (Debian's), never a wrapper earlier on PATH.
    static let magick =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") ? "/usr/bin/convert" : "convert"

    /// Builds `pair`'s output in `dir` and returns it.
    /// - Throws: ``Tool/Failure`` naming the step that failed.
    static func build(_ pair: CalibrationPlan.Pair, in dir: URL) throws -> URL {
        let src = pair.source.url.path
        let out = dir.appendingPathComponent(pair.id + ".heic")
        let tmp = dir.appendingPathComponent(pair.id + ".tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        try? FileManager.default.removeItem(at: out)
        func exiftool(_ args: [String]) throws {
            try Tool.run("exiftool", ["-q", "-q"] + args + ["-o", out.path, src])
        }
        func copyTags(_ extra: [String] = []) throws {
            try Tool.run(
                "exiftool", ["-q", "-q", "-overwrite_original", "-tagsFromFile", src, "-all:all"] + extra + [out.path])
        }
        switch (pair.tool, pair.transformation) {
        case ("copy", _):
            try FileManager.default.copyItem(atPath: src, toPath: out.path)
        case ("exiftool", _):
            try exiftool(["-all=", "-tagsFromFile", "@", "-all:all"])
        case (_, "gps-strip"):
            try exiftool(["-gps:all="])
        case (_, "dto-shift"):
            try exiftool(["-ExifIFD:DateTimeOriginal+=1"])
        case (_, "exif-orient1"):
            try exiftool(["-IFD0:Orientation#=1"])
        case (_, "irot-unassoc"), (_, "irot-angle0"):
            guard let b = pair.source.boxes.clearingRotation(unassociate: pair.transformation == "irot-unassoc") else {
                throw Tool.Failure(description: "\(src): the primary has no turning irot")
            }
            try Data(b).write(to: out)
        case ("heifenc", _):
            let jpg = try decoded(src, into: tmp, ext: "jpg", ["-q", "92"])
            try Tool.run("heif-enc", ["-q", "50", "-p", "preset=ultrafast", "-o", out.path, jpg])
            try copyTags()
        case (_, "rotate-pixels"):
            // The picture as shown, turned 90° clockwise, encoded without tags; then the tags copied with Orientation
            // 1, as if the turn were the photo's own.
            let png = try decoded(src, into: tmp, ext: "png")
            let turned = tmp.appendingPathComponent("turned.png").path
            try Tool.run(magick, [png, "-rotate", "90", "-strip", "-depth", "8", "PNG24:" + turned])
            try Tool.run("heif-enc", ["-q", "50", "-p", "preset=ultrafast", "-o", out.path, turned])
            try copyTags(["-IFD0:Orientation#=1"])
        case ("vips", _):
            try Tool.run("vips", ["copy", src, out.path])
        case ("magick", _):
            try Tool.run(magick, [src, out.path])
        default:
            throw Tool.Failure(description: "unknown pair \(pair.tool)/\(pair.transformation)")
        }
        guard FileManager.default.fileExists(atPath: out.path) else {
            throw Tool.Failure(description: "\(pair.id): no output written")
        }
        return out
    }

    /// `heif-convert SRC decoded.EXT`, and the file it wrote: `decoded.EXT`, or for a file with several top-level
    /// images (a stereo pair), which it writes as `decoded-1.EXT`, `decoded-2.EXT`, the first.
    static func decoded(_ src: String, into tmp: URL, ext: String, _ options: [String] = []) throws -> String {
        let target = tmp.appendingPathComponent("decoded.\(ext)")
        try Tool.run("heif-convert", ["--quiet"] + options + [src, target.path])
        if FileManager.default.fileExists(atPath: target.path) { return target.path }
        let written = (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
        guard let first = written.filter({ $0.hasPrefix("decoded-") && $0.hasSuffix("." + ext) }).sorted().first else {
            throw Tool.Failure(description: "heif-convert \(src): no picture written")
        }
        return tmp.appendingPathComponent(first).path
    }

    /// Runs `body` over `items` on `workers` threads, results in order.
    static func parallel<T, R>(_ items: [T], workers: Int = 2, _ body: (T) -> R) -> [R] {
        withoutActuallyEscaping(body) { body in
            let shared = Shared(items: items, body: body)
            DispatchQueue.concurrentPerform(iterations: max(1, min(workers, items.count))) { _ in shared.work() }
            return shared.results.map { $0! }
        }
    }

    /// The work list and results of ``parallel(_:workers:_:)``; `next` and `results` change under the lock only.
    private final class Shared<T, R>: @unchecked Sendable {
        let items: [T]
        let body: (T) -> R
        let lock = NSLock()
        var next = 0
        var results: [R?]

        init(items: [T], body: @escaping (T) -> R) {
            self.items = items
            self.body = body
            results = [R?](repeating: nil, count: items.count)
        }

        func work() {
            while true {
                lock.lock()
                let i = next
                next += 1
                lock.unlock()
                guard i < items.count else { return }
                let r = body(items[i])
                lock.lock()
                results[i] = r
                lock.unlock()
            }
        }
    }
}
