"""Tests of the bench harness's own logic, with no binary and no peer tool (a few seconds): the budget, the results
written after every part (a part that raises, one interrupted, one killed with SIGKILL), the part statuses and the
NOT MEASURED goal lines of parts that did not finish, and the cache keys.

    python3 -B -m unittest discover -s scripts/bench -p 'test_bench.py' -v      (make test runs it)
"""
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import cache  # noqa: E402
import frontier  # noqa: E402
import goals  # noqa: E402
import parts  # noqa: E402
import report  # noqa: E402
from parts import Budget, Guard, Part, run_parts, snapshot  # noqa: E402

parts.log = lambda msg: None  # the runner's progress lines would only clutter the test output


class FakeClock:
    """A clock the tests move by hand, in minutes."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t

    def advance(self, minutes):
        self.t += minutes * 60


def ratio(r):
    return {"ratio": r, "rounds": 5, "per_round_min": r - 0.01, "per_round_max": r + 0.01}


def workers_comp(cid, r=1.01):
    return {"id": cid, "title": f"{cid} title", "sides": [], "ratios": {"in-process": ratio(r)}}


def nodecode_comp():
    return {"id": "audit_nodecode", "title": "audit", "sides": [],
            "vs_exiftool": {"throughput_ratio": 40.0, "per_round_min": 38.0, "per_round_max": 45.0}}


# The stubs __main__.plan gives its parts (the goals' names need these fields).
WORKERS = [{"id": "workers_convert", "title": "convert 2 RAWs"}, {"id": "workers_audit", "title": "audit 2 HEICs"}]
AUDIT = [{"id": "audit_nodecode", "sides": []}, {"id": "audit_decode", "sides": []}]
REPORT = [{"id": "audit_report", "files": 10000}, {"id": "audit_report_rss", "files": 100000}]
CONVERT24 = [{"id": "convert_24mp", "megapixels": 24}]
NOISE = [{"id": "noise", "images": [{"iso": 800, "convert": {}}, {"iso": 3200, "convert": {}}]}]
FRONTIER = [{"id": "frontier_sony", "label": "sony.dng"}]


class Run:
    """A run of `plan` into a temporary Reports folder: the results, and each bench.json as written, parsed."""

    def __init__(self, test, plan, budget=None, guard=None, expected=None, on_write=None):
        self.dir = tempfile.mkdtemp(prefix="bench-test-")
        test.addCleanup(lambda: subprocess.run(["rm", "-rf", self.dir]))
        self.out = os.path.join(self.dir, "bench.json")
        self.plan, self.budget = plan, budget or Budget(17, 3, clock=FakeClock())
        self.results = report.skeleton(machine={"cpu": "test"}, tools={"readback": "readback test"},
                                       budget_min=self.budget.minutes, grace_min=self.budget.grace)
        self.written = []  # every bench.json as it was on disk after each write
        self.on_write = on_write
        self.guard, self.expected = guard, expected

    def write(self):
        if self.on_write:
            self.on_write(len(self.written))
        report.write(snapshot(self.results, self.plan, self.budget), self.out)
        with open(self.out) as f:
            self.written.append(json.load(f))  # raises if the file is not valid JSON

    def on_disk(self):
        with open(self.out) as f:
            return json.load(f)

    def __call__(self):
        with contextlib.redirect_stderr(io.StringIO()):  # a failed part's traceback
            run_parts(self.plan, self.results, self.write, self.budget, self.guard, self.expected)
        return {p["id"]: p for p in self.on_disk()["parts"]}

    def goal(self, gid):
        return next(g for g in self.on_disk()["goals"] if g["id"] == gid)


class BudgetTests(unittest.TestCase):
    def test_a_part_starts_while_budget_is_left(self):
        clock = FakeClock()
        b = Budget(17, 3, clock=clock)
        clock.advance(16.9)
        self.assertIsNone(b.verdict())
        self.assertIsNone(b.verdict(expected=2 * 60))  # 16.9 + 2 is before the 20-minute deadline

    def test_no_part_starts_once_the_budget_is_spent(self):
        clock = FakeClock()
        b = Budget(17, 3, clock=clock)
        clock.advance(17)
        self.assertRegex(b.verdict(), r"^over budget: 17\.0 of 17 min spent")

    def test_a_part_that_cannot_finish_before_the_deadline_is_skipped(self):
        clock = FakeClock()
        b = Budget(17, 3, clock=clock)
        clock.advance(15)
        why = b.verdict(expected=6 * 60)  # 15 + 6 > 17 + 3
        self.assertTrue(why.startswith("over budget: it took 6.0 min in the last run"), why)
        self.assertIsNone(b.verdict(expected=4.9 * 60))

    def test_budget_zero_means_no_budget(self):
        clock = FakeClock()
        b = Budget(0, 3, clock=clock)
        clock.advance(600)
        self.assertIsNone(b.verdict(expected=3600))
        self.assertIsNone(b.deadline())

    def test_runner_skips_parts_over_budget_and_goes_on(self):
        clock = FakeClock()
        budget = Budget(17, 3, clock=clock)

        def slow():
            clock.advance(18)
            yield workers_comp("workers_convert")
            yield workers_comp("workers_audit")

        plan = [Part("workers", "w", slow, expects=WORKERS), Part("convert_24mp", "c", lambda: [], expects=CONVERT24),
                Part("noise", "n", lambda: [], expects=NOISE)]
        run = Run(self, plan, budget)
        st = run()
        self.assertEqual(st["workers"]["status"], "done")
        self.assertEqual(st["workers"]["elapsed_s"], 18 * 60)
        for pid in ("convert_24mp", "noise"):
            self.assertEqual(st[pid]["status"], "skipped")
            self.assertTrue(st[pid]["reason"].startswith("over budget"), st[pid]["reason"])
        g = run.goal("convert_vs_floor_24mp")
        self.assertEqual(g["status"], "NOT MEASURED")
        self.assertTrue(g["reason"].startswith("skipped: over budget"), g["reason"])
        self.assertEqual(run.goal("noise_bpp_iso3200")["status"], "NOT MEASURED")
        self.assertEqual(run.goal("workers_convert_ratio")["status"], "MET")

    def test_runner_uses_the_last_runs_time(self):
        plan = [Part("report", "r", lambda: [], expects=REPORT), Part("noise", "n", lambda: [], expects=NOISE)]
        st = Run(self, plan, expected={"report": 25 * 60}.get)()
        self.assertEqual(st["report"]["status"], "skipped")
        self.assertIn("in the last run", st["report"]["reason"])
        self.assertEqual(st["noise"]["status"], "done")

    def test_a_part_whose_needs_failed_is_skipped(self):
        def broken():
            raise RuntimeError("`readback corpus generate --large` wrote no large/ folder")

        plan = [Part("inputs", "i", broken), Part("workers", "w", lambda: [], expects=WORKERS, needs=("inputs",))]
        st = Run(self, plan)()
        self.assertEqual(st["inputs"]["status"], "failed")
        self.assertEqual(st["workers"]["status"], "skipped")
        self.assertIn("needs the inputs part, which is failed", st["workers"]["reason"])

    def test_an_unavailable_part_is_skipped_with_its_reason(self):
        plan = [Part("audit", "a", lambda: [], expects=AUDIT, unavailable="no real-world corpus (set BENCH_CORPUS)")]
        run = Run(self, plan)
        st = run()
        self.assertEqual(st["audit"]["status"], "skipped")
        self.assertEqual(run.goal("audit_decode_vs_libheif")["reason"],
                         "skipped: no real-world corpus (set BENCH_CORPUS)")


class IncrementalWriteTests(unittest.TestCase):
    def test_results_on_disk_after_every_part_with_failed_stopped_and_skipped(self):
        holder = {}

        def workers():
            yield workers_comp("workers_convert")
            yield workers_comp("workers_audit")

        def audit():
            disk = holder["run"].on_disk()  # what a kill now would leave
            self.assertEqual({p["id"]: p["status"] for p in disk["parts"]}["workers"], "done")
            self.assertEqual([c["id"] for c in disk["comparisons"]], ["workers_convert", "workers_audit"])
            yield nodecode_comp()
            raise ValueError("boom")

        def report_part():
            disk = holder["run"].on_disk()
            audit_rec = next(p for p in disk["parts"] if p["id"] == "audit")
            self.assertEqual((audit_rec["status"], audit_rec["reason"]), ("failed", "ValueError: boom"))
            raise KeyboardInterrupt

        plan = [Part("workers", "w", workers, expects=WORKERS), Part("audit", "a", audit, expects=AUDIT),
                Part("report", "r", report_part, expects=REPORT),
                Part("convert_24mp", "c", lambda: [], expects=CONVERT24)]
        run = holder["run"] = Run(self, plan)
        st = run()
        self.assertEqual([st[p.id]["status"] for p in plan], ["done", "failed", "stopped", "skipped"])
        self.assertEqual(st["report"]["reason"], "interrupted (KeyboardInterrupt)")
        self.assertEqual(st["convert_24mp"]["reason"], "the run was stopped before this part")
        # Once before the first part, after each of the 3 comparisons and after each of the 4 parts; all valid JSON.
        self.assertEqual(len(run.written), 1 + 3 + 4)
        self.assertEqual([p["status"] for p in run.written[0]["parts"]], ["pending"] * 4)
        # The failed part keeps the comparison it finished; its other goal says why it is missing.
        self.assertEqual(run.goal("audit_nodecode_vs_exiftool")["status"], "MET")
        g = run.goal("audit_decode_vs_libheif")
        self.assertEqual((g["status"], g["reason"]), ("NOT MEASURED", "failed: ValueError: boom"))
        for gid in ("audit_report_vs_none", "audit_fast_report_vs_fast", "html_load_10k_s", "html_load_100k_s",
                    "audit_report_rss"):
            g = run.goal(gid)
            self.assertEqual((g["status"], g["reason"]), ("NOT MEASURED", "stopped: interrupted (KeyboardInterrupt)"))
        self.assertEqual(run.goal("size_vs_lossless_24mp")["reason"], "skipped: the run was stopped before this part")
        # bench.md lists each part's status and elapsed seconds.
        with open(os.path.join(run.dir, "bench.md")) as f:
            md = f.read()
        for line in ("| w (`workers`) | **done** | 0 s (0 s CPU",
                     " | NOT MEASURED: ValueError: boom |", "| a (`audit`) | **failed** | 0 s (",
                     "| r (`report`) | **stopped** |",
                     "| c (`convert_24mp`) | **skipped** | - | NOT MEASURED: the run was stopped"):
            self.assertIn(line, md)
        self.assertFalse([n for n in os.listdir(run.dir) if n.endswith(".part")])  # no half-written file left
        self.assertIsInstance(st["workers"]["cpu_s"], float)  # each part's CPU time (user + system) beside its wall

    def test_sigterm_stops_the_running_part(self):
        def stopped():
            yield workers_comp("workers_convert")
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # interrupted at once
            yield workers_comp("workers_audit")

        guard = Guard()
        guard.install()
        self.addCleanup(guard.uninstall)
        plan = [Part("workers", "w", stopped, expects=WORKERS), Part("noise", "n", lambda: [], expects=NOISE)]
        run = Run(self, plan, guard=guard)
        t0 = time.monotonic()
        st = run()
        self.assertLess(time.monotonic() - t0, 3)
        self.assertEqual((st["workers"]["status"], st["workers"]["reason"]), ("stopped", "interrupted (SIGTERM)"))
        self.assertEqual(st["noise"]["status"], "skipped")
        self.assertEqual(run.goal("workers_convert_ratio")["status"], "MET")  # finished before the signal: kept
        self.assertEqual(run.goal("workers_audit_ratio")["reason"], "stopped: interrupted (SIGTERM)")

    def test_a_signal_during_a_write_waits_for_the_write(self):
        def part():
            yield workers_comp("workers_convert")
            yield workers_comp("workers_audit")

        def on_write(n):  # the write after the first comparison
            if n == 1:
                os.kill(os.getpid(), signal.SIGINT)

        guard = Guard()
        guard.install()
        self.addCleanup(guard.uninstall)
        run = Run(self, [Part("workers", "w", part, expects=WORKERS)], guard=guard, on_write=on_write)
        st = run()
        self.assertEqual((st["workers"]["status"], st["workers"]["reason"]), ("stopped", "interrupted (SIGINT)"))
        # Three whole writes: before the part, the one the signal came in (finished, then the part stopped), after it.
        self.assertEqual(len(run.written), 3)
        self.assertEqual([c["id"] for c in run.written[1]["comparisons"]], ["workers_convert"])
        self.assertEqual(run.written[1]["parts"][0]["status"], "running")
        self.assertEqual([c["id"] for c in run.on_disk()["comparisons"]], ["workers_convert"])

    def test_the_deadline_stops_the_running_part(self):
        budget = Budget(0.001, 0.002)  # a deadline 0.18 s away, on the real clock
        guard = Guard()
        guard.install(budget.deadline())
        self.addCleanup(guard.uninstall)

        def forever():
            time.sleep(5)
            return []

        plan = [Part("report", "r", forever, expects=REPORT), Part("noise", "n", lambda: [], expects=NOISE)]
        run = Run(self, plan, budget=budget, guard=guard)
        st = run()
        self.assertEqual(st["report"]["status"], "stopped")
        self.assertTrue(st["report"]["reason"].startswith("over budget: the deadline"), st["report"]["reason"])
        self.assertEqual(st["noise"]["status"], "skipped")
        self.assertTrue(st["noise"]["reason"].startswith("over budget"), st["noise"]["reason"])
        self.assertLess(st["report"]["elapsed_s"], 3)

    def test_a_run_killed_with_sigkill_leaves_the_finished_rows(self):
        code = f"""
