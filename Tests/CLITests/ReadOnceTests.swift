import FileContent
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import ReadbackCLI

/// Each input is read into memory once per command and parsed once. `FileContent` is the one way the reading paths
/// read a file's bytes, and it counts the reads per path; the opens it cannot see (a C library opening a path:
/// LibRaw, exiv2) are counted by RealWorldTests' ReadOnceRealWorldTests under strace. Each test works on its own
/// copies of Corpus files, so the counts are its own while other tests run.
@Suite struct ReadOnceTests {
    /// A folder holding a copy of a Corpus DNG (with an embedded preview, for the render check and the camera look)
    /// and of Corpus/heic/good.heic.
    static func inputs(_ label: String) throws -> (dir: URL, raw: URL, heic: URL) {
        FileContent.startCounting()
        let dir = Repo.temporaryDirectory("readback-read-once-\(label)")
        let raw = dir.appendingPathComponent("in/chart.dng")
        let heic = dir.appendingPathComponent("in/good.heic")
        try FileManager.default.createDirectory(at: raw.deletingLastPathComponent(), withIntermediateDirectories: true)
        let corpus = Repo.root.appendingPathComponent("Corpus")
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("dng/chart-sdr-rggb-14bit-o1.dng"), to: raw)
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("heic/good.heic"), to: heic)
        return (dir, raw, heic)
    }

    /// The reads of each path during `body`.
    static func reads(of paths: [URL], during body: () throws -> Void) rethrows -> [Int] {
        let before = paths.map { FileContent.reads(of: $0.path) }
        try body()
        return zip(paths, before).map { FileContent.reads(of: $0.path) - $1 }
    }

    /// `readback convert SRC`: the source is read once (fingerprint, LibRaw, exiv2 and the read-back audit share
    /// its bytes), its embedded preview is looked up and decoded once (the camera look's, reused by the read-back's
    /// render check), and the written output is read back once.
    @Test func aConversionReadsItsSourceOnceAndDecodesThePreviewOnce() throws {
        let (dir, raw, _) = try Self.inputs("convert")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let heic = out.appendingPathComponent("chart.heic")
        let env = ["XDG_DATA_HOME": dir.path, "HOME": dir.path]
        var r: (code: ExitCode, out: String, err: String)!
        let counts = Self.reads(of: [raw, heic]) {
            r = runCLI(["convert", raw.path, "--out", out.path, "--json"], env: env)
        }
        #expect(r.code == .clean, "\(r.out)\(r.err)")
        #expect(r.out.contains("\"look\""), "the camera look ran: \(r.out)")
        #expect(counts == [1, 1], "reads of the source and the output: \(counts)")
        #expect(FileContent.tallied("reference", path: raw.path) == 1, "the preview is decoded once per conversion")
    }

    /// `readback audit SRC OUT`, decoding or not: the source once, the output once (the container parse, the metadata,
    /// the decode, the reference render and the file facts all take them from memory).
    @Test(arguments: [true, false])
    func anAuditReadsTheSourceAndTheOutputOnceEach(decode: Bool) throws {
        let (dir, raw, heic) = try Self.inputs("audit")
        defer { try? FileManager.default.removeItem(at: dir) }
        for source in [raw, heic] {
            let output = dir.appendingPathComponent("out-\(source.lastPathComponent).heic")
            try FileManager.default.copyItem(at: heic, to: output)
            var r: (code: ExitCode, out: String, err: String)!
            let counts = Self.reads(of: [source, output]) {
                r = runCLI(["audit", source.path, output.path, "--no-history"] + (decode ? [] : ["--no-decode"]))
            }
            #expect(r.code != .usageOrIO, "\(r.out)\(r.err)")
            #expect(counts == [1, 1], "\(source.lastPathComponent): reads of the source and the output: \(counts)")
            #expect(
                FileContent.tallied("reference", path: source.path) == (decode && source == raw ? 1 : 0),
                "\(source.lastPathComponent): the reference render is looked up once, when decoding")
        }
    }

    /// `readback diff SRC OUT`: each file once; nothing is read only to be thrown away.
    @Test func aDiffReadsEachFileOnce() throws {
        let (dir, raw, heic) = try Self.inputs("diff")
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.heic")
        try FileManager.default.copyItem(at: heic, to: output)
        for source in [raw, heic] {
            var r: (code: ExitCode, out: String, err: String)!
            let counts = Self.reads(of: [source, output]) { r = runCLI(["diff", source.path, output.path]) }
            #expect(r.code != .usageOrIO, "\(r.out)\(r.err)")
            #expect(counts == [1, 1], "\(source.lastPathComponent): reads of the source and the output: \(counts)")
        }
    }

    /// The seam counts what it should: a file read twice is counted twice, another path not at all.
    @Test func theCounterCountsEachReadOfEachPath() throws {
        let (dir, raw, heic) = try Self.inputs("counter")
        defer { try? FileManager.default.removeItem(at: dir) }
        let counts = try Self.reads(of: [raw, heic]) {
            _ = try FileContent.read(path: raw.path)
            _ = try FileContent.read(path: raw.path)
        }
        #expect(counts == [2, 0])
    }

    /// The reader reads a whole file, one that reports no size (as /proc's do) to its end, and names what failed.
    @Test func theReaderReadsWholeFilesAndSaysWhyItCannot() throws {
        let (dir, raw, _) = try Self.inputs("reader")
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try FileContent.read(path: raw.path) == [UInt8](try Data(contentsOf: raw)))
        #expect(String(decoding: try FileContent.read(path: "/proc/self/status"), as: UTF8.self).contains("Pid:"))
        func kind(_ path: String, follow: Bool = true) -> FileContent.ReadError.Kind? {
            do { _ = try FileContent.read(path: path, followSymlinks: follow) } catch { return error.kind }
            return nil
        }
        let link = dir.appendingPathComponent("link.dng")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: raw)
        #expect(kind(dir.appendingPathComponent("absent.dng").path) == .noSuchFile)
        #expect(kind(dir.path) == .isDirectory)
        #expect(kind(link.path) == nil && kind(link.path, follow: false) == .cannotOpen)
    }
}
