"""The goals `make bench` checks, each with its bound, and how a comparison's measurements become a goal line.

`goals_for(comparison)` gives the goal lines one comparison decides. Given a stub (a comparison with only its id and
what the goal names need: parts.py makes one for each comparison of a part that did not finish), every line is NOT
MEASURED, so a goal is never silently absent from a run that was cut short."""

GOALS = {
    "convert_vs_floor": 1.25,  # per-image wall time <= 1.25x the floor
    "audit_nodecode_vs_exiftool": 10.0,  # metadata-only audit >= 10x exiftool's throughput
    "audit_decode_vs_libheif": 1.2,  # full-decode audit <= 1.2x libheif decoding the same items
    "convert_vs_dcraw_pipeline": 0.5,  # <= 0.5x dcraw_emu+heif-enc+exiftool, heif-enc at the default's fidelity
    "default_size_vs_heif_enc": 1.0,  # the default effort's size <= heif-enc's at equal fidelity (SSIM-Y@1/2)
    "small_size_vs_heif_enc": 0.9,  # the small effort's size <= 0.9x heif-enc's at equal fidelity
    "size_vs_lossless_raw": 8.0,  # output >= 8x smaller than a losslessly compressed RAW of the same scene
    "rss_vs_16bit_frame": 3.0,  # peak RSS of one conversion (one worker) < 3x one decoded 16-bit frame
    "noise_bpp_iso3200": 2.0,  # 24 MP ISO 3200: <= 2 bits per pixel, visually lossless at viewing size
    "noise_encode_vs_clean": 1.0,
    "audit_report_vs_none": 1.3,  # audit --no-decode --report <= 1.3x the same audit without --report
    "audit_report_rss_mb": 500.0,
    "html_load_10k_s": 2.0,  # headless Chromium loads the 10,000-file report.html
    "html_load_100k_s": 5.0,  # ... and the 100,000-file one  # peak RSS of a 100,000-file no-decode audit with --report
    "audit_vs_baseline": 1.0,  # with BENCH_BASELINE: an audit takes no longer than the baseline build's  # encode stage on a noisy chart no slower than on the clean chart
}


def goal(text, key, value, op, target, detail=None, why=None):
    if value is None:
        return {"id": key, "goal": text, "status": "NOT MEASURED", "reason": why or "a side did not run"}
    met = value >= target if op == ">=" else value <= target
    g = {"id": key, "goal": text, "value": value, "target": f"{op} {target}", "status": "MET" if met else "NOT MET"}
    if detail:
        g["detail"] = detail
    return g


def fmt_mb(b):
    return f"{b / 1e6:.2f} MB" if b else "?"


def goals_for(comp):
    """The goal lines comparison `comp` decides (none for the comparisons that are reference rows only)."""
    cid = comp["id"]
    if cid == "audit_nodecode":
        q = comp.get("vs_exiftool")
        yield goal("audit (no decode) throughput >= 10x exiftool -j -a -G1", "audit_nodecode_vs_exiftool",
                   q["throughput_ratio"] if q else None, ">=", GOALS["audit_nodecode_vs_exiftool"], q, reason(comp))
        yield from baseline_goal(comp)
    elif cid == "audit_decode":
        q = comp.get("vs_libheif")
        yield goal("full-decode audit <= 1.2x libheif decoding the same items", "audit_decode_vs_libheif",
                   q["ratio"] if q else None, "<=", GOALS["audit_decode_vs_libheif"], q, reason(comp))
        yield from baseline_goal(comp)
    elif cid == "audit_report":
        yield from report_cost_goals(comp)
    elif cid == "audit_report_rss":
        yield from report_rss_goals(comp)
    elif cid.startswith("workers_"):
        yield from worker_goals(comp)
    elif cid.startswith("convert_"):
        yield from convert_goals(comp, comp.get("pixels") or 0)
        yield from frontier_goals(comp, f"{comp['megapixels']:g}mp", f"{comp['megapixels']:g} MP chart")
    elif cid.startswith("frontier_"):
        yield from frontier_goals(comp, cid[len("frontier_"):], comp.get("label") or cid)
        yield time_goal(comp, cid[len("frontier_"):], comp.get("label") or cid)
    elif cid == "noise":
        yield from noise_goals(comp)


