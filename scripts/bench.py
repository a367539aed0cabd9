#!/usr/bin/env python3
"""`make bench`: Readback side by side with the tools people would use instead, and with the floor.

Stdlib-only benchmark harness (benchmark tooling, not product code). Every comparison interleaves its sides
(A B A B ..., BENCH_PAIRS rounds, 5 by default) in one run on the same files, and quotes ratios of medians with the
per-round min-max, because these 2-core machines are shared and noisy. Peak RSS comes from wait4's rusage (the
largest process of the command's tree). A part of Readback that is not in this build, or a peer tool that is not
installed or cannot do the job, gives a "not available" row with the reason instead of failing the run.

    scripts/bench.py [READBACK_BIN]        (scripts/bench.sh compiles the floor helper and calls this)

Knobs (environment; docs/bench.md has the full list): BENCH_QUICK=1 (tiny inputs, 3 rounds: a smoke test, not a
measurement), BENCH_PAIRS, BENCH_SIZES (megapixels, default "24,50": the RAW sizes issue 11 names), BENCH_SCALE (default
"100,1000,10000"), BENCH_META_COPIES, BENCH_INFO_FILES, BENCH_DECODE_FILES, BENCH_REF_ROUNDS, BENCH_CORPUS,
BENCH_QUALITY / BENCH_PRESET / BENCH_CHROMA / BENCH_DEPTH, BENCH_OUT, BENCH_UPDATE_README=1, BENCH_FLOOR,
BENCH_ONLY=audit|convert.
"""
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = os.environ
QUICK = ENV.get("BENCH_QUICK") == "1"
PAIRS = int(ENV.get("BENCH_PAIRS", "3" if QUICK else "5"))
SIZES = [float(s) for s in ENV.get("BENCH_SIZES", "2" if QUICK else "24,50").split(",") if s.strip()]
SCALE = [int(s) for s in ENV.get("BENCH_SCALE", "100,300" if QUICK else "100,1000,10000").split(",") if s.strip()]
META_COPIES = int(ENV.get("BENCH_META_COPIES", "2" if QUICK else "10"))
INFO_FILES = int(ENV.get("BENCH_INFO_FILES", "6" if QUICK else "20"))
DECODE_FILES = int(ENV.get("BENCH_DECODE_FILES", "4" if QUICK else "12"))
REF_ROUNDS = int(ENV.get("BENCH_REF_ROUNDS", "1" if QUICK else "2"))
SCALE_ROUNDS = int(ENV.get("BENCH_SCALE_ROUNDS", "2" if QUICK else "3"))
TIMEOUT = float(ENV.get("BENCH_TIMEOUT", "900"))
CONVERT_IM = shutil.which("convert-im6.q16") or "/usr/bin/convert"  # never /usr/local/bin/convert
GOALS = {
    "convert_vs_floor": 1.25,  # issue 6: per-image wall time <= 1.25x the floor
    "audit_nodecode_vs_exiftool": 10.0,  # issue 8: >= 10x exiftool's throughput
    "audit_decode_vs_libheif": 1.2,  # issue 8: <= 1.2x libheif decoding the same items
    "convert_vs_dcraw_pipeline": 0.5,  # issue 11: <= 0.5x dcraw_emu+heif-enc+exiftool, equal fidelity, <= size
    "size_vs_lossless_raw": 8.0,  # issue 11: output >= 8x smaller than a losslessly compressed RAW
    "rss_vs_16bit_frame": 3.0,  # issue 11: peak RSS per worker < 3x one decoded 16-bit frame
}


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Run:
    """One finished command: wall seconds, peak RSS in MB, exit code, output."""

    def __init__(self, wall, rss_mb, cpu, rc, out, err):
        self.wall, self.rss_mb, self.cpu, self.rc, self.out, self.err = wall, rss_mb, cpu, rc, out, err

    def json_line(self):
        for line in reversed(self.out.strip().splitlines()):
            try:
                return json.loads(line)
            except ValueError:
                continue
        return None


