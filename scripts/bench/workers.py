"""The decoder workers' cost (docs/security.md): the same convert (LibRaw in workers, and its read-back audit's libheif
decodes) and the same audit, with the decoders in worker processes (the default) and in the parent process
(READBACK_DECODERS=in-process), interleaved; the peak RSS of the parent and of the largest worker, from the run's
own report (READBACK_WORKER_STATS=1).

The inputs are BENCH_WORKER_SIZES (default: the 24 MP chart only) times BENCH_WORKER_COPIES (default 4: two files
per job of --jobs 2, so a worker's kept shared memory is reused as in a long run; docs/security.md, "Kept grants").
The 50 MP chart in 4 copies made this part 5 to 10 minutes of a 20-minute run (docs/bench.md, "Cuts").
BENCH_WORKER_ROUNDS rounds (default 3; BENCH_PAIRS when that is set): the overhead measured is a few per cent, within
one round's spread on a loaded machine. BENCH_WORKER_EFFORT (default fast): the decoders' share of the run is the
largest at the fastest encoder level, so their overhead shows the most there."""
import os
import re
import shutil

from harness import (QUICK, WORKER_COPIES, WORKER_EFFORT, WORKER_ROUNDS, WORKER_SIZES, Side, cpu_ratio, interleave, log,
                     ratio, run)
from inputs import raw_inputs, stage

# The audit side audits each converted HEIC this many times (hard links): 4 HEICs audit in 2 s, of which the workers'
# start (about 0.14 s of CPU each) is a share no long audit sees; 8 files are four per worker at --jobs 2.
AUDIT_COPIES = 2

STATS = re.compile(r"decoder workers: (\d+) started; peak RSS: parent (\d+) MB, largest worker (\d+) MB")


def _check(r, d):
    m = STATS.search(r.err)
    info = {"workers_started": int(m.group(1)), "parent_peak_rss_mb": int(m.group(2)),
            "largest_worker_peak_rss_mb": int(m.group(3))} if m else {}
    return r.rc in (0, 1), info


def convert_flags():
    return ["--jobs", "2", "--effort", WORKER_EFFORT, "--quiet"]


def titles(files=None):
    """{comparison id: title} for `files` inputs (default: as configured), also the NOT MEASURED goals' names."""
    n = files if files is not None else (1 if QUICK else len(WORKER_SIZES)) * WORKER_COPIES
    return {"workers_convert": f"convert {n} RAWs (--jobs 2 --effort {WORKER_EFFORT}): decoders in workers vs in "
                               "process",
            "workers_audit": f"audit {n * AUDIT_COPIES} HEICs (--jobs 2): decoders in workers vs in process"}


def worker_comparisons(rb, work):
    """Yields the convert and the audit comparison, workers against in process."""
    files = [p for _, p, _ in raw_inputs(rb, work, WORKER_SIZES)]
    src = os.path.join(work, "workers-src")
    stage(files, src, WORKER_COPIES)
    converted = os.path.join(work, "workers-heic")
    heics = os.path.join(work, f"workers-heic-x{AUDIT_COPIES}")
    names = titles(len(files) * WORKER_COPIES)
    def keep(d):
        """The convert rounds' outputs are the audit's inputs: the last round's are kept (no conversion of its own)."""
        if os.path.isdir(d) and any(f.endswith(".heic") for f in os.listdir(d)):
            shutil.rmtree(converted, ignore_errors=True)
            shutil.move(d, converted)
        shutil.rmtree(d, ignore_errors=True)

    for cid, make in [
        ("workers_convert", lambda d: [rb.bin, "convert", src, "--out", d, *convert_flags()]),
        ("workers_audit", lambda d: [rb.bin, "audit", "--outputs", heics, "--jobs", "2", "--no-history", "--quiet"]),
    ]:
        if cid == "workers_audit":
            if not os.path.isdir(converted):  # no convert round succeeded
                run([rb.bin, "convert", src, "--out", converted, *convert_flags()], env=rb.env(work))
            outputs = sorted(os.path.join(converted, f) for f in os.listdir(converted) if f.endswith(".heic"))
            stage(outputs, heics, AUDIT_COPIES)
        log(f"{cid}: {WORKER_ROUNDS} interleaved rounds")
        stats_env = dict(rb.env(work), READBACK_WORKER_STATS="1")
        sides = [Side("workers", "decoders in worker processes (default)", make, env=stats_env, check=_check,
                      cleanup=keep if cid == "workers_convert" else None),
                 Side("in-process", "decoders in the parent (READBACK_DECODERS=in-process)", make,
                      env=dict(stats_env, READBACK_DECODERS="in-process"), check=_check)]
        interleave(sides, WORKER_ROUNDS, os.path.join(work, "rounds"))
        comp = {"id": cid, "title": names[cid], "sides": [s.summary() for s in sides]}
        r = ratio(sides[0], sides[1])
        if r:
            comp["ratios"] = {"in-process": r}
        c = cpu_ratio(sides[0], sides[1])
        if c:
            comp["cpu_ratio"] = c
        yield comp