def report_cost_goals(rc):
    """--report's cost at equal hashing (the default run, and the fastest one), and Chromium's load of its page."""
    for key, what in (("report_vs_none", "default settings: history on, sha256 either way"),
                      ("fast_report_vs_fast", "--no-history --hash none")):
        q = (rc.get("ratios") or {}).get(key)
        yield goal(f"audit --no-decode --report <= 1.3x the same audit without it ({rc.get('files') or '?'} files, {what})",
                   f"audit_{key}", q["ratio"] if q else None, "<=", GOALS["audit_report_vs_none"], q, reason(rc))
    yield chromium_goal(rc, "html_load_10k_s")


def chromium_goal(c, key):
    ch = c.get("chromium") or {}
    g = goal(f"headless Chromium loads the {c.get('files') or '?'}-file report.html in < {GOALS[key]:g} s", key,
             ch.get("load_seconds"), "<=", GOALS[key], None, ch.get("reason") or c.get("reason"))
    if ch.get("bytes"):
        g["note"] = (f"report.html {fmt_mb(ch['bytes'])}; blank page {ch.get('blank_seconds') or 0:.2f} s"
                     + ("; still loading when stopped" if ch.get("timed_out") else ""))
    return g


def report_rss_goals(rs):
    """The 100,000-file audit with --report: Chromium's load of its page, and its peak RSS."""
    yield chromium_goal(rs, "html_load_100k_s")
    g = goal(f"peak RSS of a {rs.get('files') or '?'}-file no-decode audit with --report < 500 MB", "audit_report_rss",
             rs.get("peak_rss_mb"), "<=", GOALS["audit_report_rss_mb"], rs.get("report_bytes"), rs.get("reason"))
    if rs.get("peak_rss_mb"):
        g["note"] = f"{rs['peak_rss_mb']:.0f} MB in {rs['seconds']:.1f} s"
    yield g


def baseline_goal(c):
    """With BENCH_BASELINE: each audit no slower than the baseline build on the same files (reading each file
    once should make it faster)."""
    q = c.get("vs_baseline")
    if q is not None or any(s["name"] == "baseline" for s in c.get("sides", [])):
        yield goal(f"{c['id'].replace('_', ' ')}: no slower than the baseline build", f"{c['id']}_vs_baseline",
                   q["ratio"] if q else None, "<=", GOALS["audit_vs_baseline"], q)


def reason(comp):
    """The first side's reason for not running, if any."""
    return next((s["reason"] for s in comp.get("sides", []) if s.get("reason")), None)


def convert_goals(comp, px):
    """The four goals of one RAW size from its convert comparison: time against the floor, time against the dcraw
    pipeline with heif-enc at the default's fidelity, size against a lossless RAW, peak memory (the size goals at equal
    fidelity: frontier_goals)."""
    mp = comp["megapixels"]
    sides = {s["name"]: s for s in comp.get("sides", [])}
    rbs, pps = sides.get("readback", {}), sides.get("dcraw-pipeline", {})
    why = rbs.get("reason")
    ratios = comp.get("ratios", {})
    rf = ratios.get("floor")
    yield goal(f"convert <= 1.25x the floor ({mp:g} MP)", f"convert_vs_floor_{mp:g}mp",
               rf["ratio"] if rf else None, "<=", GOALS["convert_vs_floor"], rf,
               why or sides.get("floor", {}).get("reason"))
    yield dcraw_goal(comp, mp, rbs, pps, ratios.get("dcraw-pipeline"), why)
    yield lossless_goal(comp, mp, rbs, why)
    # One file is one worker: the largest process's peak RSS over the rounds against a decoded 16-bit RGB frame.
    rss = rbs.get("peak_rss_mb")
    frame_mib = px * 3 * 2 / 2 ** 20
    g = goal(f"peak RSS of one conversion < 3x one decoded 16-bit frame ({mp:g} MP)", f"rss_vs_frame_{mp:g}mp",
             rss / frame_mib if rss and frame_mib else None, "<=", GOALS["rss_vs_16bit_frame"],
             {"peak_rss_mib": rss, "frame_16bit_mib": frame_mib}, why)
    if rss:
        g["note"] = f"{rss:.0f} MiB peak against a bound of {3 * frame_mib:.0f} MiB (3 x {frame_mib:.0f} MiB)"
    yield g


