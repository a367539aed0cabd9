import Findings
import Foundation
import Isolation
import RawDecoder
import Testing

/// Every `Decoders` method throws one error, `DecodeFailure`: a library's refusal arrives whole, and the same from a
/// worker as in process; a worker's death is `worker` with its stage and its `decode.*` code; a request the parent
/// will not send is `refused`, and the worker it would have gone to is still there.
extension DecoderWorkerTests {
    @Test func aDecodeFailsWithOneErrorWhereverItRuns() throws {
        let pool = WorkerPool(
            WorkerPool.Config(executable: binary, size: 1, addressSpace: 4 << 30, timeout: WorkerPool.Timeout()))
        defer { pool.shutdown() }
        let workers = WorkerDecoders(pool: pool)
        let junk = Array("not an image of any kind, only these words".utf8)
        func failure(_ body: () throws(DecodeFailure) -> Void) -> DecodeFailure? {
            do {
                try body()
                return nil
            } catch { return error }
        }
        func library(_ f: DecodeFailure?) -> String? {
            if case .library(let l)? = f { return l.name }
            return nil
        }
        let calls: [(String, (any Decoders) throws(DecodeFailure) -> Void)] = [
            ("LibRaw", { d throws(DecodeFailure) in _ = try d.raw(bytes: junk, name: "junk.dng", options: .init()) }),
            ("libheif", { d throws(DecodeFailure) in _ = try d.heifPrimarySize(junk, item: 1, pixels: nil) }),
            ("exiv2", { d throws(DecodeFailure) in _ = try d.exiv2(bytes: junk, label: "junk") }),
            ("libjpeg-turbo", { d throws(DecodeFailure) in _ = try d.jpeg(junk) }),
            ("libavif", { d throws(DecodeFailure) in _ = try d.avif(junk, strict: true, rgb: false) }),
        ]
        for (name, call) in calls {
            let inWorker = failure { () throws(DecodeFailure) in try call(workers) }
            let inProcess = failure { () throws(DecodeFailure) in try call(InProcessDecoders()) }
            #expect(library(inWorker) == name, "\(name): \(String(describing: inWorker))")
            #expect(inWorker == inProcess, "\(name): a worker's refusal differs from the library's in process")
        }

        // The sandbox kills a worker that opens a socket: a death, with its signal, stage and code.
        let died = failure { () throws(DecodeFailure) in try workers.forbidden("socket") }
        guard case .worker(let f)? = died else {
            Issue.record("not a worker's death: \(String(describing: died))")
            return
        }
        #expect(f.kind == .crashed(signal: SIGSYS, sandbox: true))
        #expect(f.stage == "the forbidden call (socket)")
        #expect(FindingCode(f) == .decodeCrashed)
        #expect(died?.description == f.description && died?.workerFailure == f)

        // A request longer than a worker reads (64 KiB) is refused before it is sent: the worker lives on.
        let tiles = [Int](repeating: 123_456, count: 20_000)
        let refused = failure { () throws(DecodeFailure) in
            _ = try workers.heifGridReduced(
                junk, fileBytes: junk.count, tileBytes: tiles,
                geometry: .init(columns: 100, rows: 200, tileWidth: 1, tileHeight: 1, width: 100, height: 200),
                minSide: 1, item: 1, pixels: nil)
        }
        guard case .refused(let reason)? = refused else {
            Issue.record("not refused: \(String(describing: refused))")
            return
        }
        #expect(reason.hasPrefix("worker protocol: a request of "), "\(reason)")
        let idle = pool.pids
        #expect(idle.count == 1)
        #expect(library(failure { () throws(DecodeFailure) in _ = try workers.jpeg(junk) }) == "libjpeg-turbo")
        #expect(pool.pids == idle, "the refused request cost its worker")
    }
}
