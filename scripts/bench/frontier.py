"""The frontier: size and time at each effort level of `readback convert --effort fast|balanced|small`, next to
heif-enc at equal fidelity and the dcraw pipeline, on the same pixels in one run (docs/bench.md, "The frontier").

Size at equal fidelity is the quality ladder's measure (docs/quality-ladder.md "Effort", `readback-ladder effort`):
the centred BENCH_MATCH_CROP crop of the frame `readback convert` renders is coded at each level's settings (preset,
depth, x265 options, at the quality the converter gives this frame) as the converter codes it (tiles, one x265 thread
each), and by heif-enc (its defaults: preset slow) at BENCH_FRONTIER_HEIF_Q; every decode is compared with the crop's
archival-target encode at half size (SSIM-Y@½: mean and worst 64x64 block). heif-enc's bit/px at a level's fidelity
is interpolated log-linearly between the two measured qualities that bracket it, on the mean and on the worst block,
and the larger is taken (heif-enc must reach both); one more heif-enc call extends the qualities when a level falls
outside them, and one more codes every distinct CRF between the two that bracket a level (libheif maps the quality to
a CRF in whole steps), so that the interpolation spans one CRF step. "Matched quality": the lowest measured heif-enc
quality that reaches the default level's mean and worst block; the dcraw pipeline is timed there. The measure is
untimed and cached (cache.frontier_key).

Time and whole-file size: `readback convert --effort LEVEL` per level, interleaved with the dcraw pipeline; on the
charts these are sides of the convert parts (the default in BENCH_PAIRS rounds, the other levels in
BENCH_EFFORT_ROUNDS), on the corpus's real RAWs the frontier part (BENCH_FRONTIER_ROUNDS rounds).
"""
import math
import os

import cache
import peers
from harness import (EFFORT_ROUNDS, FRONTIER_ALL_LEVELS, FRONTIER_HEIF_Q, FRONTIER_ROUNDS, MATCH_CROP, Side,
                     first_line, interleave, log, ratio, run)
from inputs import tiff_dims
from readback import frame_quality

LEVELS = ("fast", "balanced", "small")


def level_defaults(rb):
    """{level: `readback convert --print-defaults --json --effort LEVEL`} (preset, depth, chroma, x265 options)."""
    out = {}
    for lv in LEVELS:
        r = run([rb.bin, "convert", "--print-defaults", "--json", "--effort", lv], timeout=60)
        d = r.json_line() if r.rc == 0 else None
        if not isinstance(d, dict):
            raise RuntimeError(f"readback convert --print-defaults --effort {lv} failed: "
                               + (first_line(r.err) or f"exit {r.rc}"))
        out[lv] = d
    return out


def ladder_setting(d, quality):
    """A level's encoder setting in the ladder's terms (`PRESET:QUALITY:VARIANT`) for a frame the converter gives
    `quality`: at that quality plus the level's `qualityStep` (as `ConvertOptions.frameQuality` adds it), tune ssim
    (libheif's, as the converter codes), its chroma, coded depth and x265 options (those for a frame coded as one
    picture as `untiled.NAME=VALUE`)."""
    quality = min(100, quality + int(d.get("qualityStep") or 0))
    variant = ["tune=ssim", f"chroma={d.get('chroma', '420')}", f"depth={d.get('depth', 8)}"]
    variant += [x for x in str(d.get("x265") or "").split(",") if x]
    # The options the converter adds to a primary it codes as one picture; the ladder applies them when it does.
    variant += ["untiled." + x for x in str(d.get("x265OnePicture") or "").split(",") if x]
    return f"{d['speed']}:{quality}:{','.join(variant)}"


def parse_rows(text):
    """`readback-ladder effort`'s TSV rows (stdout) as dicts; heif-enc rows get their quality."""
    rows = []
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) != 9:
            continue
        try:
            row = {"encoder": f[1], "setting": f[2], "bytes": int(f[3]), "bpp": float(f[4]), "wall_s": float(f[5]),
                   "cpu_s": float(f[6]), "mean": float(f[7]), "worst": float(f[8])}
        except ValueError:
            continue  # the header
        if row["encoder"] == "heif-enc":
            row["quality"] = int(row["setting"].split(":")[1])
        rows.append(row)
    return rows