def dcraw_goal(comp, mp, rbs, pps, rp, why):
    """The default convert's time against the dcraw pipeline, whose heif-enc codes at the quality that reaches the
    default level's fidelity on the crop (frontier.peer_quality); the sizes at equal fidelity are the frontier's
    goals."""
    g = goal(f"convert <= 0.5x dcraw_emu+heif-enc+exiftool, heif-enc at the default's fidelity ({mp:g} MP)",
             f"convert_vs_dcraw_pipeline_{mp:g}mp", rp["ratio"] if rp else None, "<=",
             GOALS["convert_vs_dcraw_pipeline"], rp, why or pps.get("reason") or comp.get("frontier_error"))
    if rp:
        g["note"] = pipeline_note(comp.get("frontier"), pps)
    return g


def pipeline_note(front, pps):
    """Which heif-enc quality the pipeline ran at, and why."""
    hit = ((front or {}).get("heif_enc") or {}).get("match")
    label = pps.get("label", "")
    q = label.split("heif-enc -q ")[1].split(" ")[0] if "heif-enc -q " in label else "?"
    return (f"heif-enc q{q}, " + ("the lowest measured quality at the default level's SSIM-Y@1/2 on the "
                                  f"{front['crop']} crop" if hit else "below the default level's fidelity")
            if front else f"heif-enc q{q}")


def time_goal(comp, tag, label):
    """A real RAW's default conversion against the dcraw pipeline (the frontier part, BENCH_FRONTIER_ROUNDS rounds)."""
    sides = {s["name"]: s for s in comp.get("sides", [])}
    rp = (comp.get("ratios") or {}).get("dcraw-pipeline")
    g = goal(f"convert <= 0.5x dcraw_emu+heif-enc+exiftool, heif-enc at the default's fidelity ({label})",
             f"convert_vs_dcraw_pipeline_{tag}", rp["ratio"] if rp else None, "<=",
             GOALS["convert_vs_dcraw_pipeline"], rp,
             comp.get("error") or sides.get("readback", {}).get("reason") or sides.get("dcraw-pipeline", {}).get(
                 "reason"))
    if rp:
        g["note"] = pipeline_note(comp.get("frontier"), sides.get("dcraw-pipeline", {}))
    return g


def frontier_goals(comp, tag, label):
    """The size goals of the frontier (frontier.equal_fidelity): the default effort <= 1.00x heif-enc's size at equal
    fidelity, small <= 0.90x, each on the crop. A ratio that is only a bound decides when the bound does."""
    front = comp.get("frontier") or {}
    default = front.get("default", "balanced")
    why = comp.get("frontier_error") or comp.get("error") or "the frontier's measure did not run"
    for lv, key, text in ((default, "default_size_vs_heif_enc", f"the default effort ({default})"),
                          ("small", "small_size_vs_heif_enc", "the small effort")):
        row = ((front.get("levels") or {}).get(lv) or {}).get("crop")
        target = GOALS[key]
        g = goal(f"{text}: size <= {target:.2f}x heif-enc's at equal SSIM-Y@1/2 ({label})", f"{key}_{tag}",
                 row.get("ratio") if row else None, "<=", target, None, why)
        if row and row.get("ratio") is not None:
            b = row.get("bound")
            g["note"] = (f"{row['bpp']:.3f} vs {row['heif_enc_bpp']:.3f} bit/px on the {front.get('crop')} crop at "
                         f"SSIM-Y@1/2 {row['mean']:.4f} / worst {row['worst']:.4f}"
                         + (f"; the ratio is {'at most' if b == '<=' else 'at least'} this (heif-enc's measured "
                            "qualities do not bracket it)" if b else "")
                         + ("; from the cache" if front.get("cached") else ""))
            if b and not ((b == "<=" and row["ratio"] <= target) or (b == ">=" and row["ratio"] > target)):
                g["status"], g["why"] = "NOT MEASURED", "the bound does not decide the goal"
        yield g


def lossless_goal(comp, mp, rbs, why):
    """Output size against the lossless-JPEG twin of the same scene (zlib over the DNG without a twin)."""
    ob = rbs.get("output_bytes")
    lossless = comp.get("lossless_raw") or {"kind": "lossless-JPEG DNG of the same scene", "bytes": None}
    z = comp.get("lossless_raw_standin_bytes")
    g = goal(f"output >= 8x smaller than a lossless RAW ({lossless['kind']}, {mp:g} MP)", f"size_vs_lossless_{mp:g}mp",
             lossless["bytes"] / ob if ob and lossless["bytes"] else None, ">=", GOALS["size_vs_lossless_raw"],
             {"output_bytes": ob, "lossless_bytes": lossless["bytes"], "zlib_standin_bytes": z}, why)
    front = comp.get("frontier") or {}
    row = ((front.get("levels") or {}).get(front.get("default")) or {}).get("crop")
    if ob:
        g["note"] = (f"{fmt_mb(ob)} vs {fmt_mb(lossless['bytes'])}"
                     + (f" (zlib stand-in {fmt_mb(z)})" if lossless.get("file") and z else "")
                     + (f"; at SSIM-Y@1/2 {row['mean']:.4f} / worst {row['worst']:.4f} on the {front['crop']} crop"
                        if row else ""))
    return g


