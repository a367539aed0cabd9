"""Sensor noise: Readback on the 24 MP chart with sensor noise at each ISO (the real-world camera DNGs are the
frontier part's, frontier.py), next to heif-enc at equal fidelity, with both fidelity measures (docs/quality-ladder.md):

- archival: SSIM-Y at 1:1 against the file's own (noisy) render, every grain counted;
- viewing: SSIM-Y after a 2x2 downscale against the clean scene's render (the noiseless twin; a real file's own
  render), judged as the loss from the unencoded frame's score: visually lossless when the mean loses <= 0.01 and
  every 64x64 block <= 0.03 (`Ladder.visuallyLossless`).

Per image: `readback convert` timed (BENCH_NOISE_PAIRS rounds, every ISO interleaved with the clean 24 MP chart, whose
time is the reference of the "no slower than on a clean chart" goal); the shipped file measured over the whole frame; its
size against the lossless-JPEG twin; and heif-enc at equal viewing fidelity on a centred crop (BENCH_MATCH_CROP,
2048x1536): heif-enc (its default preset slow) encodes the crop of Readback's own frame at rising qualities, and
Readback's encoder encodes the same crop at its default settings, so both are judged on the same pixels. A whole
24 MP frame at preset slow costs minutes per quality on this machine, hence the crop. heif-enc's match is cached
(cache.noise_match_key: the image, the crop, Readback's own encode of it, heif-enc's version).

BENCH_ISOS defaults to 800 and 3200 (ISO 3200 carries the bits-per-pixel goal), BENCH_NOISE_PAIRS to 2. The untimed
measures run where a goal reads them, the shipped file's at ISO 3200; BENCH_NOISE_FULL=1 (the default with BENCH_QUICK)
runs them at every ISO, with the converter's quality and the heif-enc match (no goal reads those, and the match was
two thirds of this part: docs/bench.md, "Cuts").
"""
import json
import os
import shutil
import statistics

import cache
from harness import ISOS, MATCH_CROP, NOISE_FULL, NOISE_PAIRS, QUICK, ROOT, Side, first_line, interleave, log, run
from inputs import tiff_dims
from peers import CONVERT_IM

VL_LOSS = (0.01, 0.03)  # Ladder.visuallyLossless at viewing size: mean, every block
BPP_ISO = 3200  # the ISO whose goal reads the shipped file's verdict (goals.noise_goals)
# Coarse qualities every 10 (then 90 if none passes), then every distinct CRF between the passing point and the one
# below: at most 4 more encodes per measure, against 9 from the earlier steps of 20.
COARSE = (40, 50, 60, 70, 80)


def noise_inputs(rb, work, generated):
    """[(label, iso, dng, clean, lossless twin or None)]. `generated` is the folder `corpus generate --large` wrote;
    BENCH_QUICK remosaics the committed good.heic (a 256x192 chart) at each ISO instead."""
    out = []
    if QUICK:
        good = os.path.join(ROOT, "Corpus", "heic", "good.heic")
        clean = os.path.join(work, "quick-noiseless.dng")
        for i, iso in enumerate(ISOS):
            dng = os.path.join(work, f"quick-iso{iso}.dng")
            extra = ["--clean", clean] if i == 0 else []
            r = run([rb.bin, "corpus", "remosaic", good, "--iso", str(iso), "--out", dng] + extra, env=rb.env(work))
            if r.rc != 0:
                log(f"noise: remosaic at ISO {iso} failed: {first_line(r.err)}")
                continue
            out.append((f"good.heic remosaic, ISO {iso} (BENCH_QUICK)", iso, dng, clean, None))
        return out
    stem = os.path.join(generated, "large", "chart-24mp-rggb-14bit")
    for iso in ISOS:
        dng, twin = f"{stem}-iso{iso}-o1.dng", f"{stem}-iso{iso}-ljpeg-o1.dng"
        if os.path.exists(dng):
            out.append((f"24 MP chart, ISO {iso}", iso, dng, f"{stem}-noiseless-o1.dng",
                        twin if os.path.exists(twin) else None))
    return out


