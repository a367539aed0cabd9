"""What `readback audit --report` costs over the same audit without it, and how big a report gets: the audit of
BENCH_REPORT_FILES real HEIFs (hard links of the corpus's heic/ files, made at bench time under the run's temporary
folder), --no-decode, with and without --report, interleaved in the same rounds; and one audit of BENCH_RSS_FILES
files for its peak RSS; headless Chromium loads the report.html of each (goals: under 2 s at 10,000 files, under 5 s at
100,000).

The digest is compared like for like: with the history on (the default) every run hashes each output, report or
not; with --no-history, --report turns the default sha256 on, so that pair is shown with --hash none too. The
third pair says what the hash itself costs (libcrypto over every byte of every file).
"""
import os
import shutil

from harness import ENV, PAIRS, PEER_ROUNDS, REF_ROUNDS, REPORT_FILES, RSS_FILES, Side, interleave, log, ratio, run
from inputs import stage

CHROMIUM = shutil.which("chromium")
# A page Chromium has not loaded in this long fails its goal anyway; the bench moves on.
CHROMIUM_TIMEOUT = float(ENV.get("BENCH_CHROMIUM_TIMEOUT", "120"))


def staged_folder(heics, folder, n):
    """`n` hard links of the corpus HEIFs, the whole set repeated, in `folder`."""
    stage(heics, folder, (n + len(heics) - 1) // len(heics))
    for extra in sorted(os.listdir(folder))[n:]:
        os.unlink(os.path.join(folder, extra))
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def chromium_load(html, work):
    """Headless Chromium's time to load `html` and take a screenshot of its first screen (after the load event, the
    page's scripts run: what a user waits for before seeing it), against the same for a one-line page: the
    difference is the report's own load time."""
    if not CHROMIUM:
        return {"reason": "chromium is not installed"}
    blank = os.path.join(work, "blank.html")
    with open(blank, "w") as f:
        f.write("<!DOCTYPE html><title>blank</title><p>blank</p>\n")

    def load(path):
        shot = os.path.join(work, "chromium-shot.png")
        r = run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
                 f"--screenshot={shot}", "file://" + path],
                env={"HOME": os.path.join(work, "chromium-home")}, timeout=CHROMIUM_TIMEOUT)
        return r.wall, r.rc

    (base, base_rc), (page, page_rc) = load(blank), load(html)
    out = {"bytes": os.path.getsize(html), "blank_seconds": base, "seconds": page}
    if base_rc != 0:
        out["reason"] = f"chromium fails on a blank page (exit {base_rc})"
    elif page_rc != 0 and page < CHROMIUM_TIMEOUT:
        out["reason"] = f"chromium failed on the report (exit {page_rc})"
    else:  # a page still loading at the timeout counts as the timeout: the goal is not met, and it says so
        out["load_seconds"] = max(0.0, page - base)
        out["timed_out"] = page_rc != 0
    return out


def report_bytes(folder):
    """The report's files and their sizes; the chunk files of report.html's rows (report-files/) as one entry."""
    out = {n: os.path.getsize(os.path.join(folder, n)) for n in sorted(os.listdir(folder))
           if os.path.isfile(os.path.join(folder, n))}
    chunks = os.path.join(folder, "report-files")
    if os.path.isdir(chunks):
        names = os.listdir(chunks)
        out[f"report-files/ ({len(names)} chunks)"] = sum(os.path.getsize(os.path.join(chunks, n)) for n in names)
    return out


