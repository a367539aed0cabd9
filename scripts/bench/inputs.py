"""What the benchmark runs on: the generated RAWs and the real-world HEIF corpus, read in place.

Nothing is ever written into the corpus: the folders the audit comparisons need are hard links (or temporary
copies) under the run's temporary directory.
"""
import os
import shutil
import struct

import cache
from harness import ENV, QUICK, ROOT, SIZES, first_line, log, run

# BENCH_QUICK's input: a committed chart of `readback corpus generate` (256x192), so a smoke test needs no 190 MB
# of generated files.
QUICK_RAW = os.path.join(ROOT, "Corpus", "dng", "chart-rggb-12bit-o1.dng")


def find_corpus():
    """The real-world corpus folder (it has heic/ and MANIFEST.tsv): BENCH_CORPUS, else ../shared/corpus beside the
    checkout, as `make test-real` uses it."""
    for c in (ENV.get("BENCH_CORPUS"), os.path.join(ROOT, "..", "shared", "corpus")):
        if c and os.path.isdir(os.path.join(c, "heic")):
            return os.path.abspath(c)
    return None


def manifest(corpus):
    """The corpus's MANIFEST.tsv as {relative path: {column: value}}."""
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
    """Hard links (or temp copies) of `files` in `folder`, `copies` times each. Returns the staged paths."""
    os.makedirs(folder, exist_ok=True)
    out = []
    for c in range(copies):
        for f in files:
            stem, ext = os.path.splitext(os.path.basename(f))
            dst = os.path.join(folder, f"{stem}-{c:05d}{ext}" if copies > 1 else os.path.basename(f))
            link_or_copy(f, dst)
            out.append(dst)
    return out


def tiff_dims(path):
    """Largest (width, height) among a TIFF/DNG's IFD0 and SubIFDs (DNG raw data often sits in a SubIFD)."""
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
                    todo.extend([val] if cnt == 1 else struct.unpack(e + "%dI" % cnt, data[val:val + 4 * cnt]))
            if w * h > best[0] * best[1]:
                best = (w, h)
            if off + 2 + 12 * n + 4 <= len(data):
                nxt = struct.unpack(e + "I", data[off + 2 + 12 * n:off + 6 + 12 * n])[0]
                if nxt:
                    todo.append(nxt)
        return best
    except (OSError, struct.error, IndexError):
        return (0, 0)


_generated = {}


def generate_large(rb, work):
    """`readback corpus generate --large`, once per generator: from Reports/bench-cache/ when the same CorpusKit
    wrote it before (cache.py), else into the run's temporary folder and then the cache. (folder, the Run)."""
    if "folder" in _generated:
        return _generated["folder"], None
    cached = cache.corpus_folder(rb)
    if cached:
        log(f"generated RAWs from the cache ({os.path.basename(cached)})")
        _generated["folder"] = cached
        return cached, None
    out = os.path.join(work, "corpus")
    log("generating RAWs with `readback corpus generate --large`")
    r = run([rb.bin, "corpus", "generate", "--large", "--out", out], env=rb.env(work))
    if r.rc == 0 and os.path.isdir(os.path.join(out, "large")):
        out = cache.keep_corpus(rb, out)
    _generated["folder"] = out
    return out, r


def quick_megapixels():
    w, h = tiff_dims(QUICK_RAW)
    return round(w * h / 1e6, 2)


def convert_sizes():
    """The megapixels of the convert parts, one part each: BENCH_SIZES, or the committed chart's (BENCH_QUICK)."""
    return [quick_megapixels()] if QUICK else list(SIZES)


def generated_ok(rb, work):
    """Generates (or finds in the cache) the RAWs of `corpus generate --large`; raises when the generator failed."""
    out, r = generate_large(rb, work)
    if not os.path.isdir(os.path.join(out, "large")):
        raise RuntimeError("`readback corpus generate --large` wrote no large/ folder"
                           + (f": exit {r.rc}: {first_line(r.err)}" if r else ""))
    return out


def raw_inputs(rb, work, sizes=None):
    """One DNG per entry of `sizes` (default BENCH_SIZES), from `readback corpus generate --large` (24 and 50 MP
    charts); BENCH_QUICK takes the committed small chart instead. Returns [(megapixels, path, origin)]."""
    if QUICK:
        return [(quick_megapixels(), QUICK_RAW, f"Corpus/dng/{os.path.basename(QUICK_RAW)} (BENCH_QUICK)")]
    out, r = generate_large(rb, work)
    found = []
    for dirpath, _, names in os.walk(os.path.join(out, "large")):
        for n in names:
            # The -ljpeg twins are the same scenes losslessly compressed: the size goal's reference, not inputs. The
            # noisy charts and their noiseless scene are the noise comparison's (noise.py).
            if n.lower().endswith(".dng") and not any(k in n for k in ("-ljpeg-", "-iso", "-noiseless-")):
                p = os.path.join(dirpath, n)
                w, h = tiff_dims(p)
                found.append((w * h / 1e6, p))
    picked = []
    for mp in (SIZES if sizes is None else sizes):
        best = min(found, key=lambda t: abs(t[0] - mp), default=None)
        if not best or abs(best[0] - mp) / mp >= 0.2:
            raise RuntimeError(f"no generated RAW of about {mp:g} MP (BENCH_SIZES takes 24 and 50; "
                               + (f"`readback corpus generate --large` exit {r.rc}: {first_line(r.err)})" if r else
                                  "the cached corpus has none)"))
        picked.append((mp, best[1], f"readback corpus generate --large ({best[0]:.1f} MP)"))
    return picked


def real_inputs(corpus):
    """The corpus's camera RAWs with real pixels (MANIFEST.tsv: raw/, has_pixels yes), read in place."""
    if not corpus:
        return []
    rows = manifest(corpus)
    return [os.path.join(corpus, rel) for rel, row in sorted(rows.items())
            if rel.startswith("raw/") and row.get("has_pixels") == "yes" and os.path.exists(os.path.join(corpus, rel))]