def run(cmd, env=None, cwd=None, timeout=TIMEOUT):
    """Runs cmd (a list), timing it and reading its tree's peak RSS from wait4; kills the group on timeout."""
    e = dict(ENV)
    e.update(env or {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=e, cwd=cwd,
                                 start_new_session=True)
        except OSError as x:
            return Run(0.0, 0.0, 0.0, 127, "", str(x))
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime, p.returncode,
                   out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def first_line(text):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return lines[0] if lines else ""


def stats(xs):
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


# ---------------------------------------------------------------------------------------------------------------
# Sides: something that can be run once per round.
# ---------------------------------------------------------------------------------------------------------------


class Side:
    """One tool in a comparison. `available` is None or the reason it cannot run."""

    def __init__(self, name, label, make_cmd, *, time_from=None, check=None, env=None, unavailable=None,
                 cleanup=None, note=None, max_rounds=None):
        self.name, self.label, self.make_cmd = name, label, make_cmd
        self.max_rounds = max_rounds  # reference points run fewer rounds than the goal comparisons
        self.time_from = time_from  # optional fn(Run) -> seconds (e.g. the floor's own timer)
        self.check = check  # optional fn(Run, round_dir) -> (ok, info dict)
        self.env, self.unavailable, self.cleanup, self.note = env, unavailable, cleanup, note
        self.times, self.walls, self.rss, self.failures, self.infos = [], [], [], [], []
        self.by_round = {}
        self.last = name

    def run_once(self, round_dir, round_no=0):
        os.makedirs(round_dir, exist_ok=True)
        cmd = self.make_cmd(round_dir)
        r = run(cmd, env=self.env)
        ok, info = (r.rc == 0, {}) if self.check is None else self.check(r, round_dir)
        if not ok:
            self.failures.append(f"exit {r.rc}: {first_line(r.err) or first_line(r.out)}"[:300])
        else:
            t = self.time_from(r) if self.time_from else r.wall
            self.times.append(t)
            self.by_round[round_no] = t
            self.walls.append(r.wall)
            self.rss.append(r.rss_mb)
            self.infos.append(info)
        self.last = f"{self.name} {r.wall:.2f}s" if ok else f"{self.name} FAILED"
        if self.cleanup:
            self.cleanup(round_dir)
        else:
            shutil.rmtree(round_dir, ignore_errors=True)
        return ok

    def summary(self):
        d = {"name": self.name, "label": self.label}
        if self.unavailable:
            d["available"] = False
            d["reason"] = self.unavailable
            return d
        d["available"] = bool(self.times)
        d["seconds"] = stats(self.times)
        if self.time_from:
            d["process_wall_seconds"] = stats(self.walls)
        d["peak_rss_mb"] = max(self.rss) if self.rss else None
        if self.failures:
            d["failures"] = self.failures
            if not self.times:
                d["reason"] = "every run failed: " + self.failures[0]
        if self.note:
            d["note"] = self.note
        merged = {}
        for info in self.infos:
            for k, v in info.items():
                merged.setdefault(k, v)
        d.update(merged)
        return d


def interleave(sides, rounds, work):
    """Runs the available sides in turn, A B C A B C ..., for `rounds` rounds."""
    live = [s for s in sides if not s.unavailable]
    for r in range(rounds):
        for s in live:
            if s.max_rounds is not None and r >= s.max_rounds:
                s.last = f"{s.name} (done)"
                continue
            s.run_once(os.path.join(work, f"{s.name}-{r}"), r)
        log("  round %d/%d: %s" % (r + 1, rounds, ", ".join(s.last for s in live)))


def ratio(a, b):
    """Ratio of medians a/b over the rounds where both sides ran, with the min-max of the per-round ratios."""
    if not a.times or not b.times:
        return None
    common = [i for i in sorted(a.by_round) if b.by_round.get(i)]
    if not common:
        return None
    per = [a.by_round[i] / b.by_round[i] for i in common]
    return {"ratio": statistics.median(a.by_round[i] for i in common) / statistics.median(b.by_round[i] for i in common),
            "rounds": len(common),
            "per_round_min": min(per) if per else None, "per_round_max": max(per) if per else None}


# ---------------------------------------------------------------------------------------------------------------
# Readback capabilities in this build.
# ---------------------------------------------------------------------------------------------------------------


class Readback:
    def __init__(self, binary):
        self.bin = binary
        self.version = None
        self.help = {}
        if not binary or not os.path.isfile(binary) or not os.access(binary, os.X_OK):
            self.missing = f"no readback binary at {binary!r} (make release)"
            return
        self.missing = None
        r = run([binary, "--version"], timeout=60)
        self.version = first_line(r.out) if r.rc == 0 else None
        self.versions_text = r.out.strip()
        for sub in ("audit", "convert", "corpus"):
            h = run([binary, sub, "--help"], timeout=60)
            self.help[sub] = (h.out + h.err) if h.rc == 0 else ""

    def subcommand(self, sub, need=()):
        """None if `readback SUB` exists with the flags in `need`, else why not."""
        if self.missing:
            return self.missing
        h = self.help.get(sub, "")
        if not h or any("TODO" in line for line in h.splitlines()[:3]) or "not part of this build" in h:
            return f"`readback {sub}` is not in this build"
        for flag in need:
            if flag not in h:
                return f"`readback {sub}` in this build has no {flag}"
        return None

    def env(self, work):
        return {"XDG_STATE_HOME": os.path.join(work, "state"), "NO_COLOR": "1"}


def not_built(r):
    return "not part of this build" in (r.err + r.out)


# ---------------------------------------------------------------------------------------------------------------
# Inputs.
# ---------------------------------------------------------------------------------------------------------------


def find_corpus():
    for c in (ENV.get("BENCH_CORPUS"), os.path.join(ROOT, "..", "shared", "corpus"), "/work/shared/corpus"):
        if c and os.path.isdir(os.path.join(c, "heic")):
            return os.path.abspath(c)
    return None


def manifest(corpus):
    rows = {}
    path = os.path.join(corpus, "MANIFEST.tsv")
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            cols = line.rstrip("\n").split("\t")
            rows[cols[0]] = dict(zip(head, cols))
    return rows


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def stage(files, folder, copies=1):
    """Hard links (or temp copies) of `files` in `folder`, `copies` times each; nothing is ever written to the
    corpus. Returns the staged paths."""
    os.makedirs(folder, exist_ok=True)
    out = []
    for c in range(copies):
        for f in files:
            base = os.path.basename(f)
            stem, ext = os.path.splitext(base)
            dst = os.path.join(folder, f"{stem}-{c:05d}{ext}" if copies > 1 else base)
            link_or_copy(f, dst)
            out.append(dst)
    return out


def tiff_dims(path):
    """Largest (width, height) among a TIFF/DNG's IFD0 and SubIFDs (DNG raw data often sits in a SubIFD)."""
    import struct
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        e = "<" if data[:2] == b"II" else ">"
        best = (0, 0)
        todo, seen = [struct.unpack(e + "I", data[4:8])[0]], set()
        while todo:
            off = todo.pop()
            if off in seen or off + 2 > len(data):
                continue
            seen.add(off)
            n = struct.unpack(e + "H", data[off:off + 2])[0]
            w = h = 0
            for i in range(n):
                p = off + 2 + 12 * i
                if p + 12 > len(data):
                    break
                tag, typ, cnt = struct.unpack(e + "HHI", data[p:p + 8])
                val = struct.unpack(e + ("H" if typ == 3 else "I"), data[p + 8:p + (10 if typ == 3 else 12)])[0]
                if tag == 0x100:
                    w = val
                elif tag == 0x101:
                    h = val
                elif tag == 0x14A:
                    if cnt == 1:
                        todo.append(val)
                    else:
                        todo.extend(struct.unpack(e + "%dI" % cnt, data[val:val + 4 * cnt]))
            if w * h > best[0] * best[1]:
                best = (w, h)
            if off + 2 + 12 * n + 4 <= len(data):
                nxt = struct.unpack(e + "I", data[off + 2 + 12 * n:off + 6 + 12 * n])[0]
                if nxt:
                    todo.append(nxt)
        return best
    except (OSError, struct.error, IndexError):
        return (0, 0)


def raw_inputs(rb, work):
    """One DNG per requested size: from `readback corpus generate --large` when this build has it, else from
    scripts/gen_dng.py. Returns [(megapixels, path, origin)]."""
    found = []
    why = rb.subcommand("corpus", need=("--large",))
    if not why and not any(mp >= 20 for mp in SIZES):
        why = "no requested size is one of the generated 24/50 MP files"
    if not why:
        out = os.path.join(work, "corpus")
        log("generating RAWs with `readback corpus generate --large`")
        r = run([rb.bin, "corpus", "generate", "--large", "--out", out], env=rb.env(work))
        # The large files come first; a later step failing (e.g. no converter in this build) leaves them usable.
        for dirpath, _, names in os.walk(os.path.join(out, "large")):
            for n in names:
                # The -ljpeg twins are the same scenes losslessly compressed: the size goal's reference, not inputs.
                if n.lower().endswith(".dng") and "-ljpeg-" not in n:
                    p = os.path.join(dirpath, n)
                    w, h = tiff_dims(p)
                    if w * h >= 10e6 and os.path.getsize(p) >= w * h:
                        found.append((w * h / 1e6, p))
        if not found:
            why = f"`readback corpus generate --large` gave no large DNG (exit {r.rc}: {first_line(r.err)})"
    picked = []
    for mp in SIZES:
        best = min(found, key=lambda t: abs(t[0] - mp), default=None)
        if best and abs(best[0] - mp) / mp < 0.2:
            picked.append((mp, best[1], f"readback corpus generate --large ({best[0]:.1f} MP)"))
            continue
        w = int((mp * 1e6 * 1.5) ** 0.5) & ~1
        h = int(w / 1.5) & ~1
        p = os.path.join(work, f"bench-{mp:g}mp.dng")
        log(f"generating a {w}x{h} DNG with scripts/gen_dng.py ({why or 'no generated RAW of that size'})")
        r = run([sys.executable, os.path.join(ROOT, "scripts", "gen_dng.py"), p, str(w), str(h)])
        if r.rc != 0:
            raise SystemExit(f"bench: gen_dng.py failed: {r.err.strip()}")
        picked.append((mp, p, f"scripts/gen_dng.py {w}x{h}" + (f" (readback corpus: {why})" if why else "")))
    return picked


# ---------------------------------------------------------------------------------------------------------------
# Converter settings the floor must share.
# ---------------------------------------------------------------------------------------------------------------


def converter_settings(rb):
    """Quality, preset, chroma and depth readback convert uses by default, read from its --help text (and the
    environment's overrides); each value says where it came from."""
    h = rb.help.get("convert", "")
    found = {}

    def opt_default(flag):
        for line in h.splitlines():
            if f"--{flag}" in line:
                m = re.search(r"default[:\s]+([A-Za-z0-9]+)", line)
                if m:
                    return m.group(1)
        return None

    src = ""
    try:
        with open(os.path.join(ROOT, "Sources", "Converter", "Converter.swift"), encoding="utf-8") as f:
            src = f.read()
    except OSError:
        pass

    def source_default(pattern):
        m = re.search(pattern, src)
        return m.group(1) if m else None

    guesses = {"quality": ("quality", r"public var quality: Int = (\d+)", "75"),
               "preset": ("speed", r'public var speed: String = "(\w+)"', "medium"),
               "chroma": ("chroma", r"public var chroma: HeifChroma = \.yuv(4\d\d)", "420"),
               "depth": ("depth", r"public var bitDepth: Int = (\d+)", "8")}
    for key, (flag, pattern, fallback) in guesses.items():
        env = ENV.get(f"BENCH_{key.upper()}")
        if env:
            found[key] = (env, "environment")
            continue
        d = opt_default(flag)
        if d and (key != "quality" or d.isdigit()) and (key != "depth" or d in ("8", "10")):
            found[key] = (d, "readback convert --help")
        elif source_default(pattern):
            found[key] = (source_default(pattern), "Sources/Converter/Converter.swift (ConvertOptions defaults)")
        else:
            found[key] = (fallback, "assumed (not readable from this build)")
    return found


# ---------------------------------------------------------------------------------------------------------------
# Checks on outputs.
# ---------------------------------------------------------------------------------------------------------------


def heic_stat(floor, path):
    r = run([floor, "stat", path], timeout=300)
    return r.json_line() if r.rc == 0 else None


def output_check(floor, ext=(".heic",), first_only=True, accept_rc=(0,), expect_pixels=0):
    """A check that finds the output file, records its size, and (first round) decodes it to judge it."""
    state = {"judged": False}

    def check(r, d):
        if r.rc not in accept_rc or not_built(r):
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
        if p.lower().endswith(".heic") and not (first_only and state["judged"]):
            state["judged"] = True
            s = heic_stat(floor, p)
            info["decoded"] = s
            if not s:
                info["invalid_output"] = "the output does not decode with libheif"
            elif expect_pixels and s["width"] * s["height"] < 0.8 * expect_pixels:
                info["invalid_output"] = (f"not a conversion of the RAW: {s['width']}x{s['height']} is "
                                          f"{s['width'] * s['height'] / expect_pixels:.0%} of the sensor's pixels "
                                          "(an embedded preview?)")
            elif s.get("monochrome") or s.get("chroma", 0) < 0.75 or s.get("mean", 0) < 4:
                # Every bench input is a colour scene: a grey or black result is the CFA mosaic, not a picture.
                info["invalid_output"] = (f"not a conversion: decodes to {s['width']}x{s['height']} "
                                          f"{'monochrome' if s.get('monochrome') else 'grey'}, mean level "
                                          f"{s['mean']:.1f}/255, mean chroma {s.get('chroma', 0):.2f}")
        return True, info

    return check


# ---------------------------------------------------------------------------------------------------------------
# The comparisons.
# ---------------------------------------------------------------------------------------------------------------


def bench_audit(rb, floor, corpus, work, results):
    man = manifest(corpus)
    heic_dir = os.path.join(corpus, "heic")
    heics = sorted(os.path.join(heic_dir, n) for n in os.listdir(heic_dir)
                   if n.lower().endswith((".heic", ".heif", ".hif")))
    # Big files only slow the decoding sides down without telling more (heif-info 1.15 decodes every image too).
    huge = ("pillowheif_200MP_GalaxyS24Ultra.heic", "exiv2_Sony_ILCE-1.HIF")
    # 1. no pixel decoding: readback audit --no-decode vs exiftool, one process over every HEIF file x copies.
    meta = os.path.join(work, "meta")
    staged = stage(heics, meta, META_COPIES)
    log(f"audit without decoding vs exiftool: {len(staged)} files ({len(heics)} HEIF files x {META_COPIES})")
    why = rb.subcommand("audit", need=("--no-decode",))
    a = Side("readback", "readback audit --outputs DIR --no-decode",
             lambda d: [rb.bin, "audit", "--outputs", meta, "--no-decode", "--no-history", "--quiet"],
             env=rb.env(work), unavailable=why,
             check=lambda r, d: (r.rc in (0, 1) and not not_built(r), {}))
    ex = Side("exiftool", "exiftool -j -a -G1 (one process over the set)",
              lambda d: ["exiftool", "-j", "-a", "-G1", "-q", "-q", meta],
              unavailable=None if shutil.which("exiftool") else "exiftool is not installed",
              check=lambda r, d: (r.rc in (0, 1) and r.out.lstrip().startswith("["), {}))
    interleave([a, ex], PAIRS, os.path.join(work, "rounds"))
    comp = {"id": "audit_nodecode", "title": f"audit, no pixel decoding, {len(staged)} HEIF files",
            "files": len(staged), "sides": [a.summary(), ex.summary()]}
    q = ratio(ex, a)  # exiftool's time / readback's time = readback's throughput advantage
    if q:
        comp["vs_exiftool"] = {"throughput_ratio": q["ratio"], "per_round_min": q["per_round_min"],
                               "per_round_max": q["per_round_max"]}
    q = comp.get("vs_exiftool")
    results["goals"].append(goal("audit (no decode) throughput >= 10x exiftool -j -a -G1", "audit_nodecode_vs_exiftool",
                                 q["throughput_ratio"] if q else None, ">=", GOALS["audit_nodecode_vs_exiftool"],
                                 q, why or a.summary().get("reason") or ex.summary().get("reason")))
    results["comparisons"].append(comp)
    shutil.rmtree(meta, ignore_errors=True)

    # 1b. vs heif-info, one process per file (as people script it) over the set without the two huge files.
    info = os.path.join(work, "info")
    small = sorted((p for p in heics if os.path.basename(p) not in huge), key=os.path.getsize)
    staged = stage(small[:INFO_FILES], info)
    log(f"audit without decoding vs heif-info: {len(staged)} files")
    a = Side("readback", "readback audit --outputs DIR --no-decode",
             lambda d: [rb.bin, "audit", "--outputs", info, "--no-decode", "--no-history", "--quiet"],
             env=rb.env(work), unavailable=why,
             check=lambda r, d: (r.rc in (0, 1) and not not_built(r), {}))
    hi = Side("heif-info", "heif-info FILE, one process per file (1.15 decodes each image)",
              lambda d: ["sh", "-c", 'for f in "$@"; do heif-info "$f"; done >/dev/null 2>&1; exit 0', "sh"] + staged,
              unavailable=None if shutil.which("heif-info") else "heif-info is not installed")
    interleave([a, hi], PAIRS, os.path.join(work, "rounds"))
    comp = {"id": "audit_vs_heifinfo", "title": f"audit, no pixel decoding, vs heif-info, {len(staged)} HEIF files",
            "files": len(staged), "sides": [a.summary(), hi.summary()]}
    q = ratio(hi, a)
    if q:
        comp["vs_heif_info"] = {"throughput_ratio": q["ratio"], "per_round_min": q["per_round_min"],
                                "per_round_max": q["per_round_max"]}
    results["comparisons"].append(comp)
    shutil.rmtree(info, ignore_errors=True)

    # 2. full decoding: readback audit (default, decodes primary + gain maps) vs a libheif decode loop.
    decodable = [p for p in heics
                 if man.get("heic/" + os.path.basename(p), {}).get("has_pixels") == "yes"
                 and "libheif1.15:yes" in man.get("heic/" + os.path.basename(p), {}).get("decodes_with_libraw_or_libheif", "")
                 and (ENV.get("BENCH_DECODE_ALL") == "1" or os.path.basename(p) not in huge)]
    # Gain-map files first (the auditor decodes their maps too), then the rest by name; the first DECODE_FILES.
    gm = lambda p: "gain map: none" in man.get("heic/" + os.path.basename(p), {}).get("notable", "gain map: none")
    decodable = sorted(decodable, key=lambda p: (gm(p), os.path.basename(p)))
    if ENV.get("BENCH_DECODE_ALL") != "1":
        decodable = decodable[:DECODE_FILES]
    dec = os.path.join(work, "decode")
    staged = stage(decodable, dec)
    log(f"audit with full decoding: {len(staged)} files that libheif 1.15 decodes")
    why = rb.subcommand("audit")
    a = Side("readback", "readback audit --outputs DIR (decodes primary + gain maps)",
             lambda d: [rb.bin, "audit", "--outputs", dec, "--no-history", "--quiet"],
             env=rb.env(work), unavailable=why, check=lambda r, d: (r.rc in (0, 1) and not not_built(r), {}))
    lh = Side("libheif", "libheif decode loop (floor decode-loop: primary + gain-map aux, RGB 8-bit)",
              lambda d: [floor, "decode-loop"] + staged,
              check=lambda r, d: (r.rc == 0, {"decode_loop": r.json_line()}),
              unavailable=None if floor else "the floor helper did not compile")
    interleave([a, lh], PAIRS, os.path.join(work, "rounds"))
    comp = {"id": "audit_decode", "title": f"audit with full decoding, {len(staged)} HEIF files",
            "files": len(staged), "sides": [a.summary(), lh.summary()]}
    q = ratio(a, lh)
    comp["vs_libheif"] = q
    results["goals"].append(goal("full-decode audit <= 1.2x libheif decoding the same items", "audit_decode_vs_libheif",
                                 q["ratio"] if q else None, "<=", GOALS["audit_decode_vs_libheif"], q,
                                 why or a.summary().get("reason")))
    results["comparisons"].append(comp)
    shutil.rmtree(dec, ignore_errors=True)

    # 3. per-file cost at 100, 1,000, 10,000 files (hard links of a few small valid HEICs).
    why = rb.subcommand("audit", need=("--no-decode",))
    valid = [p for p in heics if man.get("heic/" + os.path.basename(p), {}).get("has_pixels") == "yes"
             and "libheif1.15:yes" in man.get("heic/" + os.path.basename(p), {}).get("decodes_with_libraw_or_libheif", "")]
    few = sorted(valid, key=os.path.getsize)[:4] or heics[:4]  # the four smallest valid files: the cost per file
    scale = {"id": "audit_scaling", "title": "audit --no-decode per-file cost by folder size",
             "files_from": [os.path.basename(p) for p in few], "points": []}
    if why:
        scale["reason"] = why
    else:
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
    results["comparisons"].append(scale)


def goal(text, key, value, op, target, detail=None, why=None):
    if value is None:
        return {"id": key, "goal": text, "status": "NOT MEASURED", "reason": why or "a side did not run"}
    met = value >= target if op == ">=" else value <= target
    g = {"id": key, "goal": text, "value": value, "target": f"{op} {target}", "status": "MET" if met else "NOT MET"}
    if detail:
        g["detail"] = detail
    return g


# Coarse heif-enc qualities of the fidelity match, in stages: a stage runs only when no earlier one reached Readback.
MATCH_STAGES = ([40, 50, 55, 60], [65, 70], [80, 90])


def fidelity_match(rb, ladder, dng, frame, work):
    """Untimed. Finds the lowest quality at which the dcraw pipeline's encoder (heif-enc, its default preset slow) is
    at least as faithful as Readback on the same pixels: heif-enc encodes Readback's own frame at rising qualities,
    and `readback-ladder compare` measures each file and Readback's shipped file with the quality ladder's measure
    (SSIM-Y against the float render over the whole frame: mean and worst 64x64 block; PSNR-Y reported). A setting
    matches when both its mean and its worst block are >= Readback's (the ladder's visually-lossless rule with
    Readback's own figures as the thresholds). Coarse qualities first (MATCH_STAGES), then every quality between the
    last one short of Readback and the first that reaches it. Returns a dict for the JSON (with "error" on failure)."""
    d = os.path.join(work, "match")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    try:
        rc = run([rb.bin, "convert", dng, "--out", os.path.join(d, "rb"), "--quiet"], env=rb.env(work))
        ours = [os.path.join(d, "rb", n) for n in os.listdir(os.path.join(d, "rb")) if n.endswith(".heic")] \
            if os.path.isdir(os.path.join(d, "rb")) else []
        if rc.rc not in (0, 1) or not ours:
            return {"error": "readback convert failed: " + first_line(rc.err)}
        png = os.path.join(d, "f.png")
        if run([CONVERT_IM, frame, "-define", "png:compression-level=1", png]).rc != 0:
            return {"error": "could not write the frame as PNG for heif-enc"}
        measured, by_digest = {}, {}

        def measure(paths):
            r = run([ladder, "compare", dng] + paths + ["--crop", "full"], env=rb.env(work))
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
            got = measure(list(extra) + fresh)
            for q, (out, digest) in files.items():
                m = dict(got.get(by_digest[digest]) or measured[by_digest[digest]])
                m["quality"], m["file"] = q, os.path.basename(out)
                measured[os.path.basename(out)] = m
                os.remove(out)
            return got

        got = scan(MATCH_STAGES[0], extra=[ours[0]])
        if os.path.basename(ours[0]) not in got:
            return {"error": "readback-ladder compare did not measure Readback's file"}
        rb_m = got[os.path.basename(ours[0])]

        def reaches(m):
            return m["ssim_y_mean"] >= rb_m["ssim_y_mean"] and m["ssim_y_worst_block"] >= rb_m["ssim_y_worst_block"]

        def points():
            return sorted(measured.values(), key=lambda m: m["quality"])

        for stage in MATCH_STAGES[1:]:
            if not any(reaches(m) for m in points()):
                scan(stage)
        hit = next((m for m in points() if reaches(m)), None)
        if hit:
            below = [m["quality"] for m in points() if m["quality"] < hit["quality"]]
            lo = max(below) if below else max(0, hit["quality"] - 10)
            scan(list(range(lo + 1, hit["quality"])))
            hit = next(m for m in points() if reaches(m))
        lowest = {}
        for key in ("ssim_y_mean", "ssim_y_worst_block", "psnr_y"):
            m = next((m for m in points() if m[key] >= rb_m[key]), None)
            lowest[key] = {"quality": m["quality"], "bytes": m["bytes"]} if m else None
        return {"readback": rb_m, "points": points(), "match": hit, "by_one_measure": lowest,
                "note": "heif-enc (preset slow) on Readback's own frame; SSIM-Y and PSNR-Y against Readback's float "
                        "render over the whole frame (readback-ladder compare); a setting matches when its mean and "
                        "worst 64x64 block are both >= Readback's"}
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        return {"error": str(e)[:300]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def bench_convert(rb, floor, work, results, settings):
    why_convert = rb.subcommand("convert", need=("--out",))
    q, preset, chroma, depth = (settings[k][0] for k in ("quality", "preset", "chroma", "depth"))
    rt_home = os.path.join(work, "rt-home")
    os.makedirs(rt_home, exist_ok=True)
    for mp, dng, origin in raw_inputs(rb, work):
        log(f"convert: {os.path.basename(dng)} ({origin}), {PAIRS} interleaved rounds")
        dng_bytes = os.path.getsize(dng)
        dims = tiff_dims(dng)
        px = dims[0] * dims[1]
        # Readback's exact pre-encode frame (untimed), so the floor encodes the same pixels as Readback: the x265
        # cost depends on the picture, and a different render would make the floor cheaper or dearer than fair.
        frame, frame_why = None, None
        ladder = os.path.join(os.path.dirname(os.path.abspath(rb.bin)), "readback-ladder")
        if not os.access(ladder, os.X_OK):
            frame_why = "readback-ladder is not built: the floor encodes its own render"
        else:
            frame = os.path.join(work, f"frame-{mp:g}mp.ppm")
            rfr = run([ladder, "frame", dng, frame], env=rb.env(work))
            if rfr.rc != 0 or not os.path.exists(frame):
                frame, frame_why = None, "readback-ladder frame failed: " + first_line(rfr.err)
        if frame_why:
            log(frame_why)
        # Before the rounds, untimed: the quality at which the dcraw pipeline's encoder matches Readback's fidelity,
        # so the pipeline is timed at equal fidelity rather than at the same quality number (docs/bench.md).
        match, q_peer = None, q
        if frame and not why_convert and shutil.which("heif-enc") and os.path.exists(CONVERT_IM):
            log("convert: finding heif-enc's quality at Readback's fidelity (untimed)")
            match = fidelity_match(rb, ladder, dng, frame, work)
            if match.get("match"):
                q_peer = str(match["match"]["quality"])
            elif match.get("points"):
                q_peer = str(max(m["quality"] for m in match["points"]))  # it never reached Readback's
            log("convert: " + (f"fidelity match failed: {match['error']}" if match.get("error") else
                               f"heif-enc matches at q{q_peer}" if match.get("match") else
                               f"heif-enc stays below Readback's fidelity up to q{q_peer}"))
        sides = []
        sides.append(Side(
            "readback", "readback convert (default settings, includes its read-back audit)",
            lambda d: [rb.bin, "convert", dng, "--out", d, "--quiet"], env=rb.env(work), unavailable=why_convert,
            check=output_check(floor, accept_rc=(0, 1), expect_pixels=px)))
        floor_cmd = [floor, "encode", dng, None, "-q", q, "-p", preset, "-c", chroma, "-d", depth]
        floor_cmd += ["--frame", frame] if frame else []
        what = "Readback's own frame" if frame else "the helper's own render"
        sides.append(Side(
            "floor", f"floor: LibRaw decode+demosaic + x265 encode alone of {what} "
                     f"(q{q}, preset {preset}, {chroma}, {depth}-bit, one untiled frame)",
            lambda d: [x if x is not None else os.path.join(d, "floor.heic") for x in floor_cmd],
            time_from=lambda r: (r.json_line() or {}).get("floor_s", r.wall),
            check=lambda r, d: (r.rc == 0 and r.json_line() is not None,
                                {"output_bytes": os.path.getsize(os.path.join(d, "floor.heic"))
                                 if os.path.exists(os.path.join(d, "floor.heic")) else None,
                                 "breakdown": r.json_line()}),
            unavailable=None if floor else "the floor helper did not compile",
            note="time = the helper's own timer around decode+demosaic and encode (render and file write excluded)"))
        pipe = ('dcraw_emu -w -Z - "$1" | "$3" ppm:- -define png:compression-level=1 "$2/x.png" && '
                'heif-enc -q "$4" "$2/x.png" -o "$2/x.heic" >/dev/null && rm -f "$2/x.png" && '
                'exiftool -q -q -overwrite_original -tagsFromFile "$1" -all:all "$2/x.heic"')
        missing = [t for t in ("dcraw_emu", "heif-enc", "exiftool") if not shutil.which(t)]
        fid_dir = os.path.join(work, "fid-dcraw")
        os.makedirs(fid_dir, exist_ok=True)

        def keep_last(d):
            """Keeps the pipeline's latest output for the untimed fidelity measure, then cleans up."""
            if os.path.exists(os.path.join(d, "x.heic")):
                os.replace(os.path.join(d, "x.heic"), os.path.join(fid_dir, "x.heic"))
            shutil.rmtree(d, ignore_errors=True)

        at = (" (preset slow; the lowest quality at Readback's fidelity)" if match and match.get("match") else
              " (preset slow; its best scanned quality, still below Readback's fidelity)" if match and
              match.get("points") else " (preset slow; Readback's quality number: the fidelity match did not run)")
        sides.append(Side(
            "dcraw-pipeline", f"dcraw_emu -w → PNG → heif-enc -q {q_peer}{at} + exiftool -tagsFromFile",
            lambda d: ["sh", "-c", pipe, "sh", dng, d, CONVERT_IM, q_peer], check=output_check(floor, expect_pixels=px),
            cleanup=keep_last,
            unavailable=f"not installed: {', '.join(missing)}" if missing else None))
        sides.append(Side(
            "vips", "vips copy x.dng x.heic", lambda d: ["vips", "copy", dng, os.path.join(d, "x.heic")],
            check=output_check(floor, expect_pixels=px),
            unavailable=None if shutil.which("vips") else "libvips-tools is not installed"))
        im_why = None
        if not os.path.exists(CONVERT_IM):
            im_why = "ImageMagick is not installed"
        else:
            probe = run([CONVERT_IM, dng + "[1x1+0+0]", os.path.join(work, "probe.heic")], timeout=120)
            if probe.rc != 0:
                im_why = "ImageMagick cannot read DNG here: " + (
                    "its DNG delegate is ufraw-batch, which Debian 12 does not ship" if "ufraw" in probe.err
                    else first_line(probe.err))[:200]
        sides.append(Side(
            "imagemagick", "ImageMagick convert x.dng x.heic",
            lambda d: [CONVERT_IM, dng, os.path.join(d, "x.heic")], check=output_check(floor, expect_pixels=px),
            unavailable=im_why))
        sides.append(Side(
            "rawtherapee", "rawtherapee-cli -j90 (JPEG; reference point, not HEIC)",
            lambda d: ["rawtherapee-cli", "-o", os.path.join(d, "x.jpg"), "-j90", "-Y", "-c", dng],
            env={"HOME": rt_home}, check=output_check(floor, ext=(".jpg",)), max_rounds=REF_ROUNDS,
            unavailable=None if shutil.which("rawtherapee-cli") else "rawtherapee is not installed"))
        sides.append(Side(
            "darktable", "darktable-cli (JPEG; reference point, not HEIC)",
            lambda d: ["darktable-cli", dng, os.path.join(d, "x.jpg"), "--core", "--configdir",
                       os.path.join(d, "dtconf")], check=output_check(floor, ext=(".jpg",)), max_rounds=REF_ROUNDS,
            unavailable=None if shutil.which("darktable-cli") else "darktable is not installed (optional reference)"))
        interleave(sides, PAIRS, os.path.join(work, "rounds"))
        by = {s.name: s for s in sides}
        comp = {"id": f"convert_{mp:g}mp", "title": f"convert one {mp:g} MP RAW to HEIC",
                "input": {"file": os.path.basename(dng), "origin": origin, "bytes": dng_bytes,
                          "dimensions": dims},
                "floor_settings": {k: {"value": v[0], "source": v[1]} for k, v in settings.items()},
                "sides": [s.summary() for s in sides]}
        rbside = by["readback"]
        for s in sides[1:]:
            r = ratio(rbside, s)
            if r:
                comp.setdefault("ratios", {})[s.name] = r
        # Fidelity, untimed: PSNR/SSIM of each encode against the frame its encoder was given.
        fid = {}
        if floor and not by["floor"].unavailable:
            r = run([floor, "encode", dng, os.path.join(work, "fid.heic"), "-q", q, "-p", preset, "-c", chroma,
                     "-d", depth, "--fidelity"] + (["--frame", frame] if frame else []))
            fid["floor_at_readback_settings"] = r.json_line() if r.rc == 0 else {"error": first_line(r.err)}
        if os.path.exists(os.path.join(fid_dir, "x.heic")):
            # dcraw_emu is deterministic: the same command writes the frame the timed pipeline fed to heif-enc.
            ppm = os.path.join(fid_dir, "ref.ppm")
            r1 = run(["sh", "-c", 'dcraw_emu -w -Z "$2" "$1"', "sh", dng, ppm])
            r3 = run([floor, "compare", os.path.join(fid_dir, "x.heic"), ppm]) if r1.rc == 0 else None
            fid["dcraw_pipeline"] = r3.json_line() if r3 and r3.rc == 0 else {"error": "could not measure"}
        shutil.rmtree(fid_dir, ignore_errors=True)
        comp["fidelity"] = fid
        comp["fidelity_note"] = ("fidelity: PSNR (RGB) and SSIM (luma, 8x8) of an encoder's output against the 8-bit "
                                 "frame it was given (the floor: Readback's frame; the dcraw pipeline: dcraw_emu's PPM, "
                                 "a different picture). fidelity_match: the issue-11 comparison on the same pixels, "
                                 "against Readback's float render (see fidelity_match.note).")
        comp["floor_frame"] = "readback" if frame else f"floor-render ({frame_why})"
        if match is not None:
            comp["fidelity_match"] = match
        if frame:
            os.remove(frame)
        # Issue 11 wants outputs >= 8x smaller than a losslessly compressed RAW of the same scene: the generated
        # lossless-JPEG twin (same seed, so the same pixels; Compression 7 as cameras and Adobe write lossless DNGs).
        # zlib -6 over the DNG stays as a second figure, and is the reference when there is no twin.
        with open(dng, "rb") as f:
            z = len(zlib.compress(f.read(), 6))
        comp["lossless_raw_standin_bytes"] = z
        twin = re.sub(r"-o(\d)\.dng$", r"-ljpeg-o\1.dng", dng)
        has_twin = twin != dng and os.path.exists(twin)
        lossless = (os.path.getsize(twin), "lossless-JPEG DNG of the same scene") if has_twin else \
            (z, "zlib stand-in")
        comp["lossless_raw"] = {"bytes": lossless[0], "kind": lossless[1],
                                "file": os.path.basename(twin) if has_twin else None}
        results["comparisons"].append(comp)
        # Goals.
        rf = comp.get("ratios", {}).get("floor")
        results["goals"].append(goal(f"convert <= 1.25x the floor ({mp:g} MP)", f"convert_vs_floor_{mp:g}mp",
                                     rf["ratio"] if rf else None, "<=", GOALS["convert_vs_floor"], rf,
                                     why_convert or by["readback"].summary().get("reason")))
        rp = comp.get("ratios", {}).get("dcraw-pipeline")
        rbs, pps = by["readback"].summary(), by["dcraw-pipeline"].summary()
        g = goal(f"convert <= 0.5x dcraw_emu+heif-enc+exiftool at >= fidelity and <= size ({mp:g} MP)",
                 f"convert_vs_dcraw_pipeline_{mp:g}mp", rp["ratio"] if rp else None, "<=",
                 GOALS["convert_vs_dcraw_pipeline"], rp, why_convert or rbs.get("reason"))
        if rp:
            # Judged on the same pixels (the two pipelines render different pictures: dcraw_emu ignores the DNG's
            # BaselineExposure), at the heif-enc quality that matches Readback's fidelity (fidelity_match).
            hit = (match or {}).get("match")
            pts = (match or {}).get("points") or []
            rb_m = (match or {}).get("readback") or {}
            peer = hit or (max(pts, key=lambda m: m["quality"]) if pts else None)
            size_ok = peer is not None and (rbs.get("output_bytes") or 1e18) <= peer["bytes"]
            fid_ok = peer is not None  # matched, or the peer never reached Readback's fidelity
            g["size_bytes"] = {"readback": rbs.get("output_bytes"),
                               "heif_enc_on_readback_frame": peer["bytes"] if peer else None,
                               "dcraw_pipeline_own_render": pps.get("output_bytes")}
            if peer:
                g["fidelity"] = {"measure": "SSIM-Y mean / worst 64x64 block, PSNR-Y; whole frame vs the float render",
                                 "readback": {k: rb_m.get(k) for k in ("ssim_y_mean", "ssim_y_worst_block", "psnr_y")},
                                 "heif_enc_quality": peer["quality"], "heif_enc_matches": bool(hit),
                                 "heif_enc": {k: peer.get(k) for k in ("ssim_y_mean", "ssim_y_worst_block", "psnr_y")},
                                 "heif_enc_lowest_quality_by_one_measure": match.get("by_one_measure")}
            if g["status"] == "MET" and not (size_ok and fid_ok):
                g["status"] = "NOT MET"
                g["why"] = "time met, but " + " and ".join(
                    ([] if size_ok else ["output larger"]) +
                    ([] if fid_ok else ["fidelity not measured: " + str((match or {}).get("error", "no frame"))]))
        results["goals"].append(g)
        ob = rbs.get("output_bytes")
        g = goal(
            f"output >= 8x smaller than a lossless RAW ({lossless[1]}, {mp:g} MP)", f"size_vs_lossless_{mp:g}mp",
            lossless[0] / ob if ob else None, ">=", GOALS["size_vs_lossless_raw"],
            {"output_bytes": ob, "lossless_bytes": lossless[0], "zlib_standin_bytes": z},
            why_convert or rbs.get("reason"))
        rb_fid = (match or {}).get("readback")
        if ob and rb_fid:
            g["note"] = (f"{fmt_mb(ob)} vs {fmt_mb(lossless[0])}" + (f" (zlib stand-in {fmt_mb(z)})" if has_twin else "")
                         + f"; at SSIM-Y "
                         f"{rb_fid['ssim_y_mean']:.5f} / worst block {rb_fid['ssim_y_worst_block']:.5f}, "
                         f"PSNR-Y {rb_fid['psnr_y']:.2f} dB")
        results["goals"].append(g)
        # One file is one worker: the largest process's peak RSS over the rounds against a decoded 16-bit RGB frame.
        rss = rbs.get("peak_rss_mb")
        frame_mib = px * 3 * 2 / 2 ** 20
        g = goal(f"peak RSS of one conversion < 3x one decoded 16-bit frame ({mp:g} MP)", f"rss_vs_frame_{mp:g}mp",
                 rss / frame_mib if rss else None, "<=", GOALS["rss_vs_16bit_frame"],
                 {"peak_rss_mib": rss, "frame_16bit_mib": frame_mib}, why_convert or rbs.get("reason"))
        if rss:
            g["note"] = f"{rss:.0f} MiB peak against a bound of {3 * frame_mib:.0f} MiB (3 x {frame_mib:.0f} MiB)"
        results["goals"].append(g)


# ---------------------------------------------------------------------------------------------------------------
# Machine, report, table.
# ---------------------------------------------------------------------------------------------------------------


def machine():
    m = {"nproc": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            models = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        m["cpu"] = models[0] if models else "unknown"
        m["cpu_threads_listed"] = len(models)
    except OSError:
        m["cpu"] = "unknown"
    try:
        with open("/proc/meminfo") as f:
            for l in f:
                if l.startswith(("MemTotal", "MemAvailable")):
                    k, v = l.split(":")
                    m[k.strip()] = f"{int(v.split()[0]) / 1048576:.1f} GiB"
    except OSError:
        pass
    try:
        m["loadavg_at_start"] = open("/proc/loadavg").read().split()[:3]
    except OSError:
        pass
    return m


def tool_versions(rb):
    v = {"readback": rb.version or None}
    for name, cmd in (("exiftool", ["exiftool", "-ver"]), ("heif-info", ["heif-info", "--version"]),
                      ("imagemagick", [CONVERT_IM, "-version"]), ("vips", ["vips", "--version"]),
                      ("rawtherapee-cli", ["rawtherapee-cli", "-v"])):
        if shutil.which(cmd[0]):
            r = run(cmd, timeout=60)
            v[name] = first_line(r.out or r.err)[:120]
    return v


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
    if s.get("invalid_output"):
        bits.append("INVALID: " + s["invalid_output"])
    if s.get("failures"):
        bits.append(f"{len(s['failures'])} failed runs")
    return ", ".join(b for b in bits if b)


def table(results):
    rows = ["| comparison | side | median time (min-max), peak RSS, output | readback ratio |", "|---|---|---|---|"]
    for c in results["comparisons"]:
        if c["id"] == "audit_scaling":
            if c.get("reason"):
                rows.append(f"| {c['title']} | readback | not available: {c['reason']} | |")
            for p in c["points"]:
                st = p["ms_per_file"]
                rows.append(f"| {c['title']} | {p['files']} files | "
                            + (f"{st['median']:.2f} ms/file ({st['min']:.2f}-{st['max']:.2f}), "
                               f"{p['peak_rss_mb']:.0f} MB RSS" if st else "-") + " | |")
            if c.get("flatness"):
                rows.append(f"| {c['title']} | per-file cost, largest/smallest folder | | {c['flatness']:.2f}x |")
            continue
        for s in c["sides"]:
            rat = ""
            if s["name"] != "readback":
                if c["id"] in ("audit_nodecode", "audit_vs_heifinfo"):
                    k = {"exiftool": "vs_exiftool", "heif-info": "vs_heif_info"}.get(s["name"])
                    q = c.get(k) if k else None
                    if q:
                        rat = (f"{q['throughput_ratio']:.1f}x the throughput "
                               f"({q['per_round_min']:.1f}-{q['per_round_max']:.1f})")
                elif c["id"] == "audit_decode":
                    q = c.get("vs_libheif")
                    if q:
                        rat = f"{q['ratio']:.2f}x the time ({q['per_round_min']:.2f}-{q['per_round_max']:.2f})"
                else:
                    q = c.get("ratios", {}).get(s["name"])
                    if q:
                        rat = f"{q['ratio']:.2f}x the time ({q['per_round_min']:.2f}-{q['per_round_max']:.2f})"
                        if s.get("invalid_output"):
                            rat += "; peer output invalid, no real comparison"
            rows.append(f"| {c['title']} | {s['label']} | {fmt_side(s)} | {rat} |")
        if c.get("fidelity"):
            for k, v in c["fidelity"].items():
                if v and "psnr" in v:
                    size = f", {fmt_mb(v['output_bytes'])}" if v.get("output_bytes") else ""
                    rows.append(f"| {c['title']} | fidelity against its own 8-bit frame: {k.replace('_', ' ')} | "
                                f"PSNR-RGB {v['psnr']:.2f} dB, SSIM 8x8 {v['ssim']:.4f}{size} | |")
        fm = c.get("fidelity_match") or {}
        if fm.get("error"):
            rows.append(f"| {c['title']} | fidelity match | not measured: {fm['error']} | |")
        if fm.get("readback"):
            rows.append(f"| {c['title']} | fidelity: readback (as shipped) | {fmt_fid(fm['readback'])} | |")
        for m in fm.get("points", []):
            tag = " (the match)" if fm.get("match") and m["quality"] == fm["match"]["quality"] else ""
            rows.append(f"| {c['title']} | fidelity: heif-enc q{m['quality']} on Readback's frame{tag} | "
                        f"{fmt_fid(m)} | |")
    goals = ["| goal | measured | target | status |", "|---|---|---|---|"]
    for g in results["goals"]:
        val = f"{g['value']:.2f}" if "value" in g else g.get("reason", "")
        extra = ""
        if g.get("size_bytes"):
            sb, fd = g["size_bytes"], g.get("fidelity") or {}
            q = fd.get("heif_enc_quality")
            how = "the lowest quality at Readback's fidelity" if fd.get("heif_enc_matches") else \
                "below Readback's fidelity"
            extra += (f"; on Readback's frame: size {fmt_mb(sb['readback'])} vs "
                      f"{fmt_mb(sb['heif_enc_on_readback_frame'])} (heif-enc q{q}, {how})")
            if fd:
                a, b = fd["readback"], fd["heif_enc"]
                extra += (f"; SSIM-Y mean / worst block {a['ssim_y_mean']:.5f} / {a['ssim_y_worst_block']:.5f} vs "
                          f"{b['ssim_y_mean']:.5f} / {b['ssim_y_worst_block']:.5f}, PSNR-Y {fmt_db(a['psnr_y'])} vs "
                          f"{fmt_db(b['psnr_y'])}")
                one = fd.get("heif_enc_lowest_quality_by_one_measure") or {}
                bits = [f"{n} q{one[k]['quality']} ({fmt_mb(one[k]['bytes'])})" for k, n in
                        (("ssim_y_mean", "mean"), ("ssim_y_worst_block", "worst block"), ("psnr_y", "PSNR-Y"))
                        if one.get(k)]
                if bits:
                    extra += "; heif-enc reaches Readback on one measure alone at: " + ", ".join(bits)
            extra += f"; the pipeline's own file (its own, darker render) {fmt_mb(sb.get('dcraw_pipeline_own_render'))}"
        if g.get("note"):
            extra += f"; {g['note']}"
        if g.get("why"):
            extra += f"; {g['why']}"
        goals.append(f"| {g['goal']} | {val}{extra} | {g.get('target', '')} | **{g['status']}** |")
    return "\n".join(rows), "\n".join(goals)


def fmt_fid(m):
    return (f"{fmt_mb(m['bytes'])}, SSIM-Y {m['ssim_y_mean']:.5f} / worst {m['ssim_y_worst_block']:.5f}, "
            f"PSNR-Y {m['psnr_y']:.2f} dB")


def fmt_mb(b):
    return f"{b / 1e6:.2f} MB" if b else "?"


def fmt_db(x):
    return f"{x:.2f} dB" if x is not None else "?"


def config():
    return {"quick": QUICK, "pairs": PAIRS, "sizes": SIZES, "scale": SCALE, "meta_copies": META_COPIES,
            "info_files": INFO_FILES, "decode_files": DECODE_FILES, "decode_all": ENV.get("BENCH_DECODE_ALL") == "1"}


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
        d, pd = g.get("detail") or {}, p.get("detail") or {}
        lo = d.get("per_round_min", g["value"])
        hi = d.get("per_round_max", g["value"])
        plo = pd.get("per_round_min", p["value"])
        phi = pd.get("per_round_max", p["value"])
        out.append({"id": g["id"], "previous": p["value"], "now": g["value"],
                    "agree_within_noise": not (hi < plo or phi < lo)})
    return out


def update_readme(text):
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as f:
        s = f.read()
    marker = "\n## Benchmarks\n"
    # The section's hand-written explanation ends with a line starting "Latest run"; it is kept, and only what
    # follows it (the machine line and the tables) is replaced.
    keep = "\nLatest run"
    i = s.rfind(marker)
    if i < 0:
        s = s.rstrip("\n") + "\n" + marker + "\n" + text + "\n"
    else:
        j = s.find(keep, i)
        if j >= 0:
            k = s.find("\n", j + 1)
            s = s[:k + 1] + "\n" + text + "\n"
        else:
            s = s[:i] + marker + "\n" + text + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(s)


def compile_floor(work):
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


def main():
    t0 = time.time()
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "readback")
    binary = os.path.abspath(binary)
    out_json = ENV.get("BENCH_OUT", os.path.join(ROOT, "Reports", "bench.json"))
    work = tempfile.mkdtemp(prefix="readback-bench-")
    results = {"schemaVersion": 1, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "quick": QUICK, "pairs": PAIRS, "config": config(), "machine": machine(), "comparisons": [],
               "goals": []}
    try:
        rb = Readback(binary)
        results["tools"] = tool_versions(rb)
        floor = compile_floor(work)
        settings = converter_settings(rb)
        only = ENV.get("BENCH_ONLY", "")
        corpus = find_corpus() if only in ("", "audit") else None
        if only == "convert":
            pass
        elif corpus:
            bench_audit(rb, floor, corpus, work, results)
        else:
            results["goals"].append(goal("audit comparisons", "audit", None, ">=", 0,
                                         why="no real-world corpus (set BENCH_CORPUS)"))
        if only in ("", "convert"):
            bench_convert(rb, floor, work, results, settings)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["elapsed_s"] = time.time() - t0
    results["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if os.path.exists(out_json):
        try:
            with open(out_json) as f:
                results["agreement_with_previous_run"] = agreement(json.load(f), results)
        except (OSError, ValueError):
            pass
    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    with open(out_json, "w") as f:
        json.dump(results, f, indent=2)
    rows, goals = table(results)
    m = results["machine"]
    head = (f"Machine: {m.get('cpu')}, {m.get('nproc')} cores, {m.get('MemTotal', '?')} RAM, load at start "
            f"{' '.join(m.get('loadavg_at_start', []))}; {PAIRS} interleaved rounds per comparison; "
            f"{results['tools'].get('readback') or 'readback missing'}; run {results['started_utc']}, "
            f"{results['elapsed_s'] / 60:.1f} min{' (BENCH_QUICK: smoke test, not a measurement)' if QUICK else ''}.")
    text = head + "\n\n" + goals + "\n\n" + rows + "\n"
    agree = results.get("agreement_with_previous_run")
    if agree:
        text += "\nAgreement with the previous run (per-round ranges overlap): " + ", ".join(
            f"{a['id']} {a['previous']:.2f}->{a['now']:.2f} {'yes' if a['agree_within_noise'] else 'NO'}"
            for a in agree) + "\n"
    with open(os.path.join(os.path.dirname(out_json), "bench.md"), "w") as f:
        f.write(text)
    print(text)
    if ENV.get("BENCH_UPDATE_README") == "1":
        update_readme(text)
    print(f"bench: wrote {out_json} and {os.path.join(os.path.dirname(out_json), 'bench.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