def report_cost(rb, work, heics):
    """The sides, interleaved; the ratios of each pair; the sizes of the last report written."""
    folder = os.path.join(work, "report-cost")
    total = staged_folder(heics, folder, REPORT_FILES)
    log(f"audit --report cost: {REPORT_FILES} HEIF files ({total / 1e9:.2f} GB), {PAIRS} interleaved rounds")
    kept = os.path.join(work, "report-kept")

    def side(name, label, *extra, report=False, max_rounds=None):
        def cmd(d):
            return [rb.bin, "audit", "--outputs", folder, "--no-decode", "--quiet", *extra] + (
                ["--report", os.path.join(d, "r")] if report else [])

        def keep(d):  # the report of the last round stays for its sizes
            if report and name == "report":
                shutil.rmtree(kept, ignore_errors=True)
                if os.path.isdir(os.path.join(d, "r")):
                    shutil.move(os.path.join(d, "r"), kept)
            shutil.rmtree(d, ignore_errors=True)
        return Side(name, label, cmd, env=rb.env(work), check=lambda r, d: (r.rc in (0, 1), {}), cleanup=keep,
                    max_rounds=max_rounds)

    # The pair with the history on hashes every byte (7.6 GB a run, most of this part's time) and its ratio sat at
    # 1.08-1.17 against the 1.3 bound in every recorded run: BENCH_PEER_ROUNDS rounds. The fast pair, at the bound,
    # keeps BENCH_PAIRS.
    sides = [side("readback", "audit --no-decode (history on: sha256 of each output)", max_rounds=PEER_ROUNDS),
             side("report", "audit --no-decode --report R (history on: sha256)", report=True, max_rounds=PEER_ROUNDS),
             side("fast", "audit --no-decode --no-history --hash none", "--no-history", "--hash", "none"),
             side("fast-report", "audit --no-decode --no-history --hash none --report R", "--no-history", "--hash",
                  "none", report=True),
             # What the hash costs decides no goal: a reference point, BENCH_REF_ROUNDS rounds.
             side("nohistory-report", "audit --no-decode --no-history --report R (sha256 for the report)",
                  "--no-history", report=True, max_rounds=REF_ROUNDS)]
    interleave(sides, PAIRS, os.path.join(work, "rounds"))
    shutil.rmtree(folder, ignore_errors=True)
    by = {s.name: s for s in sides}
    comp = {"id": "audit_report", "title": f"audit --no-decode with and without --report, {REPORT_FILES} HEIF files",
            "files": REPORT_FILES, "bytes": total, "sides": [s.summary() for s in sides],
            "ratios": {"report_vs_none": ratio(by["report"], by["readback"]),
                       "fast_report_vs_fast": ratio(by["fast-report"], by["fast"]),
                       "hash_and_report_vs_fast": ratio(by["nohistory-report"], by["fast"])}}
    if os.path.isdir(kept):
        comp["report_bytes"] = report_bytes(kept)
        comp["chromium"] = chromium_load(os.path.join(kept, "report.html"), work)
        shutil.rmtree(kept, ignore_errors=True)
    return comp


def report_rss(rb, work, heics):
    """One no-decode audit of RSS_FILES files with --report (history on, --hash none: the hash reads no more bytes
    than the checks, so it changes the time, not the memory): its peak RSS and its report's sizes."""
    folder = os.path.join(work, "report-rss")
    staged_folder(heics, folder, RSS_FILES)
    log(f"audit --report peak RSS: {RSS_FILES} HEIF files, one run")
    out = os.path.join(work, "report-rss-out")
    r = run([rb.bin, "audit", "--outputs", folder, "--no-decode", "--quiet", "--hash", "none", "--report", out],
            env=rb.env(work))
    shutil.rmtree(folder, ignore_errors=True)
    comp = {"id": "audit_report_rss", "title": f"audit --no-decode --report peak RSS, {RSS_FILES} HEIF files",
            "files": RSS_FILES}
    if r.rc in (0, 1):
        comp.update({"seconds": r.wall, "peak_rss_mb": r.rss_mb,
                     "report_bytes": report_bytes(out),
                     "chromium": chromium_load(os.path.join(out, "report.html"), work)})
    else:
        comp["reason"] = f"exit {r.rc}: " + (r.err.strip().splitlines() or [""])[0][:300]
    shutil.rmtree(out, ignore_errors=True)
    return comp