def ladder_effort(rb, work, dng, settings, qualities, crop):
    cmd = [rb.ladder, "effort", dng, "--crop", crop]
    if settings:
        cmd += ["--settings", ";".join(settings)]
    if qualities:
        cmd += ["--heif-enc", ",".join(str(q) for q in qualities)]
    r = run(cmd, env=rb.env(work))
    if r.rc != 0:
        raise RuntimeError("readback-ladder effort failed: " + first_line(r.err))
    return parse_rows(r.out)


def heif_bpp_at(points, key, target):
    """heif-enc's bit/px at fidelity `target` on measure `key` ("mean" or "worst"): log-linear between the two
    measured qualities that bracket it. (bpp, how): "interpolated"; "at most" (its lowest quality already reaches
    `target`); "more than" (its highest does not)."""
    pts = sorted(points, key=lambda p: p["quality"])
    if target <= pts[0][key]:
        return pts[0]["bpp"], "at most"
    for a, b in zip(pts, pts[1:]):
        if a[key] < target <= b[key]:
            t = (target - a[key]) / (b[key] - a[key])
            return math.exp(math.log(a["bpp"]) + t * (math.log(b["bpp"]) - math.log(a["bpp"]))), "interpolated"
    return pts[-1]["bpp"], "more than"


def equal_fidelity(level, points):
    """A level's size against heif-enc's at equal fidelity: heif-enc's bit/px at the level's mean and at its worst
    block, the larger (heif-enc must reach both), and the ratio. `bound`: None when exact, "<=" when heif-enc needs more
    than it was measured at (the ratio is at most this), ">=" when it needs less than its lowest quality."""
    by_mean, by_worst = heif_bpp_at(points, "mean", level["mean"]), heif_bpp_at(points, "worst", level["worst"])
    bpp, how = max(by_mean, by_worst, key=lambda x: x[0])
    bound = "<=" if "more than" in (by_mean[1], by_worst[1]) else (">=" if how == "at most" else None)
    return {"heif_enc_bpp": bpp, "ratio": level["bpp"] / bpp if bpp else None, "bound": bound,
            "heif_enc_bpp_by_mean": by_mean[0], "heif_enc_bpp_by_worst": by_worst[0]}


def crf(quality):
    """libheif 1.15's x265 CRF for heif-enc's quality: (100 - q) / 2 in whole steps, so q55 and q56 code alike."""
    return (100 - quality) // 2


def refinement(levels, points):
    """The heif-enc qualities to add so that each level's mean and worst block are interpolated across one CRF step:
    every distinct CRF strictly between the two measured qualities that bracket them (q50 and q55 leave CRF 24 and 23
    unmeasured; a quality five apart spans two or three steps, over which log-linear interpolation was measured to be
    up to 0.7 % off). Each CRF is asked for by its even quality."""
    pts = sorted(points, key=lambda p: p["quality"])
    have = {crf(p["quality"]) for p in pts}
    extra = set()
    for lv in levels:
        for key in ("mean", "worst"):
            for a, b in zip(pts, pts[1:]):
                if a[key] < lv[key] < b[key]:
                    extra |= {100 - 2 * c for c in range(crf(b["quality"]) + 1, crf(a["quality"])) if c not in have}
                    break
    return sorted(extra)


def matched(points, level):
    """The lowest measured heif-enc quality whose mean and worst block both reach `level`'s, or None."""
    return next((p for p in sorted(points, key=lambda p: p["quality"])
                 if p["mean"] >= level["mean"] and p["worst"] >= level["worst"]), None)


def extension(levels, points):
    """The heif-enc quality to add on each side where a level's fidelity is outside the measured ones: one step of 5
    (the real RAWs' levels fall between q50 and q55, so a second step, once always taken, was never used)."""
    qs = sorted(p["quality"] for p in points)
    hows = [heif_bpp_at(points, k, lv[k])[1] for lv in levels for k in ("mean", "worst")]
    extra = []
    if "at most" in hows and qs[0] - 5 >= 10:
        extra.append(qs[0] - 5)
    if "more than" in hows and qs[-1] + 5 <= 95:
        extra.append(qs[-1] + 5)
    return extra


