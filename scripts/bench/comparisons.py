"""The comparisons: each one stages its inputs, runs Readback and its peers interleaved, and returns the dict that
goes into Reports/bench.json (goals.py turns them into goal lines)."""
import json
import os
import re
import shutil
import statistics
import zlib

import frontier
import peers
import reportcost
from harness import (DECODE_ALL, DECODE_FILES, INFO_FILES, LARGE_PAIRS, META_COPIES, PAIRS, PEER_ROUNDS, REF_ALL_SIZES,
                     SCALE, SCALE_ROUNDS, Side, first_line, interleave, log, ratio, run, stats, throughput)
from inputs import convert_sizes, manifest, raw_inputs, stage, tiff_dims
from readback import frame_quality

# Big files only slow the decoding sides down without telling more (heif-info 1.15 decodes every image too).
HUGE = ("pillowheif_200MP_GalaxyS24Ultra.heic", "exiv2_Sony_ILCE-1.HIF")


def audit_side(rb, work, folder, label, *extra):
    """`readback audit --outputs FOLDER` with `extra` flags; exit 1 (findings) counts as a run."""
    return Side("readback", label,
                lambda d: [rb.bin, "audit", "--outputs", folder, *extra, "--no-history", "--quiet"],
                env=rb.env(work), check=lambda r, d: (r.rc in (0, 1), {}))


def audit_comparisons(rb, floor, corpus, work, baseline=None):
    """Yields each audit comparison as it finishes (a stopped run keeps the ones before)."""
    man = manifest(corpus)
    heic_dir = os.path.join(corpus, "heic")
    heics = sorted(os.path.join(heic_dir, n) for n in os.listdir(heic_dir)
                   if n.lower().endswith((".heic", ".heif", ".hif")))

    def row(p):
        return man.get("heic/" + os.path.basename(p), {})

    def decodes(p):
        return row(p).get("has_pixels") == "yes" and "libheif1.15:yes" in row(p).get("decodes_with_libraw_or_libheif", "")

    def compare(cid, title, folder, staged, a, peer, key, measure, base_flags=None):
        """Runs readback side `a` and `peer` interleaved on the staged folder, then removes it. With a baseline
        binary (BENCH_BASELINE), the same audit by that build runs in the same rounds on the same files: `a`'s time
        against it is the before/after ratio."""
        base = baseline_side(folder, base_flags) if base_flags is not None else None
        # Readback's ratios to exiftool and libheif sit far from their bounds: BENCH_PEER_ROUNDS rounds, unless a
        # baseline build is compared (its before/after ratio is a few per cent: BENCH_PAIRS).
        interleave([a, peer] + ([base] if base else []), PAIRS if base else PEER_ROUNDS, os.path.join(work, "rounds"))
        shutil.rmtree(folder, ignore_errors=True)
        comp = {"id": cid, "title": f"{title}, {len(staged)} HEIF files", "files": len(staged),
                "sides": [a.summary(), peer.summary()], key: measure(a, peer)}
        if base:
            comp["sides"].append(base.summary())
            comp["vs_baseline"] = ratio(a, base)
        return comp

    def baseline_side(folder, extra):
        if not baseline:
            return None
        return Side("baseline", f"the same audit by the baseline build ({baseline.version})",
                    lambda d: [baseline.bin, "audit", "--outputs", folder, *extra, "--no-history", "--quiet"],
                    env=baseline.env(work), check=lambda r, d: (r.rc in (0, 1), {}))

    no_decode = "readback audit --outputs DIR --no-decode"
    # 1. no pixel decoding: readback audit --no-decode vs exiftool, one process over every HEIF file x copies.
    meta = os.path.join(work, "meta")
    staged = stage(heics, meta, META_COPIES)
    log(f"audit without decoding vs exiftool: {len(staged)} files ({len(heics)} HEIF files x {META_COPIES})")
    yield (compare("audit_nodecode", "audit, no pixel decoding", meta, staged,
                       audit_side(rb, work, meta, no_decode, "--no-decode"), peers.exiftool_side(meta),
                       "vs_exiftool", throughput, ("--no-decode",)))

    # 1b. vs heif-info, one process per file (as people script it) over the set without the two huge files.
    info = os.path.join(work, "info")
    small = sorted((p for p in heics if os.path.basename(p) not in HUGE), key=os.path.getsize)
    staged = stage(small[:INFO_FILES], info)
    log(f"audit without decoding vs heif-info: {len(staged)} files")
    yield (compare("audit_vs_heifinfo", "audit, no pixel decoding, vs heif-info", info, staged,
                       audit_side(rb, work, info, no_decode, "--no-decode"), peers.heif_info_side(staged),
                       "vs_heif_info", throughput))

    # 2. full decoding: readback audit (default, decodes primary + gain maps) vs a libheif decode loop. Gain-map
    # files first (the auditor decodes their maps too), then the rest by name; the first DECODE_FILES.
    decodable = [p for p in heics if decodes(p) and (DECODE_ALL or os.path.basename(p) not in HUGE)]
    decodable.sort(key=lambda p: ("gain map: none" in row(p).get("notable", "gain map: none"), os.path.basename(p)))
    dec = os.path.join(work, "decode")
    staged = stage(decodable if DECODE_ALL else decodable[:DECODE_FILES], dec)
    log(f"audit with full decoding: {len(staged)} files that libheif 1.15 decodes")
    yield (compare("audit_decode", "audit with full decoding", dec, staged,
                       audit_side(rb, work, dec, "readback audit --outputs DIR (decodes primary + gain maps)"),
                       peers.libheif_side(floor, staged), "vs_libheif", ratio, ()))

    # 3. per-file cost at 100, 1,000, 10,000 files: hard links of the four smallest valid files.
    few = sorted((p for p in heics if decodes(p)), key=os.path.getsize)[:4] or heics[:4]
    yield audit_scaling(rb, work, few)


