"""The tools Readback is measured against: exiftool, heif-info, the libheif decode loop and the floor (both from
scripts/floor/floor.c), the dcraw pipeline (dcraw_emu -> heif-enc -> exiftool), vips, ImageMagick, RawTherapee and
darktable. A peer that is not installed, or cannot do the job here, is a Side with the reason as `unavailable`.
"""
import hashlib
import json
import os
import shutil

from harness import ENV, MATCH_CROP, REF_ROUNDS, ROOT, Side, first_line, log, run

CONVERT_IM = shutil.which("convert-im6.q16") or "/usr/bin/convert"  # never /usr/local/bin/convert


def missing(tool, why=None):
    """None when `tool` is on PATH, else the reason its side cannot run."""
    return None if shutil.which(tool) else (why or f"{tool} is not installed")


def compile_floor(work):
    """The floor helper (scripts/floor/floor.c, LibRaw + libheif), compiled into `work`; BENCH_FLOOR names a
    prebuilt one. None when it does not compile (its sides then say so)."""
    path = ENV.get("BENCH_FLOOR")
    if path and os.access(path, os.X_OK):
        return path
    out = os.path.join(work, "floor")
    flags = run(["pkg-config", "--cflags", "--libs", "libraw_r", "libheif"], timeout=60)
    if flags.rc != 0:
        log("floor helper: pkg-config failed: " + first_line(flags.err))
        return None
    r = run(["gcc", "-O2", "-o", out, os.path.join(ROOT, "scripts", "floor", "floor.c")] + flags.out.split() + ["-lm"],
            timeout=300)
    if r.rc != 0:
        log("floor helper did not compile: " + first_line(r.err))
        return None
    return out


def tool_versions(rb):
    v = {"readback": rb.version}
    for name, cmd in (("exiftool", ["exiftool", "-ver"]), ("heif-info", ["heif-info", "--version"]),
                      ("imagemagick", [CONVERT_IM, "-version"]), ("vips", ["vips", "--version"]),
                      ("rawtherapee-cli", ["rawtherapee-cli", "-v"])):
        if shutil.which(cmd[0]):
            r = run(cmd, timeout=60)
            v[name] = first_line(r.out or r.err)[:120]
    return v


# ---------------------------------------------------------------------------------------------------------------
# Judging an output.
# ---------------------------------------------------------------------------------------------------------------


def heic_stat(floor, path):
    r = run([floor, "stat", path], timeout=300)
    return r.json_line() if r.rc == 0 else None


def judge(floor, path, expect_pixels):
    """None when the HEIC at `path` is a real conversion of a colour RAW of `expect_pixels`, else why not."""
    s = heic_stat(floor, path)
    if not s:
        return None, "the output does not decode with libheif"
    if expect_pixels and s["width"] * s["height"] < 0.8 * expect_pixels:
        return s, (f"not a conversion of the RAW: {s['width']}x{s['height']} is "
                   f"{s['width'] * s['height'] / expect_pixels:.0%} of the sensor's pixels (an embedded preview?)")
    if s.get("monochrome") or s.get("chroma", 0) < 0.75 or s.get("mean", 0) < 4:
        # Every bench input is a colour scene: a grey or black result is the CFA mosaic, not a picture.
        return s, (f"not a conversion: decodes to {s['width']}x{s['height']} "
                   f"{'monochrome' if s.get('monochrome') else 'grey'}, mean level {s['mean']:.1f}/255, "
                   f"mean chroma {s.get('chroma', 0):.2f}")
    return s, None


def output_check(floor, ext=(".heic",), accept_rc=(0,), expect_pixels=0):
    """A check that finds the output file, records its size, and in the first round decodes it to judge it."""
    state = {"judged": False}

    def check(r, d):
        if r.rc not in accept_rc:
            return False, {}
        outs = []
        for dirpath, _, names in os.walk(d):
            outs += [os.path.join(dirpath, n) for n in names if n.lower().endswith(ext)]
        if not outs:
            return False, {}
        p = max(outs, key=os.path.getsize)
        info = {"output_bytes": os.path.getsize(p)}
        if r.rc != 0:
            info["exit_status_note"] = f"exit {r.rc} with an output: {first_line(r.out) or first_line(r.err)}"[:200]
        if p.lower().endswith(".heic") and not state["judged"]:
            state["judged"] = True
            info["decoded"], why = judge(floor, p, expect_pixels)
            if why:
                info["invalid_output"] = why
        return True, info

    return check