def measure(rb, work, dng, defaults, quality, crop=MATCH_CROP):
    """The untimed measure of one image (cached): each level's crop encode and heif-enc's points, each level's size
    against heif-enc at equal fidelity, and heif-enc's matched quality for the default level."""
    settings = {lv: ladder_setting(d, quality) for lv, d in defaults.items()}
    key = cache.frontier_key(rb, dng, settings, crop, FRONTIER_HEIF_Q)
    got = cache.load("frontier", key)
    if got is not None:
        log(f"frontier: {os.path.basename(dng)}: the crop's measure from the cache ({key[:12]})")
        return dict(got, cached=True)
    log(f"frontier: {os.path.basename(dng)}: each effort level and heif-enc at {FRONTIER_HEIF_Q} on the {crop} crop "
        "(untimed)")
    rows = ladder_effort(rb, work, dng, list(settings.values()), FRONTIER_HEIF_Q, crop)
    ours = [r for r in rows if r["encoder"] == "readback"]
    points = [r for r in rows if r["encoder"] == "heif-enc"]
    if len(ours) != len(settings) or len(points) < 2:
        raise RuntimeError(f"readback-ladder effort gave {len(ours)} Readback rows and {len(points)} heif-enc rows")
    levels = dict(zip(settings, ours))
    points.sort(key=lambda p: p["quality"])
    for _ in range(2):  # one step at a time, two at most
        extra = [q for q in extension(levels.values(), points) if q not in {p["quality"] for p in points}]
        if not extra:
            break
        log(f"frontier: {os.path.basename(dng)}: heif-enc also at {extra} (a level is outside the measured range)")
        points += [r for r in ladder_effort(rb, work, dng, [], extra, crop) if r["encoder"] == "heif-enc"]
        points.sort(key=lambda p: p["quality"])
    extra = refinement(levels.values(), points)
    if extra:
        log(f"frontier: {os.path.basename(dng)}: heif-enc also at {extra} (the distinct CRFs between the qualities "
            "that bracket a level)")
        points += [r for r in ladder_effort(rb, work, dng, [], extra, crop) if r["encoder"] == "heif-enc"]
        points.sort(key=lambda p: p["quality"])
    for lv, row in levels.items():
        row.update(equal_fidelity(row, points))
    out = {"crop": crop, "quality": quality, "settings": settings, "levels": levels, "heif_enc": points,
           "measure": "SSIM-Y@1/2 (2x2 downscale) against the crop's archival-target encode: mean / worst 64x64 "
                      "block; bit/px of the HEVC payload (readback-ladder effort)"}
    cache.store("frontier", key, out)
    return out


def peer_quality(front, default_level):
    """(quality as text, how it was chosen) for the dcraw pipeline's heif-enc: the matched quality for the default
    level, else heif-enc's highest measured (it never reached the default's fidelity)."""
    if not front:
        return None, "the frontier's measure did not run"
    pts = front["heif_enc"]
    hit = matched(pts, front["levels"][default_level])
    if hit:
        return str(hit["quality"]), f"the lowest measured quality at the {default_level} level's fidelity"
    return str(pts[-1]["quality"]), f"its highest measured quality, still below the {default_level} level's fidelity"


def output_bytes_check(floor, px):
    return peers.output_check(floor, accept_rc=(0, 1), expect_pixels=px)


def level_sides(rb, work, dng, floor, px, default_level, rounds=EFFORT_ROUNDS):
    """`readback convert --effort LEVEL` for the levels other than the default (whose side is the plain convert)."""
    return [Side(f"readback-{lv}", f"readback convert --effort {lv}",
                 lambda d, lv=lv: [rb.bin, "convert", dng, "--out", d, "--effort", lv, "--quiet"], env=rb.env(work),
                 check=output_bytes_check(floor, px), max_rounds=rounds)
            for lv in LEVELS if lv != default_level]


