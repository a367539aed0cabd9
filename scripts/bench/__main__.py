"""`make bench`: Readback side by side with the tools people would use instead, and with the floor.

    python3 scripts/bench [READBACK_BIN]      (scripts/bench.sh builds readback-ladder and calls this)

Stdlib-only benchmark tooling, not product code. Modules: harness (timing, interleaved rounds, peak RSS), inputs
(generated RAWs, the real-world corpus), readback (the binary under test and its defaults), peers (the other tools
and the floor), comparisons (what runs against what), noise (the sensor-noise comparison: per ISO and on the real
camera DNGs), goals (the bounds and goal lines), report (JSON, tables).
Knobs are environment variables (docs/bench.md has the list): BENCH_QUICK=1 (the committed small chart and small
folders, 3 rounds: a smoke test, not a measurement), BENCH_PAIRS, BENCH_SIZES (24 and/or 50 MP), BENCH_SCALE,
BENCH_META_COPIES, BENCH_INFO_FILES, BENCH_DECODE_FILES, BENCH_DECODE_ALL, BENCH_REF_ROUNDS, BENCH_SCALE_ROUNDS,
BENCH_CORPUS, BENCH_QUALITY / BENCH_PRESET / BENCH_CHROMA / BENCH_DEPTH, BENCH_OUT, BENCH_FLOOR, BENCH_ONLY,
BENCH_ISOS, BENCH_NOISE_PAIRS, BENCH_MATCH_CROP (the sensor-noise comparison, noise.py), BENCH_WORKER_COPIES (the
decoder workers' cost, workers.py).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import comparisons
import noise
import peers
import report
import workers
from goals import audit_goals, baseline_goals, report_goals, convert_goals, goal, noise_goals, worker_goals
from harness import ENV, PAIRS, QUICK, ROOT, config
from inputs import find_corpus, generate_large
from readback import Readback, converter_defaults, floor_settings


def baseline(work):
    """BENCH_BASELINE: another readback binary (an earlier build) whose audits run in the same rounds on the same
    files, for before/after rows (docs/bench.md); BENCH_BASELINE_REV=REV builds that revision's release binary in a
    temporary git worktree first (about 5 minutes on 2 cores)."""
    path, rev = ENV.get("BENCH_BASELINE"), ENV.get("BENCH_BASELINE_REV")
    if rev and not path:
        tree = os.path.join(work, "baseline")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", tree, rev], check=True)
        build = ENV.get("SWIFT_RELEASE", "swift build -c release").split()
        subprocess.run(build + ["--product", "readback"], cwd=tree, check=True)
        path = os.path.join(tree, ".build", "release", "readback")
    return Readback(path, needs_ladder=False) if path else None


def main():
    t0 = time.time()
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "readback"))
    out_json = ENV.get("BENCH_OUT", os.path.join(ROOT, "Reports", "bench.json"))
    only = ENV.get("BENCH_ONLY", "")
    if only not in ("", "audit", "report", "convert", "noise", "workers"):
        raise SystemExit(f"bench: BENCH_ONLY takes audit, report, convert, noise or workers, not {only!r}")
    rb = Readback(binary, needs_ladder=only not in ("audit", "report", "workers"))
    defaults = converter_defaults(rb)
    results = {"schemaVersion": 1, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "quick": QUICK, "pairs": PAIRS, "config": config(), "machine": report.machine(),
               "tools": peers.tool_versions(rb), "converter_defaults": defaults, "comparisons": [], "goals": []}
    work = tempfile.mkdtemp(prefix="readback-bench-")
    # A stopped run (Ctrl-C, or SIGTERM from a timeout) still writes the rows that finished, marked "stopped".
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    audit_ran = False
    try:
        floor = peers.compile_floor(work)
        corpus = find_corpus()
        if only in ("", "workers"):
            for comp in workers.worker_comparisons(rb, work):
                results["comparisons"].append(comp)
                results["goals"] += list(worker_goals(comp))
        if only == "report" and corpus:
            audit_ran = True
            for comp in comparisons.report_comparisons(rb, corpus, work):
                results["comparisons"].append(comp)
        elif only not in ("convert", "noise", "report", "workers"):
            if corpus:
                audit_ran = True
                for comp in comparisons.audit_comparisons(rb, floor, corpus, work, baseline(work)):
                    results["comparisons"].append(comp)
            else:
                results["goals"].append(goal("audit comparisons", "audit", None, ">=", 0,
                                             why="no real-world corpus (set BENCH_CORPUS)"))
        if only not in ("audit", "report", "noise", "workers"):
            for comp, px in comparisons.convert_comparisons(rb, floor, work, floor_settings(defaults), defaults):
                results["comparisons"].append(comp)
                results["goals"] += convert_goals(comp, px)
        if only not in ("audit", "report", "convert", "workers"):
            generated = None if QUICK else generate_large(rb, work)[0]
            comp = noise.noise_comparison(rb, work, generated, corpus)
            results["comparisons"].append(comp)
            results["goals"] += noise_goals(comp)
    except KeyboardInterrupt:
        results["stopped"] = "interrupted: the rows below are those that finished"
        print("bench: stopped; writing the rows that finished", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["git", "-C", ROOT, "worktree", "prune"], capture_output=True)
    if audit_ran:  # the audit goals read the audit comparisons, whichever finished
        done = results["comparisons"]
        first = [] if only == "report" else list(audit_goals(done))
        results["goals"] = first + list(report_goals(done)) + list(baseline_goals(done)) + results["goals"]
    results["elapsed_s"] = time.time() - t0
    results["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out_md = report.write(results, out_json)
    print(f"bench: wrote {out_json} and {out_md}", file=sys.stderr)


if __name__ == "__main__":
    main()