import os, signal, sys
sys.path.insert(0, {HERE!r})
import parts, report
from parts import Budget, Part, run_parts, snapshot
parts.log = lambda msg: None
out = sys.argv[1]
results = report.skeleton(machine={{}}, tools={{}})
budget = Budget(17, 3)

def first():
    yield {{"id": "workers_convert", "title": "t", "sides": [], "ratios": {{"in-process": {{"ratio": 1.01,
           "rounds": 5, "per_round_min": 1.0, "per_round_max": 1.02}}}}}}

def killed():
    yield {{"id": "audit_nodecode", "title": "a", "sides": [], "vs_exiftool": {{"throughput_ratio": 40.0,
           "per_round_min": 38.0, "per_round_max": 45.0}}}}
    os.kill(os.getpid(), signal.SIGKILL)

plan = [Part("workers", "w", first, expects={WORKERS[:1]!r}), Part("audit", "a", killed, expects={AUDIT!r}),
        Part("convert_24mp", "c", lambda: [], expects={CONVERT24!r})]
run_parts(plan, results, lambda: report.write(snapshot(results, plan, budget), out), budget)
"""
        d = tempfile.mkdtemp(prefix="bench-test-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        out = os.path.join(d, "bench.json")
        p = subprocess.run([sys.executable, "-B", "-c", code, out], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, -signal.SIGKILL, p.stderr)
        with open(out) as f:
            disk = json.load(f)
        self.assertEqual(disk["state"], "running")
        self.assertEqual([(x["id"], x["status"]) for x in disk["parts"]],
                         [("workers", "done"), ("audit", "running"), ("convert_24mp", "pending")])
        self.assertEqual([c["id"] for c in disk["comparisons"]], ["workers_convert", "audit_nodecode"])
        by = {g["id"]: g for g in disk["goals"]}
        self.assertEqual(by["workers_convert_ratio"]["status"], "MET")
        self.assertEqual(by["audit_nodecode_vs_exiftool"]["status"], "MET")
        self.assertTrue(by["audit_decode_vs_libheif"]["reason"].startswith("running: not finished"))
        self.assertTrue(by["convert_vs_floor_24mp"]["reason"].startswith("pending: not started"))
        with open(os.path.join(d, "bench.md")) as f:
            self.assertIn("**Incomplete**", f.read())


class GoalTests(unittest.TestCase):
    def test_every_stub_gives_not_measured_lines(self):
        for stubs, n in ((WORKERS, 2), (AUDIT, 2), (REPORT, 5), (CONVERT24, 6), (NOISE, 5), (FRONTIER, 3),
                         ([{"id": "audit_nodecode", "sides": [{"name": "baseline"}]}], 2)):
            lines = [g for s in stubs for g in goals.goals_for(s)]
            self.assertEqual(len(lines), n, stubs)
            self.assertTrue(all(g["status"] == "NOT MEASURED" for g in lines), lines)
        names = [g["goal"] for g in goals.goals_for(REPORT[1])]
        self.assertIn("peak RSS of a 100000-file no-decode audit with --report < 500 MB", names)



def heif_points():
    """heif-enc's points on a crop: bit/px and SSIM-Y@1/2 rising with the quality."""
    return [{"quality": 50, "bpp": 0.5, "mean": 0.990, "worst": 0.980, "cpu_s": 4.0},
            {"quality": 55, "bpp": 1.0, "mean": 0.994, "worst": 0.986, "cpu_s": 4.2},
            {"quality": 60, "bpp": 2.0, "mean": 0.996, "worst": 0.990, "cpu_s": 4.5}]


