"""What a run writes: Reports/bench.json (everything), Reports/bench.md (the parts, goal and comparison tables) and,
at the end, the same tables on stdout. Both files are written after every comparison and every part (parts.py),
each through a temporary file and a rename, so a killed run leaves the last complete pair. Nothing outside Reports/
is written; docs/bench.md quotes a recorded run by hand."""
import json
import os
import platform
import time

from goals import agreement, fmt_mb
from harness import PAIRS, QUICK, WORKER_ROUNDS


def skeleton(**fields):
    """A run's results before its first part; `fields` fill in or override (config, machine, tools, ...)."""
    r = {"schemaVersion": 1, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "quick": QUICK,
         "pairs": PAIRS, "config": {}, "machine": {}, "tools": {}, "converter_defaults": {}, "state": "running",
         "budget_min": None, "grace_min": None, "parts": [], "comparisons": [], "goals": [], "elapsed_s": 0.0}
    r.update(fields)
    return r


def load_previous(out_json):
    """The previous run's bench.json, read before this run overwrites it (for agreement_with_previous_run)."""
    try:
        with open(out_json) as f:
            prev = json.load(f)
        return prev if isinstance(prev, dict) else None
    except (OSError, ValueError):
        return None


def machine():
    m = {"nproc": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        m["cpu"] = models[0] if models else "unknown"
        m["cpu_threads_listed"] = len(models)
    except OSError:
        m["cpu"] = "unknown"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(("MemTotal", "MemAvailable")):
                    k, v = line.split(":")
                    m[k.strip()] = f"{int(v.split()[0]) / 1048576:.1f} GiB"
    except OSError:
        pass
    try:
        with open("/proc/loadavg") as f:
            m["loadavg_at_start"] = f.read().split()[:3]
    except OSError:
        pass
    return m


def fmt_s(st):
    if not st:
        return "-"
    if st["median"] < 1:
        return f"{st['median'] * 1000:.0f} ms ({st['min'] * 1000:.0f}-{st['max'] * 1000:.0f})"
    return f"{st['median']:.2f} s ({st['min']:.2f}-{st['max']:.2f})"


def fmt_side(s):
    if not s.get("available"):
        return f"not available: {s.get('reason', 'unknown')}"
    st = s.get("seconds")
    bits = [fmt_s(st) + (f" n={st['n']}" if st and st["n"] != PAIRS else ""),
            f"{s['peak_rss_mb']:.0f} MB RSS" if s.get("peak_rss_mb") else ""]
    if s.get("output_bytes"):
        bits.append(f"{s['output_bytes'] / 1e6:.2f} MB out")
    if s.get("parent_peak_rss_mb") is not None:
        bits.append(f"parent {s['parent_peak_rss_mb']} MB"
                    + (f", largest of {s['workers_started']} workers {s['largest_worker_peak_rss_mb']} MB"
                       if s.get("workers_started") else ""))
    if s.get("invalid_output"):
        bits.append("INVALID: " + s["invalid_output"])
    if s.get("failures"):
        bits.append(f"{len(s['failures'])} failed runs")
    return ", ".join(b for b in bits if b)


def side_ratio(c, s):
    """The readback-ratio cell of side `s` in comparison `c`."""
    if s["name"] == "readback":
        return ""
    if s["name"] == "baseline":
        q = c.get("vs_baseline")
        return f"readback takes {q['ratio']:.2f}x the baseline's time ({q['per_round_min']:.2f}-" \
            f"{q['per_round_max']:.2f})" if q else ""
    if c["id"] in ("audit_nodecode", "audit_vs_heifinfo"):
        k = {"exiftool": "vs_exiftool", "heif-info": "vs_heif_info"}.get(s["name"])
        q = c.get(k) if k else None
        return f"{q['throughput_ratio']:.1f}x the throughput ({q['per_round_min']:.1f}-{q['per_round_max']:.1f})" \
            if q else ""
    if c["id"] == "audit_report":
        k = {"report": "report_vs_none", "fast-report": "fast_report_vs_fast",
             "nohistory-report": "hash_and_report_vs_fast"}.get(s["name"])
        q = c["ratios"].get(k) if k else None
        base = "the first side's" if s["name"] == "report" else "the fast side's"
        return f"{q['ratio']:.2f}x {base} time ({q['per_round_min']:.2f}-{q['per_round_max']:.2f})" if q else ""
    q = c.get("vs_libheif") if c["id"] == "audit_decode" else c.get("ratios", {}).get(s["name"])
    if not q:
        return ""
    rat = f"{q['ratio']:.2f}x the time ({q['per_round_min']:.2f}-{q['per_round_max']:.2f})"
    return rat + ("; peer output invalid, no real comparison" if s.get("invalid_output") else "")


def scaling_rows(c):
    rows = []
    for p in c["points"]:
        st = p["ms_per_file"]
        rows.append(f"| {c['title']} | {p['files']} files | "
                    + (f"{st['median']:.2f} ms/file ({st['min']:.2f}-{st['max']:.2f}), "
                       f"{p['peak_rss_mb']:.0f} MB RSS" if st else "-") + " | |")
    if c.get("flatness"):
        rows.append(f"| {c['title']} | per-file cost, largest/smallest folder | | {c['flatness']:.2f}x |")
    return rows


def frontier_rows(c):
    """One image's frontier: per effort level its whole file and its crop measure against heif-enc at equal
    fidelity; heif-enc's matched quality; the dcraw pipeline."""
    f = c.get("frontier")
    if not f:
        why = c.get("frontier_error") or c.get("error")
        return [f"| {c.get('label') or c['title']} | frontier not measured: {why} | | | | |"] if why else []
    name = c.get("label") or c["title"].replace("convert one ", "").replace(" RAW to HEIC", " chart")
    rows = []
    for lv, rec in f["levels"].items():
        w, crop = rec.get("whole") or {}, rec["crop"]
        whole = (f"{fmt_mb(w['output_bytes'])}, {fmt_s(w.get('seconds'))}" + (
            f" n={w['seconds']['n']}" if w.get("seconds") else "") if w.get("output_bytes") else
                 (w.get("reason") or "-"))
        vs = rec.get("vs_pipeline")
        bound = {"<=": "at most ", ">=": "at least "}.get(crop.get("bound"), "")
        rows.append(f"| {name} | {lv}{' (default)' if lv == f['default'] else ''} | {whole}"
                    + (f"; {vs['ratio']:.2f}x the pipeline" if vs else "")
                    + f" | {crop['bpp']:.3f} bit/px, {crop['mean']:.4f} / {crop['worst']:.4f}, encode CPU "
                      f"{crop['cpu_s']:.2f} s | {crop['heif_enc_bpp']:.3f} bit/px | {bound}{crop['ratio']:.2f}x |")
    he = f.get("heif_enc") or {}
    m = he.get("match")
    pts = ", ".join(f"q{p['quality']} {p['bpp']:.3f} ({p['mean']:.4f} / {p['worst']:.4f})"
                    for p in he.get("points", []))
    rows.append(f"| {name} | heif-enc (preset slow) | " + (
        f"matched at q{m['quality']}: {m['bpp']:.3f} bit/px, encode CPU {m['cpu_s']:.2f} s" if m else
        "no measured quality reaches the default's fidelity") + f" | {pts} | | |")
    pp = f.get("pipeline")
    if pp:
        rows.append(f"| {name} | dcraw pipeline | {fmt_side(pp)} | | | |")
    return rows


def frontier_table(results):
    """Every image's frontier (the convert parts' charts, the frontier part's real RAWs)."""
    comps = [c for c in results["comparisons"] if c.get("frontier") or c["id"].startswith("frontier_")]
    if not comps:
        return ""
    crop = next((c["frontier"]["crop"] for c in comps if c.get("frontier")), "?")
    rows = [f"| image | encoder | whole file: size, time (min-max) | {crop} crop: bit/px, SSIM-Y@1/2 mean / worst "
            "| heif-enc at equal fidelity | size ratio |", "|---|---|---|---|---|---|"]
    for c in comps:
        rows += frontier_rows(c)
    return "\n".join(rows)


def noise_row(im):
    """One image of the noise comparison as a table row."""
    cv = im.get("convert") or {}
    st = cv.get("seconds")
    enc = im.get("encode_stage_s") or []
    cells = [im["label"]]
    ob = cv.get("output_bytes")
    q = (f", q{im['quality']}" + (f" (noise σ {im['noise_sigma']:.2f})" if im.get("noise_sigma") is not None else "")
         if im.get("quality") is not None else "")
    cells.append(f"{fmt_mb(ob)}, {im['bpp']:.2f} bit/px{q}" if ob and im.get("bpp") else cv.get("reason", "-"))
    cells.append(fmt_s(st) + (f"; encode {sorted(enc)[len(enc) // 2]:.2f} s" if enc else ""))
    sh = im.get("shipped") or {}
    if "ssim_y_mean" in sh:
        cells.append(f"{sh['ssim_y_mean']:.4f} / {sh['ssim_y_worst_block']:.4f}")
        cells.append(f"{sh['loss_mean']:+.4f} / {sh['loss_worst_block']:+.4f} "
                     f"({'VL' if sh['visually_lossless'] else 'not VL'})")
    elif im.get("iso") is not None and "shipped" not in im:
        cells += ["not measured (BENCH_NOISE_FULL=1)", "-"]
    else:
        cells += [sh.get("error", "-"), "-"]
    ll = im.get("lossless")
    cells.append(f"{fmt_mb(ll['bytes'])}, {ll['ratio']:.1f}x" if ll else "-")
    c = im.get("crop") or {}
    ours, he = c.get("readback"), (c.get("heif_enc") or {})
    if ours:
        cells.append(f"{ours['bpp']:.2f} bit/px, {ours['encode_s']:.2f} s, view loss {ours['loss_mean']:+.4f}")
        m = he.get("match")
        if m:
            cells.append(f"q{m['quality']}: {m['bpp']:.2f} bit/px, {m['encode_s']:.2f} s"
                         f"{' (an earlier run, cached)' if he.get('cached') else ''} ({m['bpp'] / ours['bpp']:.2f}x "
                         f"Readback's bits)")
        elif "error" in he:
            cells.append(he["error"])
        else:
            # No quality is as faithful on both measures: name the lowest that reaches each one alone.
            def one(k, what):
                x = he.get(k)
                return (f"{what} from q{x['quality']} ({x['bpp']:.2f} bit/px, {x['bpp'] / ours['bpp']:.2f}x)" if x
                        else f"{what} never")
            cells.append("no quality reaches both; " + one("match_view_only", "viewing size") + "; "
                         + one("match_archival_only", "1:1"))
    elif im.get("error"):
        cells += [im["error"], "-"]
    elif im.get("iso") is not None and "crop" not in im:
        cells += ["not measured (BENCH_NOISE_FULL=1)", "-"]
    else:
        cells += ["-", "-"]
    return "| " + " | ".join(cells) + " |"


def noise_table(results):
    """The sensor-noise comparison: per ISO, the clean chart and the real camera DNGs."""
    comp = next((c for c in results["comparisons"] if c["id"] == "noise"), None)
    if not comp:
        return ""
    crop = comp["match_crop"]
    rows = [f"| image | Readback file: size, bits/px | convert time (min-max); encode stage | archival: SSIM-Y 1:1 "
            f"mean / worst | viewing size: loss mean / worst (VL: <= 0.01 / 0.03) | lossless RAW, ratio | {crop} "
            f"crop: Readback's encode | heif-enc at equal fidelity (viewing size and 1:1), same crop |",
            "|---|---|---|---|---|---|---|---|"]
    rows += [noise_row(im) for im in comp["images"]]
    return "\n".join(rows)


def comparison_table(results):
    rows = ["| comparison | side | median time (min-max), peak RSS, output | readback ratio |", "|---|---|---|---|"]
    for c in results["comparisons"]:
        if c["id"] == "noise":
            continue
        if c["id"] == "audit_scaling":
            rows += scaling_rows(c)
            continue
        if c["id"] == "audit_report_rss":
            size = ", ".join(f"{n} {fmt_mb(b)}" for n, b in (c.get("report_bytes") or {}).items())
            rows.append(f"| {c['title']} | one run | " + (f"{c['seconds']:.1f} s, {c['peak_rss_mb']:.0f} MB RSS; {size}"
                        if c.get("peak_rss_mb") else f"not measured: {c.get('reason')}") + " | |")
            continue
        rows += [f"| {c['title']} | {s['label']} | {fmt_side(s)} | {side_ratio(c, s)} |" for s in c["sides"]]
        rows += stage_rows(c)
    return "\n".join(rows)


def stage_rows(c):
    """A convert comparison's stage budget: each Readback stage's median and its share of the floor's time."""
    b = c.get("stage_budget")
    if not b:
        return []
    def cells(rs):
        return ", ".join(f"{r['stage']} {r['median_s']:.2f} s ({r['share_of_floor']:.2f})" for r in rs)
    total = sum(r["share_of_floor"] for r in b["readback"])
    rows = [f"| {c['title']} | stage budget: readback's stages, median s (share of the floor's {b['floor_median_s']:.2f} s) "
            f"| {cells(b['readback'])} | sum {total:.2f}x |"]
    if b["floor"]:
        rows.append(f"| {c['title']} | stage budget: the floor's own parts | {cells(b['floor'])} | |")
    return rows


def goal_table(results):
    rows = ["| goal | measured | target | status |", "|---|---|---|---|"]
    for g in results["goals"]:
        val = f"{g['value']:.2f}" if "value" in g else g.get("reason", "")
        extra = f"; {g['note']}" if g.get("note") else ""
        extra += f"; {g['why']}" if g.get("why") else ""
        rows.append(f"| {g['goal']} | {val}{extra} | {g.get('target', '')} | **{g['status']}** |")
    return "\n".join(rows)


def parts_table(results):
    """Each part's status and elapsed seconds; a part that is not done says why, and its goals are NOT MEASURED."""
    rows = ["| part | status | elapsed (CPU: user + system; load at start) | note |", "|---|---|---|---|"]
    for p in results.get("parts", []):
        el = f"{p['elapsed_s']:.0f} s" if p.get("elapsed_s") is not None else "-"
        if p.get("cpu_s") is not None:
            el += f" ({p['cpu_s']:.0f} s CPU" + (f"; load {p['load_at_start']:g}" if p.get("load_at_start") is not None
                                                  else "") + ")"
        note = p.get("reason", "")
        if p["status"] != "done":
            note = "NOT MEASURED" + (f": {note}" if note else "")
        rows.append(f"| {p['title']} (`{p['id']}`) | **{p['status']}** | {el} | {note} |")
    b = results.get("budget_min")
    budget = (f"budget {b:g} min, deadline {b + (results.get('grace_min') or 0):g} min" if b else "no budget")
    cpu = sum(p.get("cpu_s") or 0 for p in results.get("parts", []))
    rows.append(f"| total | {results.get('state', '')} | {results.get('elapsed_s', 0):.0f} s ({cpu:.0f} s CPU in the "
                f"parts) | {budget} |")
    return "\n".join(rows)


def markdown(results):
    m = results["machine"]
    head = (f"Machine: {m.get('cpu')}, {m.get('nproc')} cores, {m.get('MemTotal', '?')} RAM, load at start "
            f"{' '.join(m.get('loadavg_at_start', []))}; {PAIRS} interleaved rounds per comparison "
            f"({WORKER_ROUNDS} for the workers'); "
            f"{results['tools'].get('readback') or 'readback'}; run {results['started_utc']}, "
            f"{results['elapsed_s'] / 60:.1f} min{' (BENCH_QUICK: smoke test, not a measurement)' if QUICK else ''}.")
    if results.get("state") == "running":
        head += (f" **Incomplete**: written at {results.get('written_utc', '?')} while the run went on; a part still "
                 "pending or running had not finished (the run was killed, or is still running).")
    if results.get("stopped"):
        head += f" **Stopped** ({results['stopped']})."
    text = (head + "\n\n" + parts_table(results) + "\n\n" + goal_table(results) + "\n\n" + frontier_table(results)
            + "\n\n" + noise_table(results) + "\n\n" + comparison_table(results) + "\n")
    agree = results.get("agreement_with_previous_run")
    if agree:
        text += "\nAgreement with the previous run (per-round ranges overlap): " + ", ".join(
            f"{a['id']} {a['previous']:.2f}->{a['now']:.2f} {'yes' if a['agree_within_noise'] else 'NO'}"
            for a in agree) + "\n"
    return text


def replace_file(path, text):
    """Writes `path` whole or not at all: a temporary file beside it, then a rename (a kill mid-write leaves the
    previous file)."""
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.part")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write(results, out_json, previous=None, echo=False):
    """Writes bench.json and bench.md (bench.md beside it), comparing with `previous` (the last run's bench.json, read
    before this run began); `echo` also prints the tables (at the end of the run)."""
    results["written_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if previous:
        results["agreement_with_previous_run"] = agreement(previous, results)
    os.makedirs(os.path.dirname(os.path.abspath(out_json)), exist_ok=True)
    replace_file(out_json, json.dumps(results, indent=2))
    text = markdown(results)
    out_md = os.path.join(os.path.dirname(os.path.abspath(out_json)), "bench.md")
    replace_file(out_md, text)
    if echo:
        print(text)
    return out_md
