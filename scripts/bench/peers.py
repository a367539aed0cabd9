"""The tools Readback is measured against: exiftool, heif-info, the libheif decode loop and the floor (both from
scripts/floor/floor.c), the dcraw pipeline (dcraw_emu -> heif-enc -> exiftool), vips, ImageMagick, RawTherapee and
darktable. A peer that is not installed, or cannot do the job here, is a Side with the reason as `unavailable`.
"""
import os
import shutil

from harness import ENV, REF_ROUNDS, ROOT, Side, first_line, log, run

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
    # The LibRaw `readback` links (`make deps` builds it into LIBRAW_PREFIX, static), so the floor decodes with the
    # same library; its .pc file names the prefix it was built in, which a copied prefix overrides.
    prefix = ENV.get("LIBRAW_PREFIX", os.path.join(ROOT, ".build", "libraw"))
    pc = os.path.join(prefix, "lib", "pkgconfig")
    env, define = {}, []
    if os.path.isdir(pc):
        env["PKG_CONFIG_PATH"] = pc + (":" + ENV["PKG_CONFIG_PATH"] if ENV.get("PKG_CONFIG_PATH") else "")
        define = [f"--define-variable=prefix={prefix}"]
    raw = run(["pkg-config", *define, "--cflags", "--libs", "libraw_r"], env=env, timeout=60)
    heif = run(["pkg-config", "--cflags", "--libs", "libheif"], timeout=60)
    if raw.rc != 0 or heif.rc != 0:
        log("floor helper: pkg-config failed: " + first_line(raw.err or heif.err))
        return None
    r = run(["gcc", "-O2", "-o", out, os.path.join(ROOT, "scripts", "floor", "floor.c")] + raw.out.split()
            + heif.out.split() + ["-lm"], timeout=300)
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
        if p.lower().endswith(".heic") and not state["judged"] and floor:
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


# The floor's tile side: Readback's default (its rule moves each frame's by up to 64 px to cut the padding).
FLOOR_TILE = 512


def floor_side(floor, dng, frame, s):
    """LibRaw decode+demosaic and an x265 encode of Readback's own frame at the default effort's own settings `s`
    (preset, depth, chroma, x265 options, and the quality the converter gives this frame) in tiles coded as Readback
    codes them, timed by the helper's own clock: the floor a converter cannot beat here. (One untiled frame could not
    take the default's 16×16 coding trees, which HEVC allows only up to level 4.1.) A faster, bigger setting moves the
    floor with it, so the floor ratio cannot be bought with size unseen."""
    q, preset, chroma, depth = (s[k][0] for k in ("quality", "preset", "chroma", "depth"))
    cmd = [floor, "encode", dng, None, "-q", q, "-p", preset, "-c", chroma, "-d", depth, "--frame", frame,
           "--tiles", str(FLOOR_TILE)] + x265_args(s)
    breakdowns = []

    def check(r, d):
        out = os.path.join(d, "floor.heic")
        ok = r.rc == 0 and r.json_line() is not None
        if ok:
            breakdowns.append(r.json_line())
        size = (r.json_line() or {}).get("output_bytes")  # tiles: counted by the helper, no file written
        if size is None and os.path.exists(out):
            size = os.path.getsize(out)
        return ok, {"output_bytes": size, "breakdown": r.json_line()}

    why = None if floor else "the floor helper did not compile"
    why = why or (None if frame else "readback-ladder did not write Readback's frame")
    xo = s.get("x265", ("", ""))[0]
    effort = s.get("effort", ("", ""))[0]
    side = Side("floor", f"floor: LibRaw decode+demosaic + x265 encode alone of Readback's own frame at the "
                         f"{effort or 'default'} effort's settings (q{q}, preset {preset}, {chroma}, {depth}-bit"
                         f"{', ' + xo if xo else ''}, {FLOOR_TILE} px tiles each coded by a one-thread encoder, "
                         f"one per core, as Readback codes them)",
                lambda d: [x if x is not None else os.path.join(d, "floor.heic") for x in cmd],
                time_from=lambda r: (r.json_line() or {}).get("floor_s", r.wall), check=check, unavailable=why,
                note="time = the helper's own timer around decode+demosaic and encode (render and file write excluded)")
    side.breakdowns = breakdowns
    return side


def x265_args(s):
    """The floor's `-x NAME=VALUE,...` for the converter's x265 options (none: no flag)."""
    x = s.get("x265", ("", ""))[0]
    return ["-x", x] if x else []


# PNG24: 8-bit RGB whatever the colours: ImageMagick writes a frame of at most 16 colours as a 1-, 2- or 4-bit palette,
# which heif-enc 1.15 reads scrambled and codes without a word (docs/platform.md).
DCRAW_PIPE = ('dcraw_emu -w -Z - "$1" | "$3" ppm:- -define png:compression-level=1 PNG24:"$2/x.png" && '
              'heif-enc -q "$4" "$2/x.png" -o "$2/x.heic" >/dev/null && rm -f "$2/x.png" && '
              'exiftool -q -q -overwrite_original -tagsFromFile "$1" -all:all "$2/x.heic"')


def dcraw_side(floor, dng, px, q_peer, at, keep_dir=None, max_rounds=None):
    """dcraw_emu -> PNG -> heif-enc -q q_peer -> exiftool: the fastest Debian route that keeps the metadata; `at` says
    how q_peer was chosen. With `keep_dir`, the latest output is kept there."""
    gone = [t for t in ("dcraw_emu", "heif-enc", "exiftool") if not shutil.which(t)]

    def keep_last(d):
        if os.path.exists(os.path.join(d, "x.heic")):
            os.replace(os.path.join(d, "x.heic"), os.path.join(keep_dir, "x.heic"))
        shutil.rmtree(d, ignore_errors=True)

    return Side("dcraw-pipeline", f"dcraw_emu -w → PNG → heif-enc -q {q_peer}{at} + exiftool -tagsFromFile",
                lambda d: ["sh", "-c", DCRAW_PIPE, "sh", dng, d, CONVERT_IM, q_peer],
                check=output_check(floor, expect_pixels=px), cleanup=keep_last if keep_dir else None,
                unavailable=f"not installed: {', '.join(gone)}" if gone else (
                    None if q_peer else "no heif-enc quality: the frontier's measure did not run"),
                max_rounds=max_rounds)


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