def front(levels):
    """A frontier record (frontier.summarize's shape) with `levels` {name: crop row}."""
    pts = heif_points()
    for row in levels.values():
        row.update(frontier.equal_fidelity(row, pts))
    return {"crop": "2048x1536", "quality": 55, "default": "balanced", "measure": "m", "cached": False,
            "levels": {k: {"setting": "s", "crop": v} for k, v in levels.items()},
            "heif_enc": {"points": pts, "match": frontier.matched(pts, levels["balanced"])}}


class FrontierTests(unittest.TestCase):
    def test_heif_enc_size_is_interpolated_log_linearly_and_bounded_outside(self):
        pts = heif_points()
        self.assertEqual(frontier.heif_bpp_at(pts, "mean", 0.994), (1.0, "interpolated"))
        bpp, how = frontier.heif_bpp_at(pts, "mean", 0.995)  # halfway from 0.994 to 0.996: sqrt(1 * 2)
        self.assertAlmostEqual(bpp, 2 ** 0.5)
        self.assertEqual(frontier.heif_bpp_at(pts, "worst", 0.97), (0.5, "at most"))
        self.assertEqual(frontier.heif_bpp_at(pts, "worst", 0.995), (2.0, "more than"))

    def test_equal_fidelity_takes_the_measure_heif_enc_needs_more_bits_for(self):
        row = {"bpp": 0.9, "mean": 0.992, "worst": 0.988}  # the mean wants ~0.71 bit/px, the worst block ~1.41
        ef = frontier.equal_fidelity(row, heif_points())
        self.assertAlmostEqual(ef["heif_enc_bpp"], 2 ** 0.5)
        self.assertAlmostEqual(ef["ratio"], 0.9 / 2 ** 0.5)
        self.assertIsNone(ef["bound"])
        self.assertEqual(frontier.equal_fidelity({"bpp": 1.0, "mean": 0.999, "worst": 0.99}, heif_points())["bound"],
                         "<=")
        self.assertEqual(frontier.equal_fidelity({"bpp": 1.0, "mean": 0.98, "worst": 0.97}, heif_points())["bound"],
                         ">=")

    def test_matched_quality_and_the_extension_of_the_measured_range(self):
        pts = heif_points()
        self.assertEqual(frontier.matched(pts, {"mean": 0.993, "worst": 0.985})["quality"], 55)
        self.assertIsNone(frontier.matched(pts, {"mean": 0.999, "worst": 0.99}))
        self.assertEqual(frontier.extension([{"mean": 0.993, "worst": 0.985}], pts), [])
        self.assertEqual(frontier.extension([{"mean": 0.999, "worst": 0.985}], pts), [65])
        self.assertEqual(frontier.extension([{"mean": 0.98, "worst": 0.985}], pts), [45])
        q, how = frontier.peer_quality({"heif_enc": pts, "levels": {"balanced": {"mean": 0.999, "worst": 0.99}}},
                                       "balanced")
        self.assertEqual(q, "60")
        self.assertIn("still below", how)

    def test_heif_enc_is_refined_to_every_crf_between_the_qualities_that_bracket_a_level(self):
        pts = heif_points()  # q50, q55, q60: CRF 25, 22, 20
        self.assertEqual([frontier.crf(q) for q in (50, 54, 55, 56, 57, 58, 60)], [25, 23, 22, 22, 21, 21, 20])
        # The mean between q50 and q55 (CRF 24 and 23 unmeasured), the worst block between q55 and q60 (CRF 21).
        self.assertEqual(frontier.refinement([{"mean": 0.992, "worst": 0.988}], pts), [52, 54, 58])
        self.assertEqual(frontier.refinement([{"mean": 0.995, "worst": 0.987}], pts), [58])
        # At a measured point, outside the measured range, or already refined: nothing more to code.
        self.assertEqual(frontier.refinement([{"mean": 0.994, "worst": 0.986}], pts), [])
        self.assertEqual(frontier.refinement([{"mean": 0.999, "worst": 0.97}], pts), [])
        finer = pts + [{"quality": q, "bpp": 0.0, "mean": 0.0, "worst": 0.0} for q in (52, 54, 58)]
        self.assertEqual(frontier.refinement([{"mean": 0.992, "worst": 0.988}], finer), [])

    def test_ladder_setting_and_rows(self):
        d = {"speed": "ultrafast", "depth": 10, "chroma": "420", "x265": "aq-strength=1.25,psy-rdoq=0,rdoq-level=2"}
        self.assertEqual(frontier.ladder_setting(d, 47),
                         "ultrafast:47:tune=ssim,chroma=420,depth=10,aq-strength=1.25,psy-rdoq=0,rdoq-level=2")
        self.assertEqual(frontier.ladder_setting({"speed": "ultrafast", "x265": ""}, 55),
                         "ultrafast:55:tune=ssim,chroma=420,depth=8")
        # The options for a frame coded as one picture reach the ladder as `untiled.` keys.
        one = dict(d, x265OnePicture="scaling-list=default-4x4,tu-intra-depth=3")
        self.assertEqual(frontier.ladder_setting(one, 55),
                         "ultrafast:55:tune=ssim,chroma=420,depth=10,aq-strength=1.25,psy-rdoq=0,rdoq-level=2,"
                         "untiled.scaling-list=default-4x4,untiled.tu-intra-depth=3")
        # A level's quality step is added to the frame's quality, as the converter adds it (at most 100).
        self.assertEqual(frontier.ladder_setting(dict(d, qualityStep=2), 55).split(":")[1], "57")
        self.assertEqual(frontier.ladder_setting(dict(d, qualityStep=2), 99).split(":")[1], "100")
        text = ("image\tencoder\tsetting\tbytes\tbpp\twall_s\tcpu_s\tview_arch_mean\tview_arch_worst64\n"
                "x.dng\treadback\tultrafast:55:tune=ssim\t1000\t0.5000\t1.00\t1.40\t0.997500\t0.995400\n"
                "x.dng\theif-enc\tslow:60\t2000\t1.0000\t2.00\t4.40\t0.998000\t0.996000\n")
        rows = frontier.parse_rows(text)
        self.assertEqual([r["encoder"] for r in rows], ["readback", "heif-enc"])
        self.assertEqual(rows[1]["quality"], 60)
        self.assertEqual(rows[0]["cpu_s"], 1.4)

    def test_size_goals_of_a_chart_and_a_real_raw(self):
        f = front({"balanced": {"bpp": 0.8, "mean": 0.994, "worst": 0.986, "cpu_s": 1.4},
                   "small": {"bpp": 0.95, "mean": 0.994, "worst": 0.986, "cpu_s": 3.4},
                   "fast": {"bpp": 1.2, "mean": 0.994, "worst": 0.986, "cpu_s": 1.0}})
        comp = {"id": "convert_24mp", "title": "convert one 24 MP RAW to HEIC", "megapixels": 24, "pixels": 24_000_000,
                "frontier": f,
                "sides": [{"name": "readback", "output_bytes": 600_000, "peak_rss_mb": 300.0},
                          {"name": "floor"},
                          {"name": "dcraw-pipeline", "label": "dcraw_emu → heif-enc -q 55 (preset slow; ...)"}],
                "ratios": {"floor": ratio(1.18), "dcraw-pipeline": ratio(0.37)},
                "lossless_raw": {"kind": "lossless-JPEG DNG of the same scene", "bytes": 16_000_000, "file": "x"}}
        by = {g["id"]: g for g in goals.goals_for(comp)}
        self.assertEqual(by["default_size_vs_heif_enc_24mp"]["status"], "MET")  # 0.8 against 1.0 bit/px
        self.assertAlmostEqual(by["default_size_vs_heif_enc_24mp"]["value"], 0.8)
        self.assertEqual(by["small_size_vs_heif_enc_24mp"]["status"], "NOT MET")  # 0.95 > 0.90
        self.assertEqual(by["convert_vs_dcraw_pipeline_24mp"]["status"], "MET")
        self.assertIn("heif-enc q55, the lowest measured quality", by["convert_vs_dcraw_pipeline_24mp"]["note"])
        self.assertIn("SSIM-Y@1/2 0.9940", by["size_vs_lossless_24mp"]["note"])
        real = {"id": "frontier_sony", "label": "sony.dng", "frontier": f,
                "sides": [{"name": "readback"}, {"name": "dcraw-pipeline", "label": "heif-enc -q 55 x"}],
                "ratios": {"dcraw-pipeline": ratio(0.45)}}
        by = {g["id"]: g for g in goals.goals_for(real)}
        self.assertEqual(set(by), {"default_size_vs_heif_enc_sony", "small_size_vs_heif_enc_sony",
                                   "convert_vs_dcraw_pipeline_sony"})
        self.assertEqual(by["convert_vs_dcraw_pipeline_sony"]["status"], "MET")
        table = report.frontier_table({"comparisons": [comp, real]})
        self.assertIn("| 24 MP chart | balanced (default) |", table)
        self.assertIn("| sony.dng | heif-enc (preset slow) | matched at q55", table)

    def test_a_small_frame_gets_at_least_five_rounds(self):
        self.assertEqual(frontier.frontier_rounds(1224 * 816, rounds=1), 5)   # the Canon 6D, about a second a run
        self.assertEqual(frontier.frontier_rounds(4_000_000, rounds=1), 5)
        self.assertEqual(frontier.frontier_rounds(4_000_001, rounds=1), 1)   # a 12 MP or larger RAW keeps the knob's
        self.assertEqual(frontier.frontier_rounds(4288 * 2848, rounds=3), 3)
        self.assertEqual(frontier.frontier_rounds(1224 * 816, rounds=7), 7)  # never fewer than asked

    def test_a_bound_that_does_not_decide_is_not_measured(self):
        f = front({"balanced": {"bpp": 0.4, "mean": 0.98, "worst": 0.97, "cpu_s": 1.4},  # below heif-enc's q50
                   "small": {"bpp": 1.6, "mean": 0.999, "worst": 0.995, "cpu_s": 3.4}})  # above its q60
        by = {g["id"]: g for g in goals.frontier_goals({"frontier": f}, "x", "x")}
        self.assertEqual(by["default_size_vs_heif_enc_x"]["status"], "NOT MEASURED")  # at least 0.8: undecided
        self.assertIn("at least", by["default_size_vs_heif_enc_x"]["note"])
        self.assertIn("does not decide", by["default_size_vs_heif_enc_x"]["why"])
        self.assertEqual(by["small_size_vs_heif_enc_x"]["status"], "MET")  # at most 0.8: decides <= 0.9
        failed = {g["id"]: g for g in goals.frontier_goals({"frontier_error": "ladder failed"}, "y", "y")}
        self.assertEqual(failed["small_size_vs_heif_enc_y"]["reason"], "ladder failed")


