import Foundation
import TestSupport
import Testing

/// Read once, proven from outside: the `readback` binary runs under strace, which sees every
/// open of every file, whoever makes it: Readback's own reads (`FileContent`, counted in-process by CLITests'
/// ReadOnceTests) and the C libraries' (LibRaw, exiv2, libheif, TurboJPEG). Each input is opened once per audit,
/// diff and conversion, whatever its kind: a DNG and a NEF (exiv2 lists their previews), a Canon CR3 (exiv2 reads
/// it as BMFF), a JPEG and HEIF sources; the output a real HEIC.
@Suite(.serialized) struct ReadOnceRealWorldTests {
    static let sources = [
        "raw/photoprism_canon_eos_6d.dng", "raw/mei_NikonD70s_CaptureNX_Issue247-1.nef",
        "raw/exiv2_Canon-R6-pruned.CR3",
        "jpeg/libavif_dog_exif_extended_xmp_icc.jpg", "heic/exiv2_Stonehenge_NikonD5300exif.heic",
    ]

    /// Copies `rel` of the corpus into a fresh folder (its own path, so the trace names it alone).
    static func copy(_ rel: String, into dir: URL, as name: String? = nil) throws -> URL {
        let from = try RealWorldCorpus.root().appendingPathComponent(rel)
        let to = dir.appendingPathComponent(name ?? from.lastPathComponent)
        try FileManager.default.copyItem(at: from, to: to)
        return to
    }

    /// Runs the debug `readback` under `strace -f` and counts the successful opens of each of `paths`.
    static func opens(_ args: [String], of paths: [URL], in dir: URL) throws -> (status: Int32, opens: [Int]) {
        let trace = dir.appendingPathComponent("trace-\(UUID().uuidString).txt")
        let readback = Repo.root.appendingPathComponent(".build/debug/readback").path
        let r = try TestSupport.Tool.run(
            "strace", ["-f", "-qq", "-e", "trace=open,openat,openat2,creat", "-o", trace.path, readback] + args)
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        let counts = paths.map { p in
            lines.filter { $0.contains("\"\(p.path)\"") && !$0.contains("= -1 ") }.count
        }
        return (r.status, counts)
    }

    @Test(arguments: sources)
    func auditAndDiffOpenEachFileOnce(_ rel: String) throws {
        let dir = Repo.temporaryDirectory("readback-strace")
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try Self.copy(rel, into: dir)
        let out = try Self.copy("heic/libheif_example.heic", into: dir, as: "output.heic")
        for args in [
            ["audit", src.path, out.path, "--no-history"],
            ["audit", src.path, out.path, "--no-history", "--no-decode"],
            ["diff", src.path, out.path],
        ] {
            let r = try Self.opens(args, of: [src, out], in: dir)
            #expect(r.status != 2, "\(args.joined(separator: " ")): exit \(r.status)")
            #expect(r.opens == [1, 1], "\(args[0]) \(rel): opens of the source and the output: \(r.opens)")
        }
    }

    @Test func aConversionOpensItsSourceOnceAndReadsItsOutputBackOnce() throws {
        let dir = Repo.temporaryDirectory("readback-strace-convert")
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try Self.copy("raw/photoprism_canon_eos_6d.dng", into: dir)
        let outDir = dir.appendingPathComponent("out")
        let out = outDir.appendingPathComponent("photoprism_canon_eos_6d.heic")
        let r = try Self.opens(["convert", src.path, "--out", outDir.path], of: [src, out], in: dir)
        #expect(r.status == 0, "exit \(r.status)")
        #expect(r.opens == [1, 1], "opens of the source and the published output: \(r.opens)")
    }
}