# ---------------------------------------------------------------------------------------------------------------
# Audit peers.
# ---------------------------------------------------------------------------------------------------------------


def exiftool_side(folder):
    return Side("exiftool", "exiftool -j -a -G1 (one process over the set)",
                lambda d: ["exiftool", "-j", "-a", "-G1", "-q", "-q", folder], unavailable=missing("exiftool"),
                check=lambda r, d: (r.rc in (0, 1) and r.out.lstrip().startswith("["), {}))


def heif_info_side(files):
    return Side("heif-info", "heif-info FILE, one process per file (1.15 decodes each image)",
                lambda d: ["sh", "-c", 'for f in "$@"; do heif-info "$f"; done >/dev/null 2>&1; exit 0', "sh"] + files,
                unavailable=missing("heif-info"), max_rounds=REF_ROUNDS)  # no goal: a reference point


def libheif_side(floor, files):
    return Side("libheif", "libheif decode loop (floor decode-loop: primary + gain-map aux, RGB 8-bit)",
                lambda d: [floor, "decode-loop"] + files,
                check=lambda r, d: (r.rc == 0, {"decode_loop": r.json_line()}),
                unavailable=None if floor else "the floor helper did not compile")


# ---------------------------------------------------------------------------------------------------------------
# Conversion peers.
# ---------------------------------------------------------------------------------------------------------------


def floor_side(floor, dng, frame, s):
    """LibRaw decode+demosaic and one x265 encode of Readback's own frame at Readback's settings `s`, timed by the
    helper's own clock: the floor a converter cannot beat here."""
    q, preset, chroma, depth = (s[k][0] for k in ("quality", "preset", "chroma", "depth"))
    cmd = [floor, "encode", dng, None, "-q", q, "-p", preset, "-c", chroma, "-d", depth, "--frame", frame] + x265_args(s)
    breakdowns = []

    def check(r, d):
        out = os.path.join(d, "floor.heic")
        ok = r.rc == 0 and r.json_line() is not None
        if ok:
            breakdowns.append(r.json_line())
        return ok, {"output_bytes": os.path.getsize(out) if os.path.exists(out) else None, "breakdown": r.json_line()}

    why = None if floor else "the floor helper did not compile"
    why = why or (None if frame else "readback-ladder did not write Readback's frame")
    xo = s.get("x265", ("", ""))[0]
    side = Side("floor", f"floor: LibRaw decode+demosaic + x265 encode alone of Readback's own frame "
                         f"(q{q}, preset {preset}, {chroma}, {depth}-bit{', ' + xo if xo else ''}, one untiled frame)",
                lambda d: [x if x is not None else os.path.join(d, "floor.heic") for x in cmd],
                time_from=lambda r: (r.json_line() or {}).get("floor_s", r.wall), check=check, unavailable=why,
                note="time = the helper's own timer around decode+demosaic and encode (render and file write excluded)")
    side.breakdowns = breakdowns
    return side


def x265_args(s):
    """The floor's `-x NAME=VALUE,...` for the converter's x265 options (none: no flag)."""
    x = s.get("x265", ("", ""))[0]
    return ["-x", x] if x else []


def floor_fidelity(floor, dng, frame, s, work):
    """Untimed: PSNR/SSIM of the floor's encode against the frame it was given."""
    q, preset, chroma, depth = (s[k][0] for k in ("quality", "preset", "chroma", "depth"))
    r = run([floor, "encode", dng, os.path.join(work, "fid.heic"), "-q", q, "-p", preset, "-c", chroma, "-d", depth,
             "--fidelity", "--frame", frame] + x265_args(s))
    return r.json_line() if r.rc == 0 else {"error": first_line(r.err)}


DCRAW_PIPE = ('dcraw_emu -w -Z - "$1" | "$3" ppm:- -define png:compression-level=1 "$2/x.png" && '
              'heif-enc -q "$4" "$2/x.png" -o "$2/x.heic" >/dev/null && rm -f "$2/x.png" && '
              'exiftool -q -q -overwrite_original -tagsFromFile "$1" -all:all "$2/x.heic"')


