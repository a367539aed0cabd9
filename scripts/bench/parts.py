"""A run of `make bench` as parts, each timed against a budget, with the results on disk after every one.

The parts run in order: inputs (the generated RAWs, from the cache when unchanged), workers, report, one convert part
per RAW size, frontier (the real RAWs), audit, noise (__main__.plan). The results (bench.json and bench.md,
report.write: a temporary file and a rename) are written before the first part, after every comparison and after
every part, so a run killed at any moment (SIGKILL included) leaves every finished row on disk, and the parts it had
not finished marked "pending" or "running". Each part's record has its wall seconds, its CPU seconds (user + system
of the bench and every command it ran) and the load average when it started: on a shared machine the CPU time says
whether a part fits, the wall time what it took.

A part ends as one of:
- done;
- skipped: it did not start, because the budget was spent (BENCH_BUDGET_MIN, default 18.5 minutes), or it took longer
  in the last run with the same configuration than is left before the deadline (the budget plus BENCH_GRACE_MIN,
  default 1.5), or the run was stopped before it, or a part it needs did not finish, or it cannot run here (no corpus);
- stopped: Ctrl-C or SIGTERM, or the deadline passed while it ran. The command it was timing is killed (harness.run),
  the comparisons it had finished are kept, and no later part starts;
- failed: it raised. The error is recorded and the run goes on with the next part.
Every goal of a comparison that did not finish is a NOT MEASURED line saying why (the part's stubs, goals.goals_for).
"""
import os
import resource
import signal
import time
import traceback
from contextlib import contextmanager

from goals import goals_for
from harness import ENV, log

# Parts start until 18.5 minutes (0: no budget); the one running at 20 is stopped. A cold run's last part, the noise
# part (about 1.5 min), starts at about 17.5 minutes on this 2-core machine (docs/bench.md, "Time budget and parts").
BUDGET_MIN = float(ENV.get("BENCH_BUDGET_MIN") or "18.5")
GRACE_MIN = float(ENV.get("BENCH_GRACE_MIN") or "1.5")


class Deadline(BaseException):
    """The budget and its grace are spent while a part runs (SIGALRM); a BaseException like KeyboardInterrupt, so
    that harness.run kills the command it is timing and no `except Exception` swallows it."""


class Part:
    """One part of the run. `run()` returns or yields its comparisons (each is written as soon as it finishes);
    `expects` are stubs of the comparisons that decide goals (their id and what the goals' names need), the NOT
    MEASURED lines when they do not finish; `needs` are the ids of parts that must be done first; `unavailable` says
    why the part cannot run here, or is None."""

    def __init__(self, pid, title, run, expects=(), needs=(), unavailable=None):
        self.id, self.title, self.run = pid, title, run
        self.expects, self.needs, self.unavailable = list(expects), tuple(needs), unavailable


class Budget:
    """The run's time: BENCH_BUDGET_MIN minutes in which parts may start, and BENCH_GRACE_MIN more after which the
    part still running is stopped (the deadline). `clock` is injectable for the tests."""

    def __init__(self, minutes=BUDGET_MIN, grace=GRACE_MIN, clock=time.monotonic):
        self.minutes, self.grace, self.clock = minutes, grace, clock
        self.t0 = clock()

    @property
    def limited(self):
        return self.minutes > 0

    def elapsed(self):
        return self.clock() - self.t0

    def deadline(self):
        """Seconds from the start after which nothing runs, or None without a budget."""
        return (self.minutes + self.grace) * 60 if self.limited else None

    def verdict(self, expected=None):
        """None when a part may start now; else why not. `expected`: the seconds the part took in the last run with
        the same configuration (None: unknown)."""
        if not self.limited:
            return None
        spent = self.elapsed()
        if spent >= self.minutes * 60:
            return f"over budget: {spent / 60:.1f} of {self.minutes:g} min spent"
        if expected and spent + expected > self.deadline():
            left = (self.deadline() - spent) / 60
            return (f"over budget: it took {expected / 60:.1f} min in the last run, and {left:.1f} min remain before "
                    f"the deadline ({self.minutes:g} + {self.grace:g} min)")
        return None

    def describe(self):
        spent = self.elapsed() / 60
        if not self.limited:
            return f"{spent:.1f} min spent (no budget)"
        return f"{spent:.1f} min spent, {max(0.0, self.minutes - spent):.1f} of {self.minutes:g} min left"


class Guard:
    """SIGINT and SIGTERM stop the part that runs (KeyboardInterrupt), and SIGALRM at the deadline does too
    (Deadline). Outside a part, and while the results are being written, they only set `stop` or `expired`: the
    runner starts no part after them, and a write is never cut in two (a signal during a write inside a part is raised
    when the write is done)."""

    def __init__(self):
        self.armed = False
        self.writing = False
        self.stop = None  # the signal's name, once SIGINT or SIGTERM came
        self.expired = False  # the deadline passed
        self._old = {}

    def install(self, deadline=None):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._on_stop)
        if deadline is not None:
            self._old[signal.SIGALRM] = signal.signal(signal.SIGALRM, self._on_alarm)
            signal.setitimer(signal.ITIMER_REAL, max(deadline, 0.001))

    def uninstall(self):
        if signal.SIGALRM in self._old:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}

    def _raise_pending(self):
        # Disarmed first: a second Ctrl-C while the part unwinds (harness.run killing its command) only sets the flag.
        self.armed = False
        if self.stop:
            raise KeyboardInterrupt
        raise Deadline

    def _on_stop(self, signum, frame):
        self.stop = signal.Signals(signum).name
        if self.armed and not self.writing:
            self._raise_pending()

    def _on_alarm(self, signum, frame):
        self.expired = True
        if self.armed and not self.writing:
            self._raise_pending()

    @contextmanager
    def running(self):
        """A part runs: the signals raise."""
        self.armed = True
        try:
            yield
        finally:
            self.armed = False

    @contextmanager
    def deferred(self):
        """The results are being written: a signal waits for the write to finish."""
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.armed and (self.stop or self.expired):
            self._raise_pending()


