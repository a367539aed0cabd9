"""Timing, interleaved rounds and peak RSS: what every comparison of `make bench` is measured with.

Every comparison interleaves its sides (A B A B ..., PAIRS rounds) in one run on the same files and quotes ratios of
medians with the per-round min-max, because these 2-core machines are shared and noisy. Peak RSS comes from wait4's
rusage: the largest process of the command's tree.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = os.environ
QUICK = ENV.get("BENCH_QUICK") == "1"
PAIRS = int(ENV.get("BENCH_PAIRS", "3" if QUICK else "5"))
# Rounds of Readback and the floor at the RAW sizes above the smallest (the 50 MP chart): its conversions are twice
# the 24 MP chart's, and on a quiet machine three rounds' median sits within a few per cent of five's.
LARGE_PAIRS = int(ENV.get("BENCH_LARGE_PAIRS", str(PAIRS) if QUICK or "BENCH_PAIRS" in ENV else "3"))
SIZES = [float(s) for s in ENV.get("BENCH_SIZES", "24,50").split(",") if s.strip()]
SCALE = [int(s) for s in ENV.get("BENCH_SCALE", "100,300" if QUICK else "100,1000,10000").split(",") if s.strip()]
META_COPIES = int(ENV.get("BENCH_META_COPIES", "2" if QUICK else "10"))
INFO_FILES = int(ENV.get("BENCH_INFO_FILES", "6" if QUICK else "20"))
DECODE_FILES = int(ENV.get("BENCH_DECODE_FILES", "4" if QUICK else "12"))
DECODE_ALL = ENV.get("BENCH_DECODE_ALL") == "1"
# Peers and sides that decide no goal (RawTherapee, darktable, vips, heif-info, the hash-cost side of the report
# comparison) run this many rounds: their rows are reference points (docs/bench.md, "Cuts").
REF_ROUNDS = int(ENV.get("BENCH_REF_ROUNDS", "1"))
SCALE_ROUNDS = int(ENV.get("BENCH_SCALE_ROUNDS", "2" if QUICK else "3"))
TIMEOUT = float(ENV.get("BENCH_TIMEOUT", "900"))
# The sensor-noise part (noise.py): the noisy charts' ISOs and the rounds per image. Its untimed measures run where a
# goal reads them (the shipped file's fidelity at ISO 3200); BENCH_NOISE_FULL=1 runs them at every ISO, with the
# converter's quality and noise sigma and heif-enc at equal fidelity on the crop (the frontier matches heif-enc on the
# charts and the real RAWs).
ISOS = [int(s) for s in ENV.get("BENCH_ISOS", "800,3200").split(",") if s.strip()]
NOISE_PAIRS = int(ENV.get("BENCH_NOISE_PAIRS", "2"))
NOISE_FULL = ENV.get("BENCH_NOISE_FULL", "1" if QUICK else "0") == "1"
# The reference peers (vips, ImageMagick, RawTherapee, darktable: no goal reads them) run on the smallest RAW size
# only; BENCH_REF_ALL_SIZES=1 runs them at every size.
REF_ALL_SIZES = ENV.get("BENCH_REF_ALL_SIZES") == "1"
# Peers whose ratio sits far from its goal's bound in every recorded run (the dcraw pipeline, 0.33-0.42 against
# <= 0.5; exiftool, 38-56x against >= 10x; the libheif decode loop, 0.44-0.50 against <= 1.2) run this many rounds:
# their median moves less than the distance to the bound (docs/bench.md, "Cuts").
PEER_ROUNDS = int(ENV.get("BENCH_PEER_ROUNDS", str(PAIRS) if QUICK else "3"))
# The frontier (frontier.py): rounds of the effort levels other than the default in the convert parts (no time goal
# reads them), rounds of every side on the real RAWs, and heif-enc's qualities on the crop.
EFFORT_ROUNDS = int(ENV.get("BENCH_EFFORT_ROUNDS", "1"))
FRONTIER_ROUNDS = int(ENV.get("BENCH_FRONTIER_ROUNDS", "1"))
# q50 for the real RAWs, whose levels all land between q50 and q55 (adding it later costs another render), q65 for the
# 50 MP chart's default level.
FRONTIER_HEIF_Q = [int(s) for s in ENV.get("BENCH_FRONTIER_HEIF_Q", "50,55,60,65").split(",") if s.strip()]
# The real RAWs' whole conversions at the levels other than the default (their sizes at equal fidelity are the crop
# measure's; no goal reads their whole-file times): BENCH_FRONTIER_ALL_LEVELS=1.
FRONTIER_ALL_LEVELS = ENV.get("BENCH_FRONTIER_ALL_LEVELS") == "1"
# The centred crop on which heif-enc is matched to Readback's fidelity, in the convert and frontier parts
# (frontier.measure) and in the noise part (noise.heif_enc_match): a whole 24 or 50 MP frame at heif-enc's preset
# slow costs about a minute per quality on 2 cores.
MATCH_CROP = ENV.get("BENCH_MATCH_CROP", "1024x768" if QUICK else "2048x1536")
# The decoder workers' part (workers.py): which generated RAWs, and how many copies of each (--jobs 2). Four copies:
# two files per worker, so the run shows what a worker costs per file in a long run (its kept shared memory reused),
# not only its start and its first file (docs/bench.md).
WORKER_SIZES = [float(s) for s in ENV.get("BENCH_WORKER_SIZES", "24").split(",") if s.strip()]
WORKER_COPIES = int(ENV.get("BENCH_WORKER_COPIES", "4"))
# The workers part's rounds: its goal (<= 1.05) is within a loaded machine's round-to-round spread, and the overhead
# it measures is a few per cent, so 5 two-file rounds' medians fell on either side of the bound (docs/bench.md). Three
# four-file rounds (two files per worker), their median on a quiet machine (docs/bench.md, "Cuts").
WORKER_ROUNDS = int(ENV.get("BENCH_WORKER_ROUNDS", str(PAIRS) if QUICK or "BENCH_PAIRS" in ENV else "3"))
# The effort level the workers part converts at: the workers cost decoding and the hand-over of the frame, not
# encoding, so the fastest level makes their cost the largest share of the run (a stricter test, in less time).
WORKER_EFFORT = ENV.get("BENCH_WORKER_EFFORT", "fast")
# The --report part (reportcost.py).
REPORT_FILES = int(ENV.get("BENCH_REPORT_FILES", "350" if QUICK else "10000"))
RSS_FILES = int(ENV.get("BENCH_RSS_FILES", "1000" if QUICK else "100000"))


def config():
    """The knobs a run's ratios depend on; two runs are compared only when these are equal."""
    return {"quick": QUICK, "pairs": PAIRS, "large_pairs": LARGE_PAIRS,
            "sizes": "committed chart" if QUICK else SIZES, "scale": SCALE,
            "meta_copies": META_COPIES, "info_files": INFO_FILES, "decode_files": DECODE_FILES,
            "decode_all": DECODE_ALL, "ref_rounds": REF_ROUNDS, "ref_all_sizes": REF_ALL_SIZES, "isos": ISOS,
            "noise_pairs": NOISE_PAIRS, "noise_full": NOISE_FULL, "match_crop": MATCH_CROP,
            "worker_sizes": "committed chart" if QUICK else WORKER_SIZES, "worker_copies": WORKER_COPIES,
            "worker_rounds": WORKER_ROUNDS, "worker_effort": WORKER_EFFORT, "report_files": REPORT_FILES,
            "rss_files": RSS_FILES, "peer_rounds": PEER_ROUNDS, "effort_rounds": EFFORT_ROUNDS,
            "frontier_rounds": FRONTIER_ROUNDS, "frontier_heif_q": FRONTIER_HEIF_Q,
            "frontier_all_levels": FRONTIER_ALL_LEVELS}


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Run:
    """One finished command: wall seconds, peak RSS in MB, CPU seconds, exit code, output."""

    def __init__(self, wall, rss_mb, cpu, rc, out, err):
        self.wall, self.rss_mb, self.cpu, self.rc, self.out, self.err = wall, rss_mb, cpu, rc, out, err

    def json_line(self):
        """The last line of stdout that parses as JSON, or None."""
        for line in reversed(self.out.strip().splitlines()):
            try:
                return json.loads(line)
            except ValueError:
                continue
        return None