def summarize(front, sides, default_level):
    """The frontier record of one image: per level its whole file (size, time) beside the crop's measure, heif-enc at
    the matched quality, the dcraw pipeline; `sides` by name ("readback" is the default level's)."""
    if not front:
        return None
    names = {default_level: "readback", **{lv: f"readback-{lv}" for lv in LEVELS if lv != default_level}}
    pipe = sides.get("dcraw-pipeline")
    out = {"crop": front["crop"], "quality": front["quality"], "measure": front["measure"], "levels": {},
           "cached": bool(front.get("cached")), "default": default_level}
    for lv, row in front["levels"].items():
        s = sides.get(names[lv])
        rec = {"setting": front["settings"][lv], "crop": row}
        if s is not None:
            sm = s.summary()
            rec["whole"] = {k: sm.get(k) for k in ("seconds", "cpu_seconds", "peak_rss_mb", "output_bytes",
                                                    "reason", "failures")}
            if pipe is not None:
                rec["vs_pipeline"] = ratio(s, pipe)
        out["levels"][lv] = rec
    hit = matched(front["heif_enc"], front["levels"][default_level])
    out["heif_enc"] = {"points": front["heif_enc"], "match": hit}
    if pipe is not None:
        out["pipeline"] = pipe.summary()
    return out


SMALL_FRAME_PIXELS = 4_000_000  # a frame this small converts in about a second: one round is mostly noise
SMALL_FRAME_ROUNDS = 5


def frontier_rounds(pixels, rounds=None):
    """Rounds of the whole conversions for a real RAW of `pixels`: BENCH_FRONTIER_ROUNDS, and at least
    SMALL_FRAME_ROUNDS for a frame of at most SMALL_FRAME_PIXELS, whose one-second runs vary by a quarter between
    rounds (a few seconds more in all; the medians are what the goal rows read)."""
    rounds = FRONTIER_ROUNDS if rounds is None else rounds
    return max(rounds, SMALL_FRAME_ROUNDS) if pixels <= SMALL_FRAME_PIXELS else rounds


def real_comparison(rb, floor, work, dng, defaults, default_level):
    """One real RAW of the frontier part: the crop's measure (every level), then the default level's whole conversion
    (every level's with BENCH_FRONTIER_ALL_LEVELS=1) and the dcraw pipeline at the matched quality, interleaved,
    BENCH_FRONTIER_ROUNDS rounds (at least SMALL_FRAME_ROUNDS on a small frame: `frontier_rounds`)."""
    name = os.path.basename(dng)
    w, h = tiff_dims(dng)
    comp = {"id": "frontier_" + stem(dng), "label": name, "title": f"the frontier on {name}", "dimensions": [w, h],
            "input_bytes": os.path.getsize(dng)}
    quality = frame_quality(rb, work, dng, defaults[default_level]["quality"])
    try:
        front = measure(rb, work, dng, defaults, quality)
    except RuntimeError as e:
        comp["error"] = str(e)[:300]
        return comp
    q_peer, how = peer_quality(front, default_level)
    sides = [Side("readback", f"readback convert (default: {default_level})",
                  lambda d: [rb.bin, "convert", dng, "--out", d, "--quiet"], env=rb.env(work),
                  check=output_bytes_check(floor, w * h))]
    rounds = frontier_rounds(w * h)
    if FRONTIER_ALL_LEVELS:
        sides += level_sides(rb, work, dng, floor, w * h, default_level, rounds)
    sides.append(peers.dcraw_side(floor, dng, w * h, q_peer, f" (preset slow; {how})"))
    log(f"frontier: {name}: {rounds} interleaved rounds of each level and the dcraw pipeline at q{q_peer}")
    interleave(sides, rounds, os.path.join(work, "frontier-rounds"))
    comp["sides"] = [s.summary() for s in sides]
    comp["frontier"] = summarize(front, {s.name: s for s in sides}, default_level)
    r = ratio(sides[0], sides[-1])
    if r:
        comp["ratios"] = {"dcraw-pipeline": r}
    return comp


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]