def run_parts(parts, results, write, budget, guard=None, expected=None, done=None):
    """Runs `parts` in order into `results` ("parts": one record each; "comparisons": each comparison, tagged with
    its part), calling write() before the first part, after every comparison and after every part. expected(part id)
    is the seconds it took in the last run (or None); done(part id, seconds) is told each part that is done."""
    guard = guard or Guard()
    results["parts"] = [{"id": p.id, "title": p.title, "status": "pending"} for p in parts]
    recs = {r["id"]: r for r in results["parts"]}

    def save():
        with guard.deferred():
            write()

    save()
    halt = None  # once a part is stopped, why the rest do not start
    for p, rec in zip(parts, results["parts"]):
        why = halt or (f"the run was stopped ({guard.stop}) before this part" if guard.stop else None) \
            or ("over budget: the deadline passed before this part" if guard.expired else None) \
            or p.unavailable or unmet(p, recs) or budget.verdict(expected(p.id) if expected else None)
        if why:
            rec.update(status="skipped", reason=why)
            log(f"part {p.id}: skipped: {why}; {budget.describe()}")
            save()
            continue
        log(f"part {p.id} ({p.title}): starting; {budget.describe()}")
        t0, c0 = budget.elapsed(), cpu_seconds()
        rec.update(status="running", started_s=round(t0, 1), load_at_start=load_average())
        try:
            with guard.running():
                for comp in p.run() or ():
                    comp["part"] = p.id
                    results["comparisons"].append(comp)
                    rec["elapsed_s"] = round(budget.elapsed() - t0, 1)
                    save()
            rec["status"] = "done"
        except KeyboardInterrupt:
            rec.update(status="stopped", reason=f"interrupted ({guard.stop or 'KeyboardInterrupt'})")
            halt = "the run was stopped before this part"
        except Deadline:
            rec.update(status="stopped", reason=f"over budget: the deadline ({budget.minutes:g} + {budget.grace:g} min)"
                                                " passed while it ran")
            halt = "over budget: the deadline passed before this part"
        except (Exception, SystemExit) as e:  # noqa: BLE001 -- a part's failure is recorded and the run goes on
            rec.update(status="failed", reason=f"{type(e).__name__}: {e}"[:500])
            traceback.print_exc()
        rec["elapsed_s"] = round(budget.elapsed() - t0, 1)
        rec["cpu_s"] = round(cpu_seconds() - c0, 1)
        if rec["status"] == "done" and done:
            done(p.id, rec["elapsed_s"])
        log(f"part {p.id}: {rec['status']} in {rec['elapsed_s']:.0f} s ({rec['cpu_s']:.0f} s of CPU)"
            + (f" ({rec['reason']})" if rec.get("reason") else "") + f"; {budget.describe()}")
        save()
    return results["parts"]


def cpu_seconds():
    """User + system seconds of this process and of every command it waited for (their children included): a part's
    CPU time is the difference, which other load on a shared machine moves far less than its wall time."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def load_average():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def unmet(part, recs):
    """Why `part` cannot start because a part it needs is not done, or None."""
    for n in part.needs:
        r = recs.get(n)
        if r is not None and r["status"] != "done":
            return f"needs the {n} part, which is {r['status']}" + (f" ({r['reason']})" if r.get("reason") else "")
    return None


MISSING = {
    "pending": "pending: not started when this file was written (the run was killed, or is still running)",
    "running": "running: not finished when this file was written (the run was killed, or is still running)",
    "done": "the part finished without measuring it",
}


def missing_reason(rec, comp=None):
    """Why a goal of part record `rec` was not measured; `comp`: its comparison when one finished (with an error)."""
    if comp is not None and comp.get("error"):
        return str(comp["error"])
    if rec["status"] in MISSING:
        return MISSING[rec["status"]]
    return f"{rec['status']}: {rec.get('reason') or 'no reason recorded'}"


def assemble_goals(results, parts):
    """Every goal line of the run, part by part: those its finished comparisons decide, then a NOT MEASURED line
    (with the part's status and reason) for each goal of its stubs that none of them decided."""
    recs = {r["id"]: r for r in results.get("parts", [])}
    out = []
    for p in parts:
        rec = recs.get(p.id, {"status": "pending"})
        comps = [c for c in results["comparisons"] if c.get("part") == p.id]
        lines = [g for c in comps for g in goals_for(c)]
        have = {g["id"] for g in lines}
        by = {c["id"]: c for c in comps}
        for stub in p.expects:
            for g in goals_for(stub):
                if g["id"] not in have:
                    g["status"], g["reason"] = "NOT MEASURED", missing_reason(rec, by.get(stub["id"]))
                    g.pop("value", None)
                    lines.append(g)
                    have.add(g["id"])
        out += lines
    return out


def snapshot(results, parts, budget):
    """Brings `results` up to date before a write: the goals and the time so far."""
    results["goals"] = assemble_goals(results, parts)
    results["elapsed_s"] = budget.elapsed()
    return results
