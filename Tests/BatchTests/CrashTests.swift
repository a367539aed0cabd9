import CorpusKit
import Foundation
import Store
import TestSupport
import Testing

@testable import Batch

/// Crash safety of `readback convert --remove-originals`, driving the built binary: each round makes a small library
/// of generated DNGs, runs the batch, SIGKILLs it at a random moment, resumes, again and again until a run finishes
/// by itself; then checks every original is present or has a verified output that passes audit, every item is
/// finished in the store, and no temp file remains. Rounds repeat until `READBACK_CRASH_KILLS` kills (default 4;
/// `scripts/crash-test.sh` asks for 50+). `READBACK_CRASH_FILES` sets the files per round (default 4).
@Test func killedBatchesWithRemovalNeverLoseAnOriginal() throws {
    let env = ProcessInfo.processInfo.environment
    let wantedKills = Int(env["READBACK_CRASH_KILLS"] ?? "") ?? 4
    let filesPerRound = Int(env["READBACK_CRASH_FILES"] ?? "") ?? 4
    // `delete` by default; `READBACK_CRASH_REMOVAL=trash` exercises the freedesktop Trash path instead.
    let removal = env["READBACK_CRASH_REMOVAL"] == "trash" ? "trash" : "delete"
    let binary = Repo.root.appendingPathComponent(".build/debug/readback").path
    #expect(FileManager.default.isExecutableFile(atPath: binary), "build readback first (swift build): \(binary)")
    guard FileManager.default.isExecutableFile(atPath: binary) else { return }

    var rng = SplitMix64(seed: UInt64(env["READBACK_CRASH_SEED"] ?? "") ?? 0x5EED)
    var kills = 0
    var runs = 0
    var rounds = 0
    var removed = 0
    var kept = 0
    var killsAfterRemovalStarted = 0
    // Upper bound for the random kill delay; adapted to how long a whole run takes here.
    var maxDelay = 1.0
    let started = Date()
    while kills < wantedKills {
        rounds += 1
        let dir = Repo.temporaryDirectory("readback-crash")
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("src")
        let out = dir.appendingPathComponent("out")
        let pristine = dir.appendingPathComponent("pristine")
        for d in [src.appendingPathComponent("sub"), pristine] {
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        }
        var names: [String] = []
        for i in 0..<filesPerRound {
            var o = TestDNG.Options()
            o.width = 96 + 16 * (i % 3)
            o.height = 64
            let name = (i % 2 == 0 ? "" : "sub/") + "IMG_\(rounds)_\(i).dng"
            let bytes = Data(
                TestDNG.make(o) { x, y in (Double((x + i) % 17) / 40 + 0.1, Double(y % 11) / 30 + 0.1, 0.2) })
            try bytes.write(to: src.appendingPathComponent(name))
            try bytes.write(to: pristine.appendingPathComponent((name as NSString).lastPathComponent))
            names.append(name)
        }
        var finished = false
        var checkRun = false
        var attempts = 0
        while !finished {
            attempts += 1
            if attempts >= 200 {
                let last = (try? String(contentsOf: dir.appendingPathComponent("log-199.txt"), encoding: .utf8)) ?? ""
                Issue.record(
                    "a round did not finish after 200 runs (max delay \(maxDelay) s); last log: \(last.suffix(1500))")
                return
            }
            let log = dir.appendingPathComponent("log-\(attempts).txt")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["convert", src.path, "--out", out.path, "--remove-originals", removal, "--jobs", "2"]
            p.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path, "SWIFT_BACKTRACE": "enable=no"]
            let h = try FileHandle(forWritingTo: log)
            p.standardOutput = h
            p.standardError = h
            let t0 = Date()
            try p.run()
            runs += 1
            // Kill at a random moment; the run after a natural finish is left alone and must have nothing to do.
            // Two kills in three at a random moment; one in three the instant the removal step has removed a
            // first original (the narrowest window: some originals gone, their records maybe not yet written).
            let atRemoval = rng.next() % 3 == 0
            let delay = checkRun ? Double.infinity : 0.01 + (maxDelay - 0.01) * rng.unit()
            let present = Set(
                names.filter { FileManager.default.fileExists(atPath: src.appendingPathComponent($0).path) })
            while p.isRunning {
                if atRemoval && !checkRun {
                    if present.contains(where: {
                        !FileManager.default.fileExists(atPath: src.appendingPathComponent($0).path)
                    }) {
                        break
                    }
                } else if Date().timeIntervalSince(t0) >= delay {
                    break
                }
                usleep(1_000)
            }
            if p.isRunning {
                // Was the removal step under way? (an original gone while the process lives)
                kill(p.processIdentifier, SIGKILL)
            }
            p.waitUntilExit()
            try h.close()
            if p.terminationReason == .uncaughtSignal {
                kills += 1
                // On a loaded machine a run may need longer than the bound to get anywhere: widen it slowly.
                maxDelay = min(30, maxDelay * 1.15)
                if names.contains(where: {
                    !FileManager.default.fileExists(atPath: src.appendingPathComponent($0).path)
                }) {
                    killsAfterRemovalStarted += 1
                }
                continue
            }
            let took = Date().timeIntervalSince(t0)
            let status = p.terminationStatus
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(status == 0 || status == 1, "readback exited \(status): \(text.suffix(800))")
            if status != 0 && status != 1 { return }
            if text.contains("nothing to do:") {
                finished = true
            } else {
                #expect(!checkRun, "the run after a finished run still had work: \(text.suffix(800))")
                if checkRun { return }
                maxDelay = max(0.2, min(30, took * 1.1))
                checkRun = true
            }
        }

        // Invariants.
        let db = try Database(
            path: out.appendingPathComponent(".readback/state.db").path, migrations: Schema.migrations)
        let rows = try db.query("SELECT source_path, output_path, state, error FROM items ORDER BY source_path")
        #expect(rows.count == names.count)
        for r in rows {
            let state = r.string("state") ?? ""
            #expect(["removed", "kept", "failed", "verified"].contains(state), "unfinished item \(r)")
            let source = r.string("source_path") ?? ""
            let output = r.string("output_path") ?? ""
            if FileManager.default.fileExists(atPath: source) {
                #expect(state != "removed", "\(source) is present but recorded as removed")
                if state == "kept" { kept += 1 }
                continue
            }
            // The original is gone: its output must be there, verified, and pass audit against a pristine copy.
            #expect(state == "removed", "\(source) is gone but its item is \(state)")
            removed += 1
            let copy = pristine.appendingPathComponent((source as NSString).lastPathComponent)
            if removal == "trash" {
                let trash = dir.appendingPathComponent(".local/share/Trash")
                let name = (source as NSString).lastPathComponent
                #expect(
                    FileManager.default.contentsEqual(
                        atPath: trash.appendingPathComponent("files/" + name).path, andPath: copy.path),
                    "\(name) is not in the Trash")
                #expect(
                    FileManager.default.fileExists(atPath: trash.appendingPathComponent("info/\(name).trashinfo").path))
            }
            let verdict = try AuditVerifier(decoders: .inProcess).verify(
                source: copy, output: URL(fileURLWithPath: output))
            guard case .clean = verdict else {
                Issue.record("\(output) does not pass audit: \(verdict)")
                continue
            }
        }
        // In the Trash, every .trashinfo has its file (no entry pointing at nothing).
        let trash = dir.appendingPathComponent(".local/share/Trash")
        let infos =
            (try? FileManager.default.contentsOfDirectory(atPath: trash.appendingPathComponent("info").path)) ?? []
        for info in infos {
            let file = trash.appendingPathComponent("files/" + String(info.dropLast(".trashinfo".count))).path
            #expect(FileManager.default.fileExists(atPath: file), "orphan \(info)")
        }
        // No temp file anywhere.
        let leftovers =
            FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(FileOps.tempPrefix) } ?? []
        #expect(leftovers.isEmpty, "temp files left: \(leftovers)")
    }
    print(
        "crash test (\(removal)): \(kills) kills (\(killsAfterRemovalStarted) after removal had started) over \(rounds) rounds, \(runs) runs; "
            + "\(removed) originals removed with verified outputs, \(kept) kept; "
            + String(format: "%.0f s", Date().timeIntervalSince(started)))
    #expect(kills >= wantedKills)
    #expect(removed > 0, "no original was ever removed: the test would not show anything")
}