def agreement(prev, cur):
    """Compares this run's ratios with the previous Reports/bench.json (same configuration only): they agree when
    the two runs' per-round ranges overlap."""
    out = []
    if prev.get("config") != cur.get("config"):
        return out
    pg = {g["id"]: g for g in prev.get("goals", [])}
    for g in cur["goals"]:
        p = pg.get(g["id"])
        if not p or "value" not in p or "value" not in g:
            continue
        # A goal's detail is the comparison's ratio record, or for some goals a line of text (no per-round range).
        d, pd = (x if isinstance(x, dict) else {} for x in (g.get("detail"), p.get("detail")))
        lo, hi = d.get("per_round_min", g["value"]), d.get("per_round_max", g["value"])
        plo, phi = pd.get("per_round_min", p["value"]), pd.get("per_round_max", p["value"])
        out.append({"id": g["id"], "previous": p["value"], "now": g["value"],
                    "agree_within_noise": not (hi < plo or phi < lo)})
    return out


def noise_goals(comp):
    """Issue 20's goals from the noise comparison, per ISO: the output against the lossless-JPEG twin, the encode
    stage against the clean chart's, and on ISO 3200 the bits per pixel at a visually-lossless verdict."""
    for im in comp.get("images", []):
        iso = im.get("iso")
        if iso is None or "convert" not in im:
            continue
        why = im["convert"].get("reason") or im.get("error")
        ll = im.get("lossless")
        g = goal(f"output >= 8x smaller than a lossless RAW (24 MP chart, ISO {iso})", f"noise_size_vs_lossless_iso{iso}",
                 ll["ratio"] if ll else None, ">=", GOALS["size_vs_lossless_raw"], ll,
                 why or "no lossless twin (BENCH_QUICK)")
        if ll:
            g["note"] = f"{fmt_mb(im['convert'].get('output_bytes'))} vs {fmt_mb(ll['bytes'])}"
        yield g
        vc = im.get("vs_clean_chart") or {}
        per = vc.get("encode_ratio_per_round") or []
        yield goal(f"encode no slower than on the clean chart (24 MP, ISO {iso})", f"noise_encode_vs_clean_iso{iso}",
                   vc.get("encode_ratio"), "<=", GOALS["noise_encode_vs_clean"],
                   {"per_round_min": min(per), "per_round_max": max(per), "wall_ratio": vc.get("wall_ratio")} if per
                   else None, why or "the clean chart did not run (BENCH_QUICK)")
        if iso == 3200:
            sh = im.get("shipped") or {}
            g = goal("<= 2 bits per pixel at the visually-lossless verdict, viewing size (24 MP, ISO 3200)",
                     "noise_bpp_iso3200", im.get("bpp"), "<=", GOALS["noise_bpp_iso3200"],
                     {k: sh.get(k) for k in ("loss_mean", "loss_worst_block", "visually_lossless")},
                     why or sh.get("error"))
            if g["status"] == "MET" and not sh.get("visually_lossless"):
                g["status"] = "NOT MET"
                g["why"] = "bits met, but the shipped file is not visually lossless at viewing size"
            if "loss_mean" in sh:
                g["note"] = (f"viewing-size loss {sh['loss_mean']:.4f} mean / {sh['loss_worst_block']:.4f} worst "
                             f"block ({'visually lossless' if sh['visually_lossless'] else 'NOT visually lossless'})")
            yield g


def worker_goals(comp):
    """Decoders in worker processes cost at most 5 % over the same run with them in process."""
    r = (comp.get("ratios") or {}).get("in-process")
    detail = r and f"per round {r['per_round_min']:.3f}-{r['per_round_max']:.3f}"
    if detail and comp.get("cpu_ratio"):
        detail += f"; CPU time (user + system, all processes) {comp['cpu_ratio']:.3f}x"
    yield goal(f"{comp['title']}: workers / in process <= 1.05", f"{comp['id']}_ratio",
               r and r["ratio"], "<=", 1.05, detail=detail, why=reason(comp))