def reset_peak_rss():
    """Resets this process's peak RSS to its current RSS (/proc/self/clear_refs, "5"). A child started by vfork and
    exec (subprocess does) takes its parent's peak as its own starting peak, so without this every command's wait4
    peak would be at least the bench's own peak so far: a 50 MP conversion read as 1007 MiB where it peaks at 652."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def run(cmd, env=None, cwd=None, timeout=TIMEOUT):
    """Runs cmd (a list), timing it and reading its tree's peak RSS from wait4; kills the group on timeout."""
    e = dict(ENV)
    e.update(env or {})
    reset_peak_rss()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=e, cwd=cwd,
                                 start_new_session=True)
        except OSError as x:
            return Run(0.0, 0.0, 0.0, 127, "", str(x))
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except BaseException:  # the bench is stopping: its command (in its own session) stops with it
            timer.cancel()
            os.killpg(p.pid, signal.SIGKILL)
            os.wait4(p.pid, 0)
            raise
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime, p.returncode,
                   out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def first_line(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def stats(xs):
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


class Side:
    """One tool in a comparison, run once per round. `unavailable` is None or the reason it cannot run."""

    def __init__(self, name, label, make_cmd, *, time_from=None, check=None, env=None, unavailable=None,
                 cleanup=None, note=None, max_rounds=None):
        self.name, self.label, self.make_cmd = name, label, make_cmd
        self.max_rounds = max_rounds  # reference points run fewer rounds than the goal comparisons
        self.time_from = time_from  # optional fn(Run) -> seconds (e.g. the floor's own timer)
        self.check = check  # optional fn(Run, round_dir) -> (ok, info dict)
        self.env, self.unavailable, self.cleanup, self.note = env, unavailable, cleanup, note
        self.times, self.walls, self.rss, self.failures, self.infos = [], [], [], [], []
        self.cpus = []  # user + system seconds of the process tree (wait4), per successful round
        self.by_round = {}
        self.last = name

    def run_once(self, round_dir, round_no=0):
        os.makedirs(round_dir, exist_ok=True)
        r = run(self.make_cmd(round_dir), env=self.env)
        ok, info = (r.rc == 0, {}) if self.check is None else self.check(r, round_dir)
        if not ok:
            self.failures.append(f"exit {r.rc}: {first_line(r.err) or first_line(r.out)}"[:300])
        else:
            t = self.time_from(r) if self.time_from else r.wall
            self.times.append(t)
            self.by_round[round_no] = t
            self.walls.append(r.wall)
            self.cpus.append(r.cpu)
            self.rss.append(r.rss_mb)
            self.infos.append(info)
        self.last = f"{self.name} {r.wall:.2f}s" if ok else f"{self.name} FAILED"
        if self.cleanup:
            self.cleanup(round_dir)
        else:
            shutil.rmtree(round_dir, ignore_errors=True)
        return ok

    def summary(self):
        d = {"name": self.name, "label": self.label}
        if self.unavailable:
            d["available"] = False
            d["reason"] = self.unavailable
            return d
        d["available"] = bool(self.times)
        d["seconds"] = stats(self.times)
        if self.time_from:
            d["process_wall_seconds"] = stats(self.walls)
        d["peak_rss_mb"] = max(self.rss) if self.rss else None
        if self.cpus:
            d["cpu_seconds"] = stats(self.cpus)
        if self.failures:
            d["failures"] = self.failures
            if not self.times:
                d["reason"] = "every run failed: " + self.failures[0]
        if self.note:
            d["note"] = self.note
        merged = {}
        for info in self.infos:
            for k, v in info.items():
                merged.setdefault(k, v)
        d.update(merged)
        return d


def interleave(sides, rounds, work):
    """Runs the available sides in turn, A B C A B C ..., for `rounds` rounds."""
    live = [s for s in sides if not s.unavailable]
    for r in range(rounds):
        for s in live:
            if s.max_rounds is not None and r >= s.max_rounds:
                s.last = f"{s.name} (done)"
                continue
            s.run_once(os.path.join(work, f"{s.name}-{r}"), r)
        log("  round %d/%d: %s" % (r + 1, rounds, ", ".join(s.last for s in live)))


def ratio(a, b):
    """Ratio of medians a/b over the rounds where both sides ran, with the min-max of the per-round ratios."""
    if not a.times or not b.times:
        return None
    common = [i for i in sorted(a.by_round) if b.by_round.get(i)]
    if not common:
        return None
    per = [a.by_round[i] / b.by_round[i] for i in common]
    return {"ratio": statistics.median(a.by_round[i] for i in common) / statistics.median(b.by_round[i] for i in common),
            "rounds": len(common), "per_round_min": min(per), "per_round_max": max(per)}


def cpu_ratio(a, b):
    """Ratio of the two sides' median CPU time (user + system of the whole process tree): what one side costs the
    machine over the other, far less moved by other load on a shared machine than the wall time; None when a side
    did not run."""
    if not a.cpus or not b.cpus or not statistics.median(b.cpus):
        return None
    return statistics.median(a.cpus) / statistics.median(b.cpus)


def throughput(a, b):
    """b's time over a's: a's throughput advantage, with the per-round range; None when a side did not run."""
    q = ratio(b, a)
    if not q:
        return None
    return {"throughput_ratio": q["ratio"], "per_round_min": q["per_round_min"], "per_round_max": q["per_round_max"]}
