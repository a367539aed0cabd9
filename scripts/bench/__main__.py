"""`make bench`: Readback side by side with the tools people would use instead, and with the floor.

    python3 scripts/bench [READBACK_BIN]      (scripts/bench.sh builds readback-ladder and calls this)

Stdlib-only benchmark tooling, not product code. Modules: harness (timing, interleaved rounds, peak RSS, the knobs),
parts (the run as timed parts against BENCH_BUDGET_MIN, results written after each), inputs (generated RAWs, the
real-world corpus), readback (the binary under test and its defaults), peers (the other tools and the floor),
comparisons (what runs against what), frontier (each effort level against heif-enc at equal fidelity and the dcraw
pipeline), reportcost (--report's cost), workers (the decoder workers' cost), noise (the sensor-noise comparison),
cache (what does not change between runs), goals (the bounds and goal lines), report (JSON, tables). test_bench.py
tests the budget, the incremental writes, the frontier's arithmetic and the cache keys without any binary.
Knobs are environment variables (docs/bench.md has the list): BENCH_BUDGET_MIN (default 18.5; 0: none), BENCH_GRACE_MIN
(1.5), BENCH_QUICK=1 (the committed small chart and small folders, 3 rounds: a smoke test, not a measurement),
BENCH_PAIRS, BENCH_LARGE_PAIRS, BENCH_SIZES (24 and/or 50 MP), BENCH_SCALE, BENCH_META_COPIES, BENCH_INFO_FILES,
BENCH_DECODE_FILES, BENCH_DECODE_ALL, BENCH_REF_ROUNDS, BENCH_REF_ALL_SIZES, BENCH_SCALE_ROUNDS, BENCH_CORPUS,
BENCH_QUALITY / BENCH_PRESET / BENCH_CHROMA / BENCH_DEPTH, BENCH_OUT, BENCH_FLOOR, BENCH_ONLY, BENCH_ISOS,
BENCH_NOISE_PAIRS, BENCH_NOISE_FULL, BENCH_MATCH_CROP (the frontier's crop, and heif-enc's match in the noise part),
BENCH_PEER_ROUNDS, BENCH_EFFORT_ROUNDS, BENCH_FRONTIER_ROUNDS, BENCH_FRONTIER_HEIF_Q, BENCH_WORKER_SIZES,
BENCH_WORKER_COPIES, BENCH_WORKER_ROUNDS, BENCH_WORKER_EFFORT.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import cache
import comparisons
import frontier
import noise
import peers
import report
import workers
from harness import ENV, ISOS, QUICK, REPORT_FILES, ROOT, RSS_FILES, config, log
from inputs import convert_sizes, find_corpus, generate_large, generated_ok, real_inputs
from parts import Budget, Deadline, Guard, Part, run_parts, snapshot
from readback import Readback, converter_defaults, floor_settings

PART_NAMES = ("workers", "audit", "report", "convert", "frontier", "noise")


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


def parse_only(text):
    """BENCH_ONLY: one part name or several, comma separated; empty: every part."""
    only = {t.strip() for t in text.split(",") if t.strip()}
    bad = only - set(PART_NAMES)
    if bad:
        raise SystemExit(f"bench: BENCH_ONLY takes {', '.join(PART_NAMES)} (comma separated), not {sorted(bad)}")
    return only


def plan(rb, defaults, floor, corpus, work, only, levels=None):
    """The parts of this run, in order, each with the stubs of the comparisons that decide its goals. Issue 33's
    goals first (workers, --report, convert at each size, with the charts' frontier), then the real RAWs' frontier,
    the audit's and the sensor noise's: on a loaded machine the parts at the end are the ones the budget skips."""
    def want(name):
        return not only or name in only

    def inputs():
        generated_ok(rb, work)  # raises when the generator failed: the parts that need its RAWs are then skipped
        return []

    settings = floor_settings(defaults)
    no_corpus = None if corpus else "no real-world corpus (set BENCH_CORPUS)"
    needs = () if QUICK else ("inputs",)  # BENCH_QUICK uses committed files, nothing generated
    out = []
    if needs and any(want(n) for n in ("workers", "convert", "noise")):  # the frontier part reads the corpus
        out.append(Part("inputs", "the generated RAWs (readback corpus generate --large, from the cache when unchanged)",
                        inputs))
    if want("workers"):
        out.append(Part("workers", "decoder workers against in-process decoding",
                        lambda: workers.worker_comparisons(rb, work),
                        expects=[{"id": k, "title": t} for k, t in workers.titles().items()], needs=needs))
    if want("report"):
        out.append(Part("report", "--report's cost, Chromium's load of the reports, a 100,000-file audit's peak RSS",
                        lambda: comparisons.report_comparisons(rb, corpus, work),
                        expects=[{"id": "audit_report", "files": REPORT_FILES},
                                 {"id": "audit_report_rss", "files": RSS_FILES}], unavailable=no_corpus))
    if want("convert"):
        for mp in convert_sizes():
            out.append(Part(f"convert_{mp:g}mp", f"convert one {mp:g} MP RAW against the floor and the peers",
                            lambda mp=mp: [comparisons.convert_comparison(rb, floor, work, settings, defaults, mp,
                                                                          levels)],
                            expects=[{"id": f"convert_{mp:g}mp", "megapixels": mp}], needs=needs))
    if want("frontier"):
        raws = real_inputs(corpus)
        if QUICK:  # a smoke test: the two smallest
            raws = sorted(raws, key=os.path.getsize)[:2]
        level = defaults.get("effort") or "balanced"
        out.append(Part("frontier", "each effort level, heif-enc at equal fidelity and the dcraw pipeline on the "
                                    "corpus's real RAWs",
                        lambda: (frontier.real_comparison(rb, floor, work, dng, levels, level) for dng in raws),
                        expects=[{"id": "frontier_" + frontier.stem(p), "label": os.path.basename(p)} for p in raws],
                        unavailable=no_corpus or (None if raws else "the corpus has no RAW with pixels")
                        or (None if levels else "the effort levels' settings could not be read")))
    if want("audit"):
        base = [{"name": "baseline"}] if ENV.get("BENCH_BASELINE") or ENV.get("BENCH_BASELINE_REV") else []
        out.append(Part("audit", "audit against exiftool, heif-info and libheif; per-file cost by folder size",
                        lambda: comparisons.audit_comparisons(rb, floor, corpus, work, baseline(work)),
                        expects=[{"id": "audit_nodecode", "sides": base}, {"id": "audit_decode", "sides": base}],
                        unavailable=no_corpus))
    if want("noise"):
        out.append(Part("noise", "sensor noise: the 24 MP chart per ISO and the clean chart",
                        lambda: [noise.noise_comparison(rb, work, None if QUICK else generate_large(rb, work)[0])],
                        expects=[{"id": "noise", "images": [{"iso": i, "convert": {}} for i in ISOS]}], needs=needs))
    return out


def main():
    budget = Budget()
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "readback"))
    out_json = ENV.get("BENCH_OUT", os.path.join(ROOT, "Reports", "bench.json"))
    only = parse_only(ENV.get("BENCH_ONLY", ""))
    rb = Readback(binary, needs_ladder=not only or bool(only & {"convert", "frontier", "noise"}))
    defaults = converter_defaults(rb)
    previous = report.load_previous(out_json)  # before this run's first write replaces it
    results = report.skeleton(config=config(), machine=report.machine(), tools=peers.tool_versions(rb),
                              converter_defaults=defaults, budget_min=budget.minutes if budget.limited else None,
                              grace_min=budget.grace if budget.limited else None, only=sorted(only))
    # The last run's time per part under the same configuration: a part that cannot finish before the deadline is
    # skipped rather than started and stopped.
    times_key = cache.config_key(config())
    times = cache.load("parts", times_key) or {}

    def remember(pid, seconds):
        times[pid] = seconds
        cache.store("parts", times_key, times)

    todo = []

    def write():
        report.write(snapshot(results, todo, budget), out_json, previous)

    guard = Guard()
    # Ctrl-C, SIGTERM and the deadline (parts.Guard), counted from the budget's start, not from here.
    guard.install(budget.deadline() - budget.elapsed() if budget.limited else None)
    log(f"budget {budget.minutes:g} min (BENCH_BUDGET_MIN), deadline {budget.minutes + budget.grace:g} min"
        if budget.limited else "no budget (BENCH_BUDGET_MIN=0)")
    work = tempfile.mkdtemp(prefix="readback-bench-")
    try:
        floor = None
        try:
            with guard.running():
                floor = peers.compile_floor(work)
        except (KeyboardInterrupt, Deadline):
            pass  # guard.stop or guard.expired is set: every part is then skipped, and the results say why
        try:
            levels = frontier.level_defaults(rb)
        except RuntimeError as e:
            levels = None
            log(f"the effort levels' settings: {e}")
        todo += plan(rb, defaults, floor, find_corpus(), work, only, levels)
        log("parts: " + ", ".join(p.id + (f" (~{times[p.id] / 60:.1f} min last time)" if p.id in times else "")
                                  for p in todo))
        run_parts(todo, results, write, budget, guard, expected=times.get, done=remember)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["git", "-C", ROOT, "worktree", "prune"], capture_output=True)
    results["state"] = "stopped" if guard.stop else "finished"
    if guard.stop:
        results["stopped"] = f"interrupted ({guard.stop}): the rows below are those that finished"
    results["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out_md = report.write(snapshot(results, todo, budget), out_json, previous, echo=True)
    guard.uninstall()
    counts = {}
    for p in results["parts"]:
        counts[p["status"]] = counts.get(p["status"], 0) + 1
    log(f"total {budget.elapsed() / 60:.1f} min"
        + (f" (budget {budget.minutes:g} min)" if budget.limited else "") + ": "
        + ", ".join(f"{n} {s}" for s, n in counts.items()))
    print(f"bench: wrote {out_json} and {out_md}", file=sys.stderr)
    # Stopped by a signal: 128 + its number, as a shell reports it; a part that failed (an error, not a measurement
    # that missed its goal): 1, so a BENCH_QUICK smoke run in CI notices a broken harness. Over budget is no error.
    if guard.stop:
        sys.exit(128 + signal.Signals[guard.stop].value)
    if counts.get("failed"):
        sys.exit(1)


if __name__ == "__main__":
    main()