class CPUTimeTests(unittest.TestCase):
    def test_sides_keep_cpu_time_and_the_workers_goal_quotes_its_ratio(self):
        import harness
        a = harness.Side("workers", "w", lambda d: [])
        b = harness.Side("in-process", "p", lambda d: [])
        self.assertIsNone(harness.cpu_ratio(a, b))
        a.cpus, b.cpus = [2.2, 2.0, 2.4], [2.0, 1.9, 2.1]
        a.times, b.times = [1.0], [1.0]
        self.assertAlmostEqual(harness.cpu_ratio(a, b), 1.1)
        self.assertEqual(a.summary()["cpu_seconds"]["median"], 2.2)
        comp = {"id": "workers_convert", "title": "convert", "sides": [{}, {}],
                "ratios": {"in-process": ratio(1.02)}, "cpu_ratio": 1.031}
        g = next(goals.goals_for(comp))
        self.assertEqual(g["status"], "MET")
        self.assertIn("CPU time (user + system, all processes) 1.031x", g["detail"])
        del comp["cpu_ratio"]
        self.assertNotIn("CPU time", next(goals.goals_for(comp))["detail"])


class AgreementTests(unittest.TestCase):
    def test_goals_with_a_text_detail_or_none_are_compared_without_ranges(self):
        """The comparison with the previous run read every goal's detail as a ratio record; a goal whose detail is a
        line of text (the peak-RSS goals) stopped the whole run on its first write."""
        cfg = {"pairs": 5}
        ranged = goals.goal("convert", "convert_vs_floor_24mp", 1.5, "<=", 1.25,
                            {"per_round_min": 1.4, "per_round_max": 1.6})
        text = goals.goal("peak RSS", "audit_report_rss", 226.5, "<=", 500, "227 MB in 54.8 s")
        prev = {"config": cfg, "goals": [ranged, text]}
        now_ranged = goals.goal("convert", "convert_vs_floor_24mp", 1.7, "<=", 1.25,
                                {"per_round_min": 1.65, "per_round_max": 1.8})
        now_text = goals.goal("peak RSS", "audit_report_rss", 230.0, "<=", 500, "230 MB")
        out = {a["id"]: a for a in goals.agreement(prev, {"config": cfg, "goals": [now_ranged, now_text]})}
        self.assertFalse(out["convert_vs_floor_24mp"]["agree_within_noise"])  # 1.65-1.8 against 1.4-1.6: apart
        self.assertFalse(out["audit_report_rss"]["agree_within_noise"])  # single values 226.5 and 230.0 differ
        self.assertEqual(out["audit_report_rss"]["now"], 230.0)
        near = goals.goal("convert", "convert_vs_floor_24mp", 1.55, "<=", 1.25,
                          {"per_round_min": 1.5, "per_round_max": 1.7})
        again = goals.agreement(prev, {"config": cfg, "goals": [near]})
        self.assertTrue(again[0]["agree_within_noise"])  # 1.5-1.7 overlaps 1.4-1.6