def report_comparisons(rb, corpus, work):
    """What --report costs at 10,000 files, and the peak RSS of a 100,000-file audit with --report (reportcost.py):
    the report part, after the audit part (BENCH_ONLY=report alone)."""
    heic_dir = os.path.join(corpus, "heic")
    heics = sorted(os.path.join(heic_dir, n) for n in os.listdir(heic_dir)
                   if n.lower().endswith((".heic", ".heif", ".hif")))
    yield reportcost.report_cost(rb, work, heics)
    yield reportcost.report_rss(rb, work, heics)


def audit_scaling(rb, work, few):
    scale = {"id": "audit_scaling", "title": "audit --no-decode per-file cost by folder size",
             "files_from": [os.path.basename(p) for p in few], "points": []}
    dirs = {}
    for n in SCALE:
        d = os.path.join(work, f"scale-{n}")
        stage(few, d, (n + len(few) - 1) // len(few))
        for extra in sorted(os.listdir(d))[n:]:
            os.unlink(os.path.join(d, extra))
        dirs[n] = d
    log(f"audit scaling: {SCALE} files, {SCALE_ROUNDS} interleaved rounds")
    times = {n: [] for n in SCALE}
    rss = {n: 0.0 for n in SCALE}
    for rnd in range(SCALE_ROUNDS):
        for n in SCALE:
            if rnd > 0 and times[n] and times[n][0] * n / 1000.0 > 30.0:
                continue  # one run of a folder that takes over 30 s is enough (budget)
            r = run([rb.bin, "audit", "--outputs", dirs[n], "--no-decode", "--no-history", "--quiet"],
                    env=rb.env(work))
            if r.rc in (0, 1):
                times[n].append(r.wall / n * 1000.0)
                rss[n] = max(rss[n], r.rss_mb)
    for n in SCALE:
        scale["points"].append({"files": n, "ms_per_file": stats(times[n]), "peak_rss_mb": rss[n]})
        shutil.rmtree(dirs[n], ignore_errors=True)
    pts = [p for p in scale["points"] if p["ms_per_file"]]
    if len(pts) >= 2:
        scale["flatness"] = pts[-1]["ms_per_file"]["median"] / pts[0]["ms_per_file"]["median"]
    return scale


def readback_frame(rb, dng, mp, work):
    """Readback's exact pre-encode frame (untimed), so the floor encodes the same pixels as Readback: the x265 cost
    depends on the picture. (path, None) or (None, why)."""
    frame = os.path.join(work, f"frame-{mp:g}mp.ppm")
    r = run([rb.ladder, "frame", dng, frame], env=rb.env(work))
    if r.rc != 0 or not os.path.exists(frame):
        return None, "readback-ladder frame failed: " + first_line(r.err)
    return frame, None


def lossless_reference(dng):
    """The losslessly compressed RAW of the same scene: the generated lossless-JPEG twin (same seed, so the same
    pixels; Compression 7 as cameras and Adobe write lossless DNGs), else zlib -6 over the DNG (only then: it is
    seconds of one core at 50 MP). (zlib bytes or None, reference)."""
    twin = re.sub(r"-o(\d)\.dng$", r"-ljpeg-o\1.dng", dng)
    if twin != dng and os.path.exists(twin):
        return None, {"bytes": os.path.getsize(twin), "kind": "lossless-JPEG DNG of the same scene",
                      "file": os.path.basename(twin)}
    with open(dng, "rb") as f:
        z = len(zlib.compress(f.read(), 6))
    return z, {"bytes": z, "kind": "zlib stand-in", "file": None}


def readback_convert_side(rb, work, dng, floor, px):
    """`readback convert --json` at its defaults; also keeps each round's stages (the item line's `stages`, seconds)
    for the stage budget. (side, {round: stages})."""
    judge = peers.output_check(floor, accept_rc=(0, 1), expect_pixels=px)
    stages = []

    def check(r, d):
        ok, info = judge(r, d)
        item = next((j for j in (json_or_none(x) for x in r.out.splitlines()) if j and j.get("event") == "item"), None)
        if ok and item and isinstance(item.get("stages"), dict):
            stages.append({"wall": r.wall, "stages": item["stages"]})
        return ok, info

    side = Side("readback", "readback convert (default settings, includes its read-back audit)",
                lambda d: [rb.bin, "convert", dng, "--out", d, "--json"], env=rb.env(work), check=check)
    return side, stages


def json_or_none(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


# The converter's stages in the order they run (`readback convert --json`, item line, `stages`), then Batch's own.
STAGE_ORDER = ("decode", "noise", "render", "encode", "gainmap", "metadata", "assemble", "write", "hash", "publish",
               "audit")


def stage_budget(readback, rounds, floor_side):
    """Each stage's median seconds over the rounds and its share of the floor's median time (the goal's
    denominator), with the floor's own decode and encode beside them; `unaccounted` is the process's wall time
    outside every stage (start-up, planning, the history). None when either side has no rounds."""
    floor_t = floor_side.summary().get("seconds") if not floor_side.unavailable else None
    if not rounds or not floor_t:
        return None
    fm = floor_t["median"]
    names = sorted({k for r in rounds for k in r["stages"]},
                   key=lambda k: (STAGE_ORDER.index(k) if k in STAGE_ORDER else len(STAGE_ORDER), k))
    rows = []
    for k in names:
        med = statistics.median(r["stages"].get(k, 0.0) for r in rounds)
        rows.append({"stage": k, "median_s": med, "share_of_floor": med / fm})
    rest = statistics.median(r["wall"] - sum(r["stages"].values()) for r in rounds)
    rows.append({"stage": "unaccounted", "median_s": rest, "share_of_floor": rest / fm})
    floor_rows = []
    for key, name in (("decode_demosaic_s", "decode+demosaic"), ("encode_s", "encode")):
        vals = [b[key] for b in getattr(floor_side, "breakdowns", []) if key in b]
        if vals:
            med = statistics.median(vals)
            floor_rows.append({"stage": name, "median_s": med, "share_of_floor": med / fm})
    return {"floor_median_s": fm, "rounds": len(rounds), "readback": rows, "floor": floor_rows,
            "note": "readback's stages from `readback convert --json` (the item's `stages`), medians over the rounds, "
                    "each over the floor's median time; render, gainmap and noise run inside or beside the encode "
                    "(moved out of its lap), so the shares add up to about the convert ratio"}


def convert_comparison(rb, floor, work, settings, defaults, mp, levels):
    """The comparison of one RAW size (one part of the run: convert_24mp, convert_50mp): Readback at its default
    against the floor (BENCH_PAIRS rounds), the dcraw pipeline at heif-enc's matched quality (BENCH_PEER_ROUNDS), the
    other effort levels (BENCH_EFFORT_ROUNDS) and the reference peers, interleaved; the frontier's crop measure
    before the rounds, untimed (frontier.py)."""
    # BENCH_PAIRS rounds at the smallest size, BENCH_LARGE_PAIRS above it; the reference peers (no goal reads them) at
    # the smallest size only, unless BENCH_REF_ALL_SIZES=1.
    smallest = mp == min(convert_sizes())
    rounds = PAIRS if smallest else LARGE_PAIRS
    (mp, dng, origin), = raw_inputs(rb, work, [mp])
    log(f"convert: {os.path.basename(dng)} ({origin}), {rounds} interleaved rounds")
    dims = tiff_dims(dng)
    px = dims[0] * dims[1]
    default_level = defaults.get("effort") or "balanced"
    quality = frame_quality(rb, work, dng, defaults.get("quality"))
    if settings["quality"][1] != "environment":  # the floor codes at the quality the converter gives this frame
        settings = dict(settings, quality=(str(quality), "readback-ladder noise (the converter's quality for this "
                                                          "frame)"))
    frame, frame_why = readback_frame(rb, dng, mp, work)
    if frame_why:
        log(frame_why)
    front, front_why = None, None
    try:
        front = frontier.measure(rb, work, dng, levels, quality) if levels else None
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        front_why = str(e)[:300]
        log(f"convert: frontier measure failed: {front_why}")
    q_peer, how = frontier.peer_quality(front, default_level)
    readback, stages = readback_convert_side(rb, work, dng, floor, px)
    floor_side = peers.floor_side(floor, dng, frame, settings)
    sides = [readback, floor_side,
             peers.dcraw_side(floor, dng, px, q_peer, f" (preset slow; {how})", max_rounds=PEER_ROUNDS)]
    sides += frontier.level_sides(rb, work, dng, floor, px, default_level) if levels else []
    sides += peers.other_sides(floor, dng, px, work) if smallest or REF_ALL_SIZES else []
    interleave(sides, rounds, os.path.join(work, "rounds"))
    comp = {"id": f"convert_{mp:g}mp", "megapixels": mp, "title": f"convert one {mp:g} MP RAW to HEIC",
            "input": {"file": os.path.basename(dng), "origin": origin, "bytes": os.path.getsize(dng),
                      "dimensions": dims}, "pixels": px,
            "floor_settings": {k: {"value": v[0], "source": v[1]} for k, v in settings.items()},
            "sides": [s.summary() for s in sides]}
    for s in sides[1:]:
        r = ratio(sides[0], s)
        if r:
            comp.setdefault("ratios", {})[s.name] = r
    comp["stage_budget"] = stage_budget(readback, stages, floor_side)
    comp["frontier"] = frontier.summarize(front, {s.name: s for s in sides}, default_level)
    if front_why:
        comp["frontier_error"] = front_why
    comp["floor_frame"] = "readback" if frame else f"none ({frame_why})"
    if frame:
        os.remove(frame)
    comp["lossless_raw_standin_bytes"], comp["lossless_raw"] = lossless_reference(dng)
    return comp
