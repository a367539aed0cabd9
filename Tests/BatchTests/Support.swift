import Foundation
import TestSupport
import Testing

@testable import Batch
@testable import Converter

/// A real converter for tests only: copies the source bytes to the output (through the same temp-file path Batch
/// gives every converter). Files whose name contains "diskfull" write half their bytes, then fail with ENOSPC.
final class CopyConverter: ItemConverter, @unchecked Sendable {
    private let lock = NSLock()
    private var _calls: [String] = []
    /// Set when a conversion ran while some original of `watch` was already gone (removal before drain).
    private var _sawMissingOriginal = false
    let watch: [String]

    init(watch: [String] = []) { self.watch = watch }

    var calls: [String] { lock.withLock { _calls } }
    var sawMissingOriginal: Bool { lock.withLock { _sawMissingOriginal } }

    func convert(source: URL, to output: URL, options: ConvertOptions) throws -> ConversionResult {
        let missing = watch.contains { !FileManager.default.fileExists(atPath: $0) }
        lock.withLock {
            _calls.append(source.lastPathComponent)
            if missing { _sawMissingOriginal = true }
        }
        let data = try Data(contentsOf: source)
        if source.lastPathComponent.contains("diskfull") {
            try data.prefix(data.count / 2).write(to: output)
            throw POSIXError(.ENOSPC)
        }
        if source.lastPathComponent.contains("convfail") {
            throw BatchError.refused(path: source.path, reason: "LibRaw: unsupported file format")
        }
        try data.write(to: output)
        let copied = HDRDecision(
            gainMap: false, reason: "copied", measuredHeadroomStops: 0, fractionAboveOneStop: 0, clipHeadroomStops: 0)
        return ConversionResult(
            source: source.lastPathComponent, inputKind: .mosaicRAW, width: 0, height: 0, make: "", model: "",
            hdr: copied, gainMap: nil, knownLosses: [], timings: [:], inputBytes: data.count,
            outputBytes: data.count, options: options)
    }
}

/// A real verifier for tests only: reads the output back and compares it byte for byte with the source.
/// Names containing "partial" report a gain map not carried; "badverify" fails.
struct ByteVerifier: OutputVerifier {
    func verify(source: URL, output: URL) throws -> VerificationResult {
        let a = try Data(contentsOf: source)
        let b = try Data(contentsOf: output)
        guard a == b, !source.lastPathComponent.contains("badverify") else {
            return .failed(reason: "output differs from source")
        }
        if source.lastPathComponent.contains("partial") {
            return .kept(reasons: ["gain map not carried"], summary: "1 loss")
        }
        return .clean(summary: "0 losses")
    }
}

/// Collects what a batch prints.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var _out = ""
    private var _err: [String] = []
    var out: String { lock.withLock { _out } }
    var err: [String] { lock.withLock { _err } }
    var outSink: @Sendable (String) -> Void { { s in self.lock.withLock { self._out += s } } }
    var errSink: @Sendable (String) -> Void { { s in self.lock.withLock { self._err.append(s) } } }
}

/// A scratch library: `src/` with RAW-named files of distinct content, `out/`, a private Trash home.
struct Library {
    let dir: URL
    var src: URL { dir.appendingPathComponent("src") }
    var out: URL { dir.appendingPathComponent("out") }
    var xdg: URL { dir.appendingPathComponent("xdg") }

    init(files: [String], tag: String = #function) throws {
        dir = Repo.temporaryDirectory("readback-" + tag.filter { $0.isLetter || $0.isNumber })
        for (i, f) in files.enumerated() {
            let url = src.appendingPathComponent(f)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((0..<(1000 + i * 37)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }).write(to: url)
        }
    }

    func path(_ rel: String) -> String { src.appendingPathComponent(rel).path }
    func exists(_ rel: String) -> Bool { FileManager.default.fileExists(atPath: path(rel)) }
    func output(_ rel: String) -> String { out.appendingPathComponent(rel).path }

    func config(removal: String? = nil, jobs: Int = 2, style: ProgressStyle = .plain, dryRun: Bool = false)
        -> BatchConfiguration
    {
        BatchConfiguration(
            sources: [src.path], outputRoot: out.path, jobs: jobs, dryRun: dryRun,
            removal: removal.flatMap(RemovalPermit.init(parsingFlagValue:)), progress: style,
            environment: ["XDG_DATA_HOME": xdg.path, "HOME": dir.path])
    }

    @discardableResult
    func run(_ config: BatchConfiguration, converter: CopyConverter, captured: Captured = Captured()) async
        -> BatchSummary
    {
        let engine = BatchEngine(
            configuration: config, converter: converter, verifier: ByteVerifier(), decoders: .inProcess,
            out: captured.outSink,
            err: captured.errSink)
        return await engine.run()
    }

    /// Every file under `root` whose name starts with the temp prefix.
    func tempFiles() -> [String] {
        let e = FileManager.default.enumerator(atPath: dir.path)
        var found: [String] = []
        while let p = e?.nextObject() as? String {
            if (p as NSString).lastPathComponent.hasPrefix(".readback-tmp-") { found.append(p) }
        }
        return found
    }

    func remove() { try? FileManager.default.removeItem(at: dir) }
}
