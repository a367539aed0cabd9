import CorpusKit
import Foundation
import Isolation
import RawDecoder
import TestSupport
import Testing

/// Decoders run in worker processes (docs/security.md). Faults are injected by a C shim this file compiles with `cc`
/// and loads with LD_PRELOAD, which the workers inherit with the environment: it interposes the calls Readback hands
/// a file's bytes to (`heif_context_read_from_memory`; LibRaw's through a debug build's test hooks) and, when the
/// bytes carry a marker, crashes, hangs, sleeps 2 s, allocates without bound, opens a socket or opens a file for
/// writing.
@Suite(.serialized) struct DecoderWorkerTests {
    static let shimSource = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <libraw/libraw.h>
        #include <signal.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/socket.h>
        #include <unistd.h>

        static void fault(const void *buf, size_t size) {
            if (!buf || size == 0) return;
            if (memmem(buf, size, "READBACK-FAULT-CRASH", 20)) { volatile int *p = NULL; *p = 1; }
            if (memmem(buf, size, "READBACK-FAULT-HANG", 19)) { for (;;) pause(); }
            if (memmem(buf, size, "READBACK-FAULT-SLOW", 19)) sleep(2);
            if (memmem(buf, size, "READBACK-FAULT-MEMORY", 21)) {
                for (;;) { void *p = malloc(256u << 20); if (!p) abort(); }
            }
            if (memmem(buf, size, "READBACK-FAULT-SOCKET", 21)) socket(AF_INET, SOCK_STREAM, 0);
            if (memmem(buf, size, "READBACK-FAULT-WRITE", 20)) {
                int fd = open(getenv("READBACK_FAULT_WRITE_PATH"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
                if (fd >= 0) close(fd);
            }
        }

        // LibRaw is linked into readback statically, so the shim cannot interpose its calls: a debug build calls
        // these two (found with dlsym) right before libraw_open_buffer and right after libraw_dcraw_process
        // (Sources/3-Wrappers/RawDecoder/TestHooks.swift).
        // With READBACK_TEST_MOVE_IMAGE set, LibRaw's processed image is moved into a buffer of glibc's, as LibRaw
        // itself does when it rotates a Fuji frame: the worker must then copy the frame out, packed.
        void readback_test_libraw_processed(libraw_data_t *lr) {
            if (getenv("READBACK_TEST_MOVE_IMAGE") && lr->image) {
                size_t n = (size_t)lr->sizes.width * lr->sizes.height * sizeof(*lr->image);
                void *moved = malloc(n);
                if (!moved) abort();
                memcpy(moved, lr->image, n);
                lr->image = moved;
            }
        }

        void readback_test_libraw_open(const void *buffer, size_t size) { fault(buffer, size); }

        struct heif_error { int code; int subcode; const char *message; };
        struct heif_error heif_context_read_from_memory(void *ctx, const void *mem, size_t size, const void *o) {
            fault(mem, size);
            struct heif_error (*real)(void *, const void *, size_t, const void *) =
                dlsym(RTLD_NEXT, "heif_context_read_from_memory");
            return real(ctx, mem, size, o);
        }

        // exiv2's ImageFactory::open(const byte *, long) (an auto_ptr returned through the hidden pointer) and
        // TurboJPEG's header read: each crashes on its own marker only, so LibRaw and libheif pass the file first.
        static void crashOn(const void *buf, size_t size, const char *marker) {
            // raise, not a null store: the compiler drops a branch that ends in undefined behaviour.
            if (buf && size > 0 && memmem(buf, size, marker, strlen(marker))) raise(SIGSEGV);
        }
        void *_ZN5Exiv212ImageFactory4openEPKhl(void *ret, const unsigned char *data, long size) {
            crashOn(data, size > 0 ? (size_t)size : 0, "READBACK-EXIV2-CRASH");
            if (data && size > 0 && memmem(data, (size_t)size, "READBACK-FAULT-SLOW", 19)) sleep(2);
            void *(*real)(void *, const unsigned char *, long) = dlsym(RTLD_NEXT, "_ZN5Exiv212ImageFactory4openEPKhl");
            return real(ret, data, size);
        }
        // libavif's read of an AVIF output and libjxl's of a DNG 1.7 tile, each on its own marker.
        int avifDecoderReadMemory(void *d, void *img, const unsigned char *data, size_t size) {
            crashOn(data, size, "READBACK-AVIF-CRASH");
            int (*real)(void *, void *, const unsigned char *, size_t) = dlsym(RTLD_NEXT, "avifDecoderReadMemory");
            return real(d, img, data, size);
        }
        int JxlDecoderSetInput(void *dec, const unsigned char *data, size_t size) {
            crashOn(data, size, "READBACK-JXL-CRASH");
            int (*real)(void *, const unsigned char *, size_t) = dlsym(RTLD_NEXT, "JxlDecoderSetInput");
            return real(dec, data, size);
        }
        int tjDecompressHeader3(void *h, const unsigned char *buf, unsigned long size, int *w, int *ht, int *sub,
                                int *cs) {
            crashOn(buf, size, "READBACK-JPEG-CRASH");
            int (*real)(void *, const unsigned char *, unsigned long, int *, int *, int *, int *) =
                dlsym(RTLD_NEXT, "tjDecompressHeader3");
            return real(h, buf, size, w, ht, sub, cs);
        }
        """#

    /// Each test's folder: named for every instance of the suite (Swift Testing makes more instances than it runs
    /// tests), made by the first write into it (`shim` and the tests' `src` folders), removed by each test that runs.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readback-workers-\(UUID().uuidString)")
    let binary = Repo.root.appendingPathComponent(".build/debug/readback").path

    /// Compiles the shim into the test's folder.
    func shim() throws -> String {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let c = dir.appendingPathComponent("shim.c")
        let so = dir.appendingPathComponent("shim.so").path
        try Self.shimSource.write(to: c, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        // LibRaw's header from the build make deps made (scripts/libraw/build.sh), for libraw_data_t.
        let include = Repo.root.appendingPathComponent(".build/libraw/include").path
        cc.arguments = ["-shared", "-fPIC", "-O1", "-I", include, "-o", so, c.path, "-ldl"]
        try cc.run()
        cc.waitUntilExit()
        #expect(cc.terminationStatus == 0, "cc could not build the shim")
        return so
    }

    /// A small valid DNG; with `marker`, the marker follows the TIFF data (no IFD points at it).
    func dng(_ name: String, in folder: URL, seed: Int, marker: String? = nil) throws {
        var o = TestDNG.Options()
        o.width = 96 + 16 * seed
        o.height = 64
        var bytes = TestDNG.make(o) { x, y in (Double(x % 13) / 30 + Double(seed) / 20, Double(y % 7) / 20, 0.15) }
        if let marker { bytes += Array(marker.utf8) }
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    /// A HEIC with `marker` in a trailing `free` box: a valid file whose bytes carry the marker.
    func markedHEIC(_ from: URL, marker: String, to: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: from))
        let box = 8 + marker.utf8.count
        bytes += [UInt8(box >> 24), UInt8((box >> 16) & 0xff), UInt8((box >> 8) & 0xff), UInt8(box & 0xff)]
        bytes += Array("free".utf8) + Array(marker.utf8)
        try Data(bytes).write(to: to)
    }

    func run(_ args: [String], env extra: [String: String] = [:]) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.currentDirectoryURL = dir
        p.environment =
            ["PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no"].merging(extra) { $1 }
        let o = Pipe()
        p.standardOutput = o
        p.standardError = o
        try p.run()
        let out = o.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    func items(_ jsonLines: String) -> [String: [String: Any]] {
        var byName: [String: [String: Any]] = [:]
        for line in jsonLines.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                o["event"] as? String == "item", let s = o["source"] as? String
            else { continue }
            byName[(s as NSString).lastPathComponent] = o
        }
        return byName
    }

    /// convert DIR and audit --outputs DIR over ordinary files plus a crashing, a hanging and an exhausting one: both
    /// finish with exit 1, the ordinary files are clean, the three get decode.crashed (signal and stage named),
    /// decode.timeout and decode.out-of-memory, the report lists every file, and a rerun leaves the three alone.
    @Test func everyFileGetsAVerdictWhenItsDecoderDies() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let preload = ["LD_PRELOAD": try shim()]
        for i in 0..<3 { try dng("plain-\(i).dng", in: src, seed: i) }
        try dng("crash.dng", in: src, seed: 3, marker: "READBACK-FAULT-CRASH")
        try dng("hang.dng", in: src, seed: 4, marker: "READBACK-FAULT-HANG")
        try dng("memory.dng", in: src, seed: 5, marker: "READBACK-FAULT-MEMORY")
        let convert = ["convert", "src", "--out", "out", "--jobs", "2", "--json", "--file-timeout", "3"]

        let first = try run(convert, env: preload)
        #expect(first.status == 1, "\(first.out)")
        let got = items(first.out)
        #expect(got.count == 6, "\(first.out)")
        for i in 0..<3 { #expect(got["plain-\(i).dng"]?["verdict"] as? String == "clean", "\(first.out)") }
        let crash = got["crash.dng"]?["error"] as? String ?? ""
        #expect(crash.contains("decode.crashed") && crash.contains("SIGSEGV"), "\(crash)")
        #expect(crash.contains("during LibRaw open"), "the stage is named: \(crash)")
        let hang = (got["hang.dng"]?["error"] as? String) ?? ""
        let memory = (got["memory.dng"]?["error"] as? String) ?? ""
        #expect(hang.contains("decode.timeout: "), "\(first.out)")
        #expect(memory.contains("decode.out-of-memory: "), "\(first.out)")

        // The rerun does not touch them and says why; the ordinary files are done already.
        let second = try run(convert, env: preload)
        #expect(second.status == 1)
        let again = items(second.out)
        #expect(again.count == 3, "\(second.out)")
        let crashAgain = (again["crash.dng"]?["error"] as? String) ?? ""
        #expect(crashAgain.contains("not tried again: "), "\(second.out)")
        #expect(crashAgain.contains("decode.crashed"), "\(second.out)")

        // The audit of the outputs plus three marked HEICs.
        let outputs = dir.appendingPathComponent("out")
        let good = outputs.appendingPathComponent("plain-0.heic")
        for (name, marker) in [("crash", "CRASH"), ("hang", "HANG"), ("memory", "MEMORY")] {
            try markedHEIC(
                good, marker: "READBACK-FAULT-\(marker)", to: outputs.appendingPathComponent("\(name)-out.heic"))
        }
        let history = dir.appendingPathComponent("history.db").path
        let audit = try run(
            [
                "audit", "--outputs", "out", "--report", "rep", "--jobs", "2", "--file-timeout", "3", "--history-db",
                history,
            ],
            env: preload)
        #expect(audit.status == 1, "\(audit.out)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("rep/report.json")))
                as? [String: Any])
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.count == 6, "every file is in the report")
        func codes(_ name: String) -> [String] {
            let f = files.first { ($0["output"] as? String).map { $0 == name || $0.hasSuffix("/" + name) } == true }
            return (f?["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }
        #expect(codes("crash-out.heic").contains("decode.crashed"), "\(codes("crash-out.heic"))")
        #expect(codes("hang-out.heic").contains("decode.timeout"), "\(codes("hang-out.heic"))")
        #expect(codes("memory-out.heic").contains("decode.out-of-memory"), "\(codes("memory-out.heic"))")
        for i in 0..<3 {
            #expect(!codes("plain-\(i).heic").contains { $0.hasPrefix("decode.") }, "\(codes("plain-\(i).heic"))")
        }
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("rep/junit.xml").path))
        #expect(FileManager.default.fileExists(atPath: history), "the run is in the history")
        #expect(audit.out.contains("libheif decode item"), "the stage is named: \(audit.out)")
    }

    /// exiv2 and libjpeg-turbo run in workers too: their deaths are `decode.crashed` verdicts naming the stage, in a
    /// conversion (exiv2 reading the RAW's previews) and in a pair audit (exiv2 reading the source's metadata, and
    /// libjpeg-turbo decoding a JPEG source for the render check), never a metadata note or a missing reference.
    @Test func exiv2AndJPEGDeathsAreDecodeVerdicts() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let preload = ["LD_PRELOAD": try shim()]
        try dng("plain.dng", in: src, seed: 0)
        try dng("exiv2.dng", in: src, seed: 1, marker: "READBACK-EXIV2-CRASH")
        let r = try run(["convert", "src", "--out", "out", "--jobs", "2", "--json"], env: preload)
        #expect(r.status == 1, "\(r.out)")
        let got = items(r.out)
        #expect(got["plain.dng"]?["verdict"] as? String == "clean", "\(r.out)")
        let e = got["exiv2.dng"]?["error"] as? String ?? ""
        #expect(e.contains("decode.crashed") && e.contains("SIGSEGV") && e.contains("exiv2 read"), "\(e)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/exiv2.heic").path))

        func codes(_ report: String) throws -> [String] {
            let json = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: dir.appendingPathComponent("\(report)/report.json"))) as? [String: Any])
            let files = try #require(json["files"] as? [[String: Any]])
            return files.flatMap { ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        }
        // The same RAW as the source of a pair: exiv2 dies reading its metadata.
        let pair = try run(["audit", "src/exiv2.dng", "out/plain.heic", "--report", "rep-exiv2"], env: preload)
        #expect(pair.status == 1, "\(pair.out)")
        let exiv2Codes = try codes("rep-exiv2")
        #expect(exiv2Codes.contains("decode.crashed"), "\(exiv2Codes)")
        #expect(!exiv2Codes.contains("metadata.unreadable"), "\(exiv2Codes)")

        // A JPEG source whose decode dies (the marker after its end of image: exiv2 reads it as usual).
        var jpeg = [UInt8](try Data(contentsOf: Repo.root.appendingPathComponent("Corpus/jpeg/plain.jpg")))
        jpeg += Array("READBACK-JPEG-CRASH".utf8)
        try Data(jpeg).write(to: src.appendingPathComponent("crash.jpg"))
        let audit = try run(["audit", "src/crash.jpg", "out/plain.heic", "--report", "rep-jpeg"], env: preload)
        #expect(audit.status == 1, "\(audit.out)")
        let jpegCodes = try codes("rep-jpeg")
        #expect(jpegCodes.contains("decode.crashed"), "\(jpegCodes)")
        #expect(audit.out.contains("libjpeg-turbo decode"), "the stage is named: \(audit.out)")
    }

    /// libavif and libjxl run in workers too: a crash in libavif's read of an AVIF output, or in libjxl's read of one
    /// JPEG XL tile of a DNG 1.7, is that file's `decode.crashed` verdict naming the stage; the other files are done.
    @Test func libavifAndLibjxlDeathsAreDecodeVerdicts() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let preload = ["LD_PRELOAD": try shim()]
        // A DNG 1.7 whose second tile carries the marker after its codestream, beside a plain DNG.
        try dng("plain.dng", in: src, seed: 0)
        try jxlDNG(src.appendingPathComponent("jxl.dng"), marker: "READBACK-JXL-CRASH")
        let r = try run(["convert", "src", "--out", "out", "--jobs", "2", "--json"], env: preload)
        #expect(r.status == 1, "\(r.out)")
        let got = items(r.out)
        #expect(got["plain.dng"]?["verdict"] as? String == "clean", "\(r.out)")
        let e = (got["jxl.dng"]?["error"] as? String) ?? ""
        #expect(e.contains("decode.crashed") && e.contains("SIGSEGV") && e.contains("JPEG XL decode"), "\(e)")

        // An AVIF output alone whose libavif read dies, audited beside a good HEIC.
        let outs = dir.appendingPathComponent("outs")
        try FileManager.default.createDirectory(at: outs, withIntermediateDirectories: true)
        var avif = [UInt8](
            try Data(contentsOf: Repo.root.appendingPathComponent("Tests/HEIFTests/Fixtures/seed-avif.avif")))
        avif += Array("READBACK-AVIF-CRASH".utf8)
        try Data(avif).write(to: outs.appendingPathComponent("crash.avif"))
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent("out/plain.heic"), to: outs.appendingPathComponent("plain.heic"))
        let audit = try run(["audit", "--outputs", "outs", "--report", "rep-avif"], env: preload)
        #expect(audit.status == 1, "\(audit.out)")
        let report = try String(contentsOf: dir.appendingPathComponent("rep-avif/report.json"), encoding: .utf8)
        #expect(report.contains("decode.crashed") && report.contains("libavif decode"), "\(report)")
        #expect(report.contains("plain.heic"), "every file is in the report")
    }

    /// The seccomp filter stops a worker that opens a network socket or a file for writing; the file is reported
    /// (decode.crashed, stopped by its sandbox) and nothing is written.
    @Test func theSandboxStopsSocketsAndWrites() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let target = dir.appendingPathComponent("written-by-a-worker").path
        try dng("plain.dng", in: src, seed: 0)
        try dng("socket.dng", in: src, seed: 1, marker: "READBACK-FAULT-SOCKET")
        try dng("write.dng", in: src, seed: 2, marker: "READBACK-FAULT-WRITE")
        let r = try run(
            ["convert", "src", "--out", "out", "--jobs", "2", "--json"],
            env: ["LD_PRELOAD": try shim(), "READBACK_FAULT_WRITE_PATH": target])
        #expect(r.status == 1, "\(r.out)")
        let got = items(r.out)
        #expect(got["plain.dng"]?["verdict"] as? String == "clean", "\(r.out)")
        for name in ["socket.dng", "write.dng"] {
            let e = got[name]?["error"] as? String ?? ""
            #expect(e.contains("decode.crashed") && e.contains("stopped by its sandbox"), "\(e)")
            #expect(e.contains("SIGSYS"), "\(e)")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "a worker wrote a file")
    }

    /// kill -9 of the parent mid-run leaves no worker behind (PR_SET_PDEATHSIG, and the parent's pid checked after).
    @Test func killingTheParentLeavesNoWorkers() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        try dng("hang-a.dng", in: src, seed: 0, marker: "READBACK-FAULT-HANG")
        try dng("hang-b.dng", in: src, seed: 1, marker: "READBACK-FAULT-HANG")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["convert", "src", "--out", "out", "--jobs", "2", "--file-timeout", "600", "--quiet"]
        p.currentDirectoryURL = dir
        p.environment = [
            "PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no", "LD_PRELOAD": try shim(),
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let parent = p.processIdentifier
        var waited = 0
        while Self.workers(of: parent).count < 2 && waited < 300 {
            usleep(100_000)
            waited += 1
        }
        #expect(Self.workers(of: parent).count == 2, "both workers hang in their decode")
        kill(parent, SIGKILL)
        p.waitUntilExit()
        waited = 0
        while !Self.workers(of: parent).isEmpty && waited < 50 {
            usleep(100_000)
            waited += 1
        }
        #expect(Self.workers(of: parent).isEmpty, "workers left behind: \(Self.workers(of: parent))")
    }

    /// A RAW decoded in a worker converts to the same bytes as in process, for each orientation that turns or
    /// mirrors the frame: the parent reads LibRaw's image where the worker's LibRaw left it (the frame arena,
    /// docs/security.md), as the run's statistics say, and reads it the same way as in process; and when LibRaw has
    /// moved its image out of the arena, the worker's packed copy gives the same bytes too.
    @Test func aRAWDecodedInAWorkerConvertsAsInProcess() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let orientations: [UInt16] = [1, 3, 6, 8]
        for (i, orientation) in orientations.enumerated() {
            var o = TestDNG.Options()
            o.width = 96 + 16 * i
            o.height = 64
            o.orientation = orientation
            let bytes = TestDNG.make(o) { x, y in (Double(x % 13) / 30, Double(y % 7) / 20, Double(x + y) / 400) }
            try Data(bytes).write(to: src.appendingPathComponent("o\(orientation).dng"))
        }
        let workers = try run(
            ["convert", "src", "--out", "workers", "--jobs", "2", "--quiet"], env: ["READBACK_WORKER_STATS": "1"])
        #expect(workers.status == 0, "\(workers.out)")
        #expect(workers.out.contains("RAW frames: 4 in place, 0 copied"), "\(workers.out)")
        // Each worker's later pixels went into the shared memory it kept (docs/security.md, "Kept grants").
        let reused = workers.out.firstMatch(of: /shared memory: (\d+) kept grants reused/).flatMap { Int($0.1) }
        #expect((reused ?? 0) > 0, "\(workers.out)")
        let inProcess = try run(
            ["convert", "src", "--out", "in-process", "--jobs", "2", "--quiet"],
            env: ["READBACK_DECODERS": "in-process"])
        #expect(inProcess.status == 0, "\(inProcess.out)")
        // LibRaw's image moved out of the arena after processing: the frame is copied, packed and upright.
        let copied = try run(
            ["convert", "src", "--out", "copied", "--jobs", "2", "--quiet"],
            env: ["READBACK_WORKER_STATS": "1", "LD_PRELOAD": try shim(), "READBACK_TEST_MOVE_IMAGE": "1"])
        #expect(copied.status == 0, "\(copied.out)")
        #expect(copied.out.contains("RAW frames: 0 in place, 4 copied"), "\(copied.out)")
        for orientation in orientations {
            let name = "o\(orientation).heic"
            let b = try Data(contentsOf: dir.appendingPathComponent("in-process/\(name)"))
            for folder in ["workers", "copied"] {
                let a = try Data(contentsOf: dir.appendingPathComponent("\(folder)/\(name)"))
                #expect(a == b, "\(folder)/\(name) differs from the in-process conversion")
            }
        }
    }

    /// A worker keeps the shared memory of its last pixels for its next request (docs/security.md, "Kept grants"),
    /// but only writes into it again once the parent no longer reads it. Through one worker: the second RAW decodes
    /// while the first one's frame is held, and the first frame must read as it did; the third, decoded after both
    /// frames are gone, reuses the kept memory and reads as LibRaw's decode in process.
    @Test func aWorkerReusesItsSharedMemoryOnlyOnceTheParentLetItGo() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = WorkerPool(
            WorkerPool.Config(executable: binary, size: 1, addressSpace: 4 << 30, timeout: WorkerPool.Timeout()))
        defer { pool.shutdown() }
        // The third is a LinearRaw DNG, so the reused grant holds another kind of decode than the one before it.
        func dng(_ seed: Int) -> [UInt8] {
            var o = TestDNG.Options()
            o.width = 160
            o.height = 96
            o.bayer = seed != 3
            return TestDNG.make(o) { x, y in
                (Double((x * seed) % 17) / 20, Double((y + seed) % 9) / 12, Double(x + y * seed) / 900)
            }
        }
        func decode(_ seed: Int) throws -> RawFrame {
            try WorkerDecoders(pool: pool).raw(bytes: dng(seed), name: "\(seed).dng", options: RawDecodeOptions()).1
        }
        func rows(_ f: RawFrame) -> [UInt16] {
            var all = [UInt16](repeating: 0, count: 3 * f.width * f.height)
            all.withUnsafeMutableBufferPointer { b in
                for y in 0..<f.height {
                    let row = (3 * f.width * y)..<(3 * f.width * (y + 1))
                    f.copyRow(y, into: UnsafeMutableBufferPointer(rebasing: b[row]))
                }
            }
            return all
        }
        /// Samples of `f` that differ from LibRaw's decode of the same RAW in process (or from `samples`).
        func differing(_ f: RawFrame, from samples: [UInt16]? = nil, seed: Int) throws -> Int {
            let a = rows(f)
            let b = try samples ?? rows(try LibRawDecoder.decodeInPlace(bytes: dng(seed), name: "\(seed).dng").1)
            return a.count == b.count ? zip(a, b).filter { $0 != $1 }.count : max(a.count, b.count)
        }
        var held = [try decode(1)]
        let first = rows(held[0])
        #expect(try differing(held[0], seed: 1) == 0)
        held.append(try decode(2))
        #expect(
            try differing(held[0], from: first, seed: 1) == 0,
            "the second decode wrote over the frame the parent still reads")
        #expect(try differing(held[1], seed: 2) == 0)
        #expect(pool.grants.reused == 0, "a kept grant was reused while its frame was held")
        #expect(pool.rawFrames.inPlace == 2)
        held.removeAll()
        let third = try decode(3)
        #expect(pool.grants.reused == 1, "the kept grant was not reused: \(pool.grants)")
        #expect(try differing(third, seed: 3) == 0)
    }

    /// A sensor whose width and height add up to more than about 4,000 px still has its image placed in shared
    /// memory and read there: LibRaw 0.22 allocates a pixel of margin round the image, which a grant of 8 bytes a
    /// pixel missed, and every 24 and 50 MP frame was then copied out of the worker (144 MB more at 24 MP).
    @Test func aWideSensorsFrameIsReadInPlace() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = WorkerPool(
            WorkerPool.Config(executable: binary, size: 1, addressSpace: 4 << 30, timeout: WorkerPool.Timeout()))
        defer { pool.shutdown() }
        var o = TestDNG.Options()
        o.width = 4400
        o.height = 64
        let dng = TestDNG.make(o) { x, y in (Double(x % 97) / 120, Double(y) / 80, Double(x + y) / 5000) }
        let frame = try WorkerDecoders(pool: pool).raw(bytes: dng, name: "wide.dng", options: RawDecodeOptions()).1
        #expect(pool.rawFrames.inPlace == 1, "the frame was copied out of the worker")
        let local = try LibRawDecoder.decodeInPlace(bytes: dng, name: "wide.dng").1
        let differing = differingRows(frame, local)
        #expect(frame.width == 4400 && differing == 0, "\(differing) rows differ")
    }

    /// The pids of live `readback __decode-worker PARENT …` processes.
    static func workers(of parent: Int32) -> [Int32] {
        let procs = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return procs.compactMap { Int32($0) }.filter { pid in
            guard let cmd = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                !stat.contains(") Z ")
            else { return false }
            let args = cmd.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return args.count >= 3 && args[1] == "__decode-worker" && args[2] == String(parent)
        }
    }
}

/// A thread-safe counter for an encoder closure (`@Sendable`): the tiles it has seen.
final class Counter: @unchecked Sendable {  // a lock guards `n`
    private let lock = NSLock()
    private var n = 0
    func next() -> Int {
        lock.withLock {
            defer { n += 1 }
            return n
        }
    }
}