class CacheKeyTests(unittest.TestCase):
    class Rb:
        version = "readback 0.1.0"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-test-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", self.dir]))
        self.dng, self.frame = self.file("x.dng", b"raw"), self.file("x.ppm", b"P6 frame")

    def file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def key(self, dng=None, settings=None, crop="2048x1536", qualities=(50, 55, 60, 65), encoder="heif-enc 1.15.1",
            ladder="ladder-digest"):
        return cache.frontier_key(None, dng or self.dng, settings or {"balanced": "ultrafast:55:tune=ssim"}, crop,
                                  list(qualities), encoder=encoder, ladder=ladder)

    def test_frontier_key_is_stable_and_follows_every_input(self):
        k = self.key()
        self.assertEqual(k, self.key())
        variants = [self.key(dng=self.file("y.dng", b"other raw")), self.key(settings={"balanced": "veryfast:55"}),
                    self.key(crop="1024x768"), self.key(qualities=(50, 60)), self.key(encoder="heif-enc 1.16.0"),
                    self.key(ladder="another build")]
        self.assertEqual(len(set(variants + [k])), len(variants) + 1)

    def test_noise_match_key_ignores_timings(self):
        ours = {"bytes": 1000, "ssim_y_mean": 0.99, "view_ssim_y_mean": 0.98, "encode_s": 0.6}
        k = cache.noise_match_key(self.dng, None, "2048x1536", ours, encoder="heif-enc 1.15.1")
        self.assertEqual(k, cache.noise_match_key(self.dng, None, "2048x1536", dict(ours, encode_s=0.9),
                                                  encoder="heif-enc 1.15.1"))
        self.assertNotEqual(k, cache.noise_match_key(self.dng, None, "2048x1536", dict(ours, ssim_y_mean=0.98),
                                                     encoder="heif-enc 1.15.1"))
        self.assertNotEqual(k, cache.noise_match_key(self.dng, self.frame, "2048x1536", ours, encoder="heif-enc 1.15.1"))
        self.assertNotEqual(k, cache.noise_match_key(self.dng, None, "2048x1536", ours, encoder="heif-enc 1.16.0"))

    def test_store_and_load(self):
        old = cache.DIR, cache.ON
        self.addCleanup(lambda: setattr(cache, "DIR", old[0]) or setattr(cache, "ON", old[1]))
        cache.DIR, cache.ON = os.path.join(self.dir, "cache"), True
        cache.store("match", "k1", {"match": {"quality": 59}})
        self.assertEqual(cache.load("match", "k1"), {"match": {"quality": 59}})
        self.assertIsNone(cache.load("match", "k2"))
        cache.ON = False  # BENCH_CACHE=0: neither read nor written
        self.assertIsNone(cache.load("match", "k1"))
        cache.store("match", "k3", {})
        self.assertFalse(os.path.exists(os.path.join(cache.DIR, "match-k3.json")))

    def test_config_key_follows_the_configuration(self):
        self.assertEqual(cache.config_key({"pairs": 5}), cache.config_key({"pairs": 5}))
        self.assertNotEqual(cache.config_key({"pairs": 5}), cache.config_key({"pairs": 3}))


if __name__ == "__main__":
    unittest.main()