def dcraw_side(floor, dng, px, q_peer, match, keep_dir):
    """dcraw_emu -> PNG -> heif-enc -q q_peer -> exiftool: the fastest Debian route that keeps the metadata. The
    latest output is kept in `keep_dir` for the untimed fidelity measure (`dcraw_fidelity`)."""
    gone = [t for t in ("dcraw_emu", "heif-enc", "exiftool") if not shutil.which(t)]

    def keep_last(d):
        if os.path.exists(os.path.join(d, "x.heic")):
            os.replace(os.path.join(d, "x.heic"), os.path.join(keep_dir, "x.heic"))
        shutil.rmtree(d, ignore_errors=True)

    on = f" on the {match['crop']} crop" if match and match.get("crop") else ""
    at = (f" (preset slow; the lowest quality at Readback's fidelity{on})" if match and match.get("match") else
          " (preset slow; its best scanned quality, still below Readback's fidelity)" if match and
          match.get("points") else " (preset slow; Readback's quality number: the fidelity match did not run)")
    return Side("dcraw-pipeline", f"dcraw_emu -w → PNG → heif-enc -q {q_peer}{at} + exiftool -tagsFromFile",
                lambda d: ["sh", "-c", DCRAW_PIPE, "sh", dng, d, CONVERT_IM, q_peer],
                check=output_check(floor, expect_pixels=px), cleanup=keep_last,
                unavailable=f"not installed: {', '.join(gone)}" if gone else None)


def dcraw_fidelity(floor, dng, keep_dir):
    """Untimed: the pipeline's kept output against dcraw_emu's frame (deterministic: the same command writes the
    frame the timed pipeline fed to heif-enc). None when the pipeline left no output."""
    if not os.path.exists(os.path.join(keep_dir, "x.heic")):
        return None
    ppm = os.path.join(keep_dir, "ref.ppm")
    r1 = run(["sh", "-c", 'dcraw_emu -w -Z "$2" "$1"', "sh", dng, ppm])
    r3 = run([floor, "compare", os.path.join(keep_dir, "x.heic"), ppm]) if r1.rc == 0 else None
    return r3.json_line() if r3 and r3.rc == 0 else {"error": "could not measure"}


def other_sides(floor, dng, px, work):
    """vips, ImageMagick, and the JPEG reference points RawTherapee and darktable: no goal depends on them, so they
    run BENCH_REF_ROUNDS rounds (default 1) beside the goal sides' BENCH_PAIRS."""
    im_why = None
    if not os.path.exists(CONVERT_IM):
        im_why = "ImageMagick is not installed"
    else:
        probe = run([CONVERT_IM, dng + "[1x1+0+0]", os.path.join(work, "probe.heic")], timeout=120)
        if probe.rc != 0:
            im_why = "ImageMagick cannot read DNG here: " + (
                "its DNG delegate is ufraw-batch, which Debian 12 does not ship" if "ufraw" in probe.err
                else first_line(probe.err))[:200]
    rt_home = os.path.join(work, "rt-home")
    os.makedirs(rt_home, exist_ok=True)
    return [
        Side("vips", "vips copy x.dng x.heic", lambda d: ["vips", "copy", dng, os.path.join(d, "x.heic")],
             check=output_check(floor, expect_pixels=px), unavailable=missing("vips", "libvips-tools is not installed"),
             max_rounds=REF_ROUNDS),
        Side("imagemagick", "ImageMagick convert x.dng x.heic",
             lambda d: [CONVERT_IM, dng, os.path.join(d, "x.heic")], check=output_check(floor, expect_pixels=px),
             unavailable=im_why, max_rounds=REF_ROUNDS),
        Side("rawtherapee", "rawtherapee-cli -j90 (JPEG; reference point, not HEIC)",
             lambda d: ["rawtherapee-cli", "-o", os.path.join(d, "x.jpg"), "-j90", "-Y", "-c", dng],
             env={"HOME": rt_home}, check=output_check(floor, ext=(".jpg",)), max_rounds=REF_ROUNDS,
             unavailable=missing("rawtherapee-cli", "rawtherapee is not installed")),
        Side("darktable", "darktable-cli (JPEG; reference point, not HEIC)",
             lambda d: ["darktable-cli", dng, os.path.join(d, "x.jpg"), "--core", "--configdir",
                        os.path.join(d, "dtconf")], check=output_check(floor, ext=(".jpg",)), max_rounds=REF_ROUNDS,
             unavailable=missing("darktable-cli", "darktable is not installed (optional reference)")),
    ]