def convert_side(rb, work, dng, name, label, keep=None):
    """`readback convert --json`; keeps the output size and the encode stage of every round, and with `keep` (a
    path) the last round's output file there, so the untimed measures need no conversion of their own."""
    encode_s = []

    def check(r, d):
        # The item line by its "event", not by its first key (the keys are sorted: a new field can come first).
        line = next((j for j in (json_or_none(x) for x in r.out.splitlines()) if j and j.get("event") == "item"), None)
        if r.rc not in (0, 1) or not line or not line.get("output"):
            return False, {}
        encode_s.append(line.get("stages", {}).get("encode"))
        return True, {"output_bytes": line.get("outputBytes"), "verdict": line.get("verdict")}

    def keep_last(d):
        outs = [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".heic")] if os.path.isdir(d) else []
        if outs:
            os.replace(outs[0], keep)
        shutil.rmtree(d, ignore_errors=True)

    side = Side(name, label, lambda d: [rb.bin, "convert", dng, "--out", d, "--json"], env=rb.env(work), check=check,
                cleanup=keep_last if keep else None)
    side.encode_s = encode_s
    return side


def json_or_none(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


def measure(rb, work, source, files, crop):
    """`readback-ladder compare SOURCE FILES --crop CROP` as {file name: JSON}."""
    r = run([rb.ladder, "compare", source] + files + ["--crop", crop], env=rb.env(work))
    if r.rc != 0:
        raise RuntimeError("readback-ladder compare failed: " + first_line(r.err))
    return {j["file"]: j for j in (json.loads(x) for x in r.out.splitlines() if x.startswith("{"))}


def verdict(m):
    """Viewing-size losses and whether they are visually lossless."""
    lm = m["view_frame_mean"] - m["view_ssim_y_mean"]
    lw = m["view_frame_worst_block"] - m["view_ssim_y_worst_block"]
    return {"loss_mean": lm, "loss_worst_block": lw, "visually_lossless": lm <= VL_LOSS[0] and lw <= VL_LOSS[1]}


def shipped_file(rb, work, source, kept):
    """Measures the shipped file's primary over the whole frame: the output of the last timed round (`kept`)."""
    if not os.path.exists(kept):
        return {"error": "no timed round left an output to measure"}
    try:
        m = measure(rb, work, source, [kept], "full")[os.path.basename(kept)]
    finally:
        os.remove(kept)
    return dict(m, **verdict(m))


def ladder_defaults(rb, work):
    """The converter's default encoder setting in the ladder's terms (`readback-ladder defaults`): preset, quality and
    variant (tune and x265 options, which `readback convert --print-defaults` does not print). `readback-ladder run`
    codes the 8-bit frame: the balanced effort's 10-bit coding is the frontier's measure (frontier.py), not this one's."""
    r = run([rb.ladder, "defaults"], env=rb.env(work))
    d = r.json_line() if r.rc == 0 else None
    if not isinstance(d, dict):
        raise RuntimeError("readback-ladder defaults failed: " + first_line(r.err))
    return d


def converter_quality(rb, work, dng, defaults):
    """The quality `readback convert` encodes this RAW at by default (`readback-ladder noise`: lower on a visibly
    noisy frame), and the frame's noise sigma."""
    r = run([rb.ladder, "noise", dng], env=rb.env(work))
    d = r.json_line() if r.rc == 0 else None
    if not isinstance(d, dict):
        return defaults["quality"], None
    return d.get("quality", defaults["quality"]), d.get("sigma")


def readback_on_crop(rb, work, source, defaults, quality):
    """Readback's encoder at its default settings (the quality it gives this frame) on the crop
    (`readback-ladder run --settings`): one TSV row."""
    out = os.path.join(work, "noise-crop.tsv")
    setting = f"{defaults['preset']}:{quality}:{defaults['variant']}"
    r = run([rb.ladder, "run", source, "--crop", MATCH_CROP, "--settings", setting, "--out", out], env=rb.env(work))
    if r.rc != 0:
        raise RuntimeError("readback-ladder run failed: " + first_line(r.err))
    with open(out) as f:
        lines = [x.rstrip("\n").split("\t") for x in f if not x.startswith("#")]
    row = dict(zip(lines[0], lines[1]))
    px = int(row["width"]) * int(row["height"])
    return {"bytes": int(row["bytes"]), "bpp": int(row["bytes"]) * 8 / px, "encode_s": float(row["encode_s"]),
            "ssim_y_mean": float(row["ssim_y_mean"]), "ssim_y_worst_block": float(row["ssim_y_worst64"]),
            "view_ssim_y_mean": float(row["view_ssim_mean"]), "view_ssim_y_worst_block": float(row["view_ssim_worst64"]),
            "view_frame_mean": float(row["view_frame_mean"]), "view_frame_worst_block": float(row["view_frame_worst64"]),
            "pixels": px}


def heif_enc_match(rb, work, dng, source, ours):
    """heif-enc on the crop of Readback's frame: the lowest quality whose viewing mean and worst block both reach
    Readback's own encode of the same crop, and whose 1:1 SSIM (archival) does too: on a noisy flat chart the viewing
    measure alone rewards smoothing the grain away without limit (heif-enc q22 "matched" at almost no bits). Coarse qualities, then every distinct CRF in between (libheif 1.15 maps
    quality q to CRF (100 - q) / 2 in whole steps, so only every second quality differs)."""
    d = os.path.join(work, "noise-match")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    try:
        ppm, png = os.path.join(d, "f.ppm"), os.path.join(d, "f.png")
        if run([rb.ladder, "frame", dng, ppm, "--crop", MATCH_CROP], env=rb.env(work)).rc != 0:
            return {"error": "readback-ladder frame --crop failed"}
        if run([CONVERT_IM, ppm, "-define", "png:compression-level=1", "PNG24:" + png]).rc != 0:  # peers.DCRAW_PIPE
            return {"error": "could not write the crop as PNG for heif-enc"}
        points = {}

        def scan(qs):
            files = []
            for q in qs:
                if q in points:
                    continue
                out = os.path.join(d, f"he{q}.heic")
                r = run(["heif-enc", "-q", str(q), png, "-o", out])
                if r.rc != 0:
                    raise RuntimeError(f"heif-enc -q {q} failed: {first_line(r.err)}")
                points[q] = {"quality": q, "encode_s": r.wall}
                files.append(out)
            if files:
                for name, m in measure(rb, work, source, files, MATCH_CROP).items():
                    q = int(name[2:-5])
                    points[q].update(m)
            for f in files:
                os.remove(f)

        def view(m):
            return (m["view_ssim_y_mean"] >= ours["view_ssim_y_mean"]
                    and m["view_ssim_y_worst_block"] >= ours["view_ssim_y_worst_block"])

        def archival(m):
            return m["ssim_y_mean"] >= ours["ssim_y_mean"]

        def both(m):
            return view(m) and archival(m)

        def between(test):
            """The distinct CRFs between the last coarse quality short of `test` and the first that passes it."""
            hit = min((q for q, m in points.items() if test(m)), default=None)
            if hit is None:
                return []
            below = max((q for q in points if q < hit), default=hit - 20)
            return list(range(below + 2, hit, 2))

        def lowest(test):
            return min((q for q, m in points.items() if test(m)), default=None)

        tests = (("both", both), ("view", view), ("archival", archival))
        scan(COARSE)
        if not any(both(m) for m in points.values()):
            scan((90,))
        # The three measures' refinements in one scan: one `readback-ladder compare` (two renders of the 24 MP
        # frame) instead of one per measure.
        scan(sorted({q for _, test in tests for q in between(test)}))
        hits = {name: lowest(test) for name, test in tests}
        pts = [points[q] for q in sorted(points)]
        for m in pts:
            m["bpp"] = m["bytes"] * 8 / ours["pixels"]
        pick = {k: (points[q] if q is not None else None) for k, q in hits.items()}
        return {"points": pts, "match": pick["both"], "match_view_only": pick["view"],
                "match_archival_only": pick["archival"]}
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        return {"error": str(e)[:300]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def kept_path(work, iso):
    return os.path.join(work, f"noise-shipped-iso{iso}.heic")


def one_image(rb, work, label, iso, dng, clean, twin, defaults, side, clean_side=None):
    """Times, sizes and both measures of one image, once its side (and the clean chart's, for the time goal) ran in
    the shared rounds (noise_comparison)."""
    source = f"{dng}={clean}" if clean else dng
    w, h = tiff_dims(dng)
    kept = kept_path(work, iso)
    clean_enc = [x for x in clean_side.encode_s if x] if clean_side else []
    enc = [x for x in side.encode_s if x]
    s = side.summary()
    res = {"label": label, "iso": iso, "input": os.path.basename(dng), "clean_truth": clean and os.path.basename(clean),
           "dimensions": [w, h], "input_bytes": os.path.getsize(dng), "convert": s,
           "encode_stage_s": [x for x in side.encode_s if x is not None]}
    if clean_side and side.by_round and clean_side.by_round:
        common = [r for r in side.by_round if r in clean_side.by_round]
        res["vs_clean_chart"] = {
            "wall_ratio": statistics.median(side.by_round[r] for r in common)
            / statistics.median(clean_side.by_round[r] for r in common),
            "encode_ratio": statistics.median(enc) / statistics.median(clean_enc) if enc and clean_enc else None,
            "encode_ratio_per_round": [a / b for a, b in zip(enc, clean_enc)]}
    ob = s.get("output_bytes")
    if ob:
        res["bpp"] = ob * 8 / (w * h) if w * h else None
    if twin and ob:
        res["lossless"] = {"file": os.path.basename(twin), "bytes": os.path.getsize(twin),
                           "ratio": os.path.getsize(twin) / ob}
    if not (NOISE_FULL or iso == BPP_ISO):
        if os.path.exists(kept):
            os.remove(kept)
        return res
    log(f"noise: {label}: measuring the shipped file (the last round's) over the whole frame (untimed)")
    try:
        res["shipped"] = shipped_file(rb, work, source, kept)
        if NOISE_FULL:
            quality, sigma = converter_quality(rb, work, dng, defaults)
            res["noise_sigma"], res["quality"] = sigma, quality
            ours = readback_on_crop(rb, work, source, defaults, quality)
            ours.update(verdict(ours))
            res["crop"] = {"size": MATCH_CROP, "readback": ours,
                           "heif_enc": cached_match(rb, work, dng, clean, source, ours)}
    except (RuntimeError, OSError, KeyError, ValueError, IndexError) as e:
        res["error"] = str(e)[:300]
    return res


def cached_match(rb, work, dng, clean, source, ours):
    """heif_enc_match, from the cache when the image, the crop, Readback's encode of it and heif-enc are unchanged
    (its heif-enc encode times are then an earlier run's: marked "cached")."""
    key = cache.noise_match_key(dng, clean, MATCH_CROP, ours)
    he = cache.load("noise-match", key)
    if he is not None:
        log(f"noise: heif-enc at equal fidelity from the cache ({key[:12]})")
        return dict(he, cached=True)
    log(f"noise: heif-enc at equal fidelity (viewing size and 1:1) on the {MATCH_CROP} crop (untimed)")
    he = heif_enc_match(rb, work, dng, source, ours)
    if not he.get("error"):
        cache.store("noise-match", key, he)
    return he


def noise_comparison(rb, work, generated):
    """The noise section of Reports/bench.json: one entry per ISO, and the clean chart. The corpus's real camera
    DNGs, measured here until the effort levels, are the frontier part's (frontier.py): the same heif-enc match at
    equal fidelity there, with every level beside it."""
    try:
        defaults = ladder_defaults(rb, work)
    except RuntimeError as e:
        return {"id": "noise", "title": "sensor noise", "match_crop": MATCH_CROP, "error": str(e), "images": []}
    clean_chart = None if QUICK else os.path.join(generated, "large", "chart-24mp-rggb-14bit-o1.dng")
    images = []
    clean_side = None
    if clean_chart and os.path.exists(clean_chart):
        clean_side = convert_side(rb, work, clean_chart, "clean-chart", "readback convert (clean 24 MP chart)")
    inputs = noise_inputs(rb, work, generated)
    # Every ISO and the clean chart in the same rounds: the clean chart's time is each ISO's reference, converted
    # once a round rather than once a round for each ISO.
    sides = [convert_side(rb, work, dng, f"readback-iso{iso}", f"readback convert ({label})", keep=kept_path(work, iso))
             for label, iso, dng, _, _ in inputs]
    log(f"noise: {', '.join(i[0] for i in inputs)}: {NOISE_PAIRS} interleaved rounds"
        + (" with the clean chart" if clean_side else ""))
    interleave(sides + ([clean_side] if clean_side else []), NOISE_PAIRS, os.path.join(work, "noise-rounds"))
    for (label, iso, dng, clean, twin), side in zip(inputs, sides):
        images.append(one_image(rb, work, label, iso, dng, clean, twin, defaults, side, clean_side))
    if clean_side:
        s = clean_side.summary()
        twin = clean_chart.replace("-o1.dng", "-ljpeg-o1.dng")
        w, h = tiff_dims(clean_chart)
        row = {"label": "24 MP chart, clean (the earlier benchmark input)", "iso": None, "convert": s,
               "input": os.path.basename(clean_chart), "dimensions": [w, h],
               "encode_stage_s": [x for x in clean_side.encode_s if x is not None]}
        if s.get("output_bytes"):
            row["bpp"] = s["output_bytes"] * 8 / (w * h)
            if os.path.exists(twin):
                row["lossless"] = {"file": os.path.basename(twin), "bytes": os.path.getsize(twin),
                                   "ratio": os.path.getsize(twin) / s["output_bytes"]}
        images.append(row)
    return {"id": "noise", "title": "sensor noise: 24 MP chart per ISO", "match_crop": MATCH_CROP,
            "readback_setting": defaults,
            "visually_lossless_loss": {"mean": VL_LOSS[0], "worst_block": VL_LOSS[1]}, "images": images}
