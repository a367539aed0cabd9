"""The decoder workers' cost (docs/security.md): the same convert (LibRaw in workers, and its read-back audit's libheif
decodes) and the same audit, with the decoders in worker processes (the default) and in the parent process
(READBACK_DECODERS=in-process), interleaved; the peak RSS of the parent and of the largest worker, from the run's
own report (READBACK_WORKER_STATS=1)."""
import os
import re

from harness import PAIRS, Side, interleave, log, ratio
from inputs import raw_inputs, stage

STATS = re.compile(r"decoder workers: (\d+) started; peak RSS: parent (\d+) MB, largest worker (\d+) MB")


def _check(r, d):
    m = STATS.search(r.err)
    info = {"workers_started": int(m.group(1)), "parent_peak_rss_mb": int(m.group(2)),
            "largest_worker_peak_rss_mb": int(m.group(3))} if m else {}
    return r.rc in (0, 1), info


def worker_comparisons(rb, work):
    """Yields the convert and the audit comparison, workers against in process."""
    files = [p for _, p, _ in raw_inputs(rb, work)]
    copies = int(os.environ.get("BENCH_WORKER_COPIES", "4"))
    src = os.path.join(work, "workers-src")
    stage(files, src, copies)
    heics = os.path.join(work, "workers-heic")
    for cid, title, make in [
        ("workers_convert", f"convert {len(files) * copies} RAWs (--jobs 2): decoders in workers vs in process",
         lambda d: [rb.bin, "convert", src, "--out", d, "--jobs", "2", "--quiet"]),
        ("workers_audit", f"audit {len(files) * copies} HEICs (--jobs 2): decoders in workers vs in process",
         lambda d: [rb.bin, "audit", "--outputs", heics, "--jobs", "2", "--no-history", "--quiet"]),
    ]:
        if cid == "workers_audit" and not os.path.isdir(heics):
            from harness import run
            run([rb.bin, "convert", src, "--out", heics, "--jobs", "2", "--quiet"], env=rb.env(work))
        log(f"{cid}: {PAIRS} interleaved rounds")
        stats_env = dict(rb.env(work), READBACK_WORKER_STATS="1")
        sides = [Side("workers", "decoders in worker processes (default)", make, env=stats_env, check=_check),
                 Side("in-process", "decoders in the parent (READBACK_DECODERS=in-process)", make,
                      env=dict(stats_env, READBACK_DECODERS="in-process"), check=_check)]
        interleave(sides, PAIRS, os.path.join(work, "rounds"))
        comp = {"id": cid, "title": title, "sides": [s.summary() for s in sides]}
        r = ratio(sides[0], sides[1])
        if r:
            comp["ratios"] = {"in-process": r}
        yield comp