# ---------------------------------------------------------------------------------------------------------------
# heif-enc at Readback's fidelity.
# ---------------------------------------------------------------------------------------------------------------

# Coarse heif-enc qualities of the fidelity match, in stages: a stage runs only when no earlier one reached Readback.
MATCH_STAGES = ([40, 50, 55, 60], [65, 70], [80, 90])


def to_png(ppm, png):
    """heif-enc 1.15 reads no PPM: ImageMagick writes the PNG, at compression level 1 (the pixels are what count)."""
    return run([CONVERT_IM, ppm, "-define", "png:compression-level=1", png]).rc == 0


def reaches(m, target):
    """A heif-enc file is at least as faithful as Readback's when its SSIM-Y mean and its worst 64x64 block are both
    >= Readback's (the ladder's visually-lossless rule with Readback's own figures as the thresholds)."""
    return m["ssim_y_mean"] >= target["ssim_y_mean"] and m["ssim_y_worst_block"] >= target["ssim_y_worst_block"]


def fidelity_match(rb, dng, frame, work, crop=MATCH_CROP):
    """Untimed. Finds the lowest quality at which the dcraw pipeline's encoder (heif-enc, its default preset slow) is
    at least as faithful as Readback on the same pixels, searched on the centred `crop` of Readback's own frame
    (BENCH_MATCH_CROP, default 2048x1536; a whole 24 or 50 MP frame at preset slow costs about a minute per quality
    here, and the search took 9.5 minutes at 50 MP): heif-enc encodes the crop (`readback-ladder frame --crop`) at
    rising qualities, and `readback-ladder compare --crop` measures each file, and the same region of Readback's
    shipped file, with the quality ladder's measure (SSIM-Y against the float render: mean and worst 64x64 block;
    PSNR-Y reported). A setting matches when both its mean and its worst block are >= Readback's (`reaches`). Coarse
    qualities first (MATCH_STAGES), then every quality between the last one short of Readback and the first that
    reaches it.
    Then one whole-frame check at the matched quality (the highest scanned one when none matched): heif-enc encodes
    Readback's whole frame once and both files are measured over the whole frame, so the size goal still compares
    Readback's whole file with heif-enc's bare primary of the same whole frame, and says whether the crop's quality
    also reaches Readback over the whole frame. Returns a dict for the JSON (with "error" on failure)."""
    d = os.path.join(work, "match")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    try:
        rc = run([rb.bin, "convert", dng, "--out", os.path.join(d, "rb"), "--quiet"], env=rb.env(work))
        ours = [os.path.join(d, "rb", n) for n in os.listdir(os.path.join(d, "rb")) if n.endswith(".heic")] \
            if os.path.isdir(os.path.join(d, "rb")) else []
        if rc.rc not in (0, 1) or not ours:
            return {"error": "readback convert failed: " + first_line(rc.err)}
        ppm, png = os.path.join(d, "crop.ppm"), os.path.join(d, "crop.png")
        if run([rb.ladder, "frame", dng, ppm, "--crop", crop], env=rb.env(work)).rc != 0:
            return {"error": "readback-ladder frame --crop failed"}
        if not to_png(ppm, png):
            return {"error": "could not write the crop as PNG for heif-enc"}
        os.remove(ppm)
        measured, by_digest = {}, {}

        def measure(paths, region):
            r = run([rb.ladder, "compare", dng] + paths + ["--crop", region], env=rb.env(work))
            if r.rc != 0:
                raise RuntimeError("readback-ladder compare failed: " + first_line(r.err))
            return {j["file"]: j for j in (json.loads(x) for x in r.out.splitlines() if x.startswith("{"))}

        def scan(qs, extra=()):
            files, fresh = {}, []
            for q in qs:
                out = os.path.join(d, f"he{q}.heic")
                if run(["heif-enc", "-q", str(q), png, "-o", out]).rc != 0:
                    raise RuntimeError(f"heif-enc -q {q} failed")
                with open(out, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                files[q] = (out, digest)
                # libheif maps qualities to x265 CRF in steps, so neighbours often write the same bytes.
                if digest not in by_digest and out not in fresh:
                    fresh.append(out)
                    by_digest[digest] = os.path.basename(out)
            got = measure(list(extra) + fresh, crop)
            for q, (out, digest) in files.items():
                m = dict(got.get(by_digest[digest]) or measured[by_digest[digest]])
                m["quality"], m["file"] = q, os.path.basename(out)
                w, h = (m.get("crop") or [0, 0, 0, 0])[2:4]
                if w * h:
                    m["bpp"] = m["bytes"] * 8 / (w * h)
                measured[os.path.basename(out)] = m
                os.remove(out)
            return got

        got = scan(MATCH_STAGES[0], extra=[ours[0]])
        if os.path.basename(ours[0]) not in got:
            return {"error": "readback-ladder compare did not measure Readback's file"}
        rb_m = got[os.path.basename(ours[0])]

        def points():
            return sorted(measured.values(), key=lambda m: m["quality"])

        for qs in MATCH_STAGES[1:]:
            if not any(reaches(m, rb_m) for m in points()):
                scan(qs)
        hit = next((m for m in points() if reaches(m, rb_m)), None)
        if hit:
            below = [m["quality"] for m in points() if m["quality"] < hit["quality"]]
            lo = max(below) if below else max(0, hit["quality"] - 10)
            scan(list(range(lo + 1, hit["quality"])))
            hit = next(m for m in points() if reaches(m, rb_m))
        lowest = {}
        for key in ("ssim_y_mean", "ssim_y_worst_block", "psnr_y"):
            m = next((m for m in points() if m[key] >= rb_m[key]), None)
            lowest[key] = {"quality": m["quality"], "bytes": m["bytes"], "bpp": m.get("bpp")} if m else None
        q = hit["quality"] if hit else max(m["quality"] for m in points())
        log(f"convert: heif-enc q{q} on the {crop} crop; checking it once over the whole frame (untimed)")
        return {"crop": crop, "readback": rb_m, "points": points(), "match": hit, "by_one_measure": lowest,
                "whole_frame": whole_frame_check(rb, dng, frame, ours[0], q, d, work, measure),
                "note": f"heif-enc (preset slow) on the centred {crop} crop of Readback's own frame; SSIM-Y and PSNR-Y "
                        "against Readback's float render on that crop (readback-ladder compare --crop), Readback's "
                        "shipped file measured on the same region; a setting matches when its mean and worst 64x64 "
                        "block are both >= Readback's. whole_frame: heif-enc at that quality on the whole frame, "
                        "both files measured over the whole frame"}
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        return {"error": str(e)[:300]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def whole_frame_check(rb, dng, frame, shipped, q, d, work, measure):
    """heif-enc -q `q` on Readback's whole frame, once, and both files measured over the whole frame: the bytes the
    size goal compares (Readback's whole file against heif-enc's bare primary of the same frame) and whether the
    crop's quality reaches Readback over the whole frame too."""
    if not frame:
        return {"error": "readback-ladder wrote no whole frame"}
    png, out = os.path.join(d, "frame.png"), os.path.join(d, f"whole-q{q}.heic")
    if not to_png(frame, png):
        return {"error": "could not write the whole frame as PNG for heif-enc"}
    r = run(["heif-enc", "-q", str(q), png, "-o", out])
    os.remove(png)
    if r.rc != 0:
        return {"error": f"heif-enc -q {q} on the whole frame failed: {first_line(r.err)}"[:300]}
    got = measure([shipped, out], "full")
    a, b = got.get(os.path.basename(shipped)), got.get(os.path.basename(out))
    if not a or not b:
        return {"error": "readback-ladder compare did not measure both whole files"}
    return {"quality": q, "readback": a, "heif_enc": dict(b, quality=q, encode_s=r.wall),
            "heif_enc_reaches": reaches(b, a)}
