"""What does not change between runs, kept under Reports/bench-cache/ (git-ignored, like everything a run writes):
the generated RAWs of `readback corpus generate --large`, keyed by the generator's source (the git tree of
Sources/4-Cores/CorpusKit, or the binary's digest when that tree has local changes or there is no git); the frontier's crop
measure (each effort level and heif-enc at equal fidelity), keyed by the RAW, readback-ladder's digest, the settings,
the crop, heif-enc's qualities and version (frontier_key); heif-enc's match in the noise part, keyed by the image, the
crop, Readback's own encode of that crop and the encoder's version (noise_match_key); and each part's last elapsed
time under the same configuration, which the budget uses to skip a part that cannot finish before the deadline
(parts.py). BENCH_CACHE=0 ignores and writes no cache; deleting the folder is always safe."""
import hashlib
import json
import os
import shutil
import subprocess

from harness import ENV, ROOT

DIR = ENV.get("BENCH_CACHE_DIR", os.path.join(ROOT, "Reports", "bench-cache"))
ON = ENV.get("BENCH_CACHE", "1") != "0"


def file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def generator_key(rb):
    """The generated corpus depends only on CorpusKit's code (and the binary's version)."""
    try:
        tree = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD:Sources/4-Cores/CorpusKit"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "Sources/4-Cores/CorpusKit"], capture_output=True,
                               text=True, check=True).stdout.strip()
        if tree and not dirty:
            return hashlib.sha256(f"corpuskit {tree} {rb.version}".encode()).hexdigest()
    except (OSError, subprocess.CalledProcessError):
        pass
    return file_digest(rb.bin)


def encoder_version():
    try:
        r = subprocess.run(["heif-enc", "--version"], capture_output=True, text=True)
        return (r.stdout or r.stderr).strip()
    except OSError:
        return "none"


def _key(parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(str(part).encode() + b"\n")
    return h.hexdigest()


def frontier_key(rb, dng, settings, crop, qualities, encoder=None, ladder=None):
    """The frontier's crop measure (frontier.measure) depends on the RAW, readback-ladder's render and encoders (its
    binary's digest: a rebuild with any change measures again), each level's setting, the crop, heif-enc's qualities
    and its version. "frontier2": heif-enc is refined to one CRF step around each level (frontier.refinement)."""
    return _key(("frontier2", file_digest(dng), ladder if ladder is not None else file_digest(rb.ladder),
                 json.dumps(settings, sort_keys=True), crop, ",".join(str(q) for q in qualities),
                 encoder if encoder is not None else encoder_version()))


# Timings vary between identical encodes: they are not part of what an encode is.
_TIMINGS = ("encode_s",)


def noise_match_key(dng, clean, crop, ours, encoder=None):
    """The noise part's heif-enc match depends on the image (and its clean truth), the crop, Readback's own encode of
    that crop (its measured bytes and fidelities stand for Readback's render, settings and encoder: any change to them
    changes the figures) and heif-enc's version."""
    figures = {k: v for k, v in ours.items() if k not in _TIMINGS}
    return _key(("noise-match1", file_digest(dng), file_digest(clean) if clean else "no clean truth", crop,
                 json.dumps(figures, sort_keys=True), encoder if encoder is not None else encoder_version()))


def config_key(config):
    """The key of the part times: the run's configuration (harness.config) and the machine's core count."""
    return _key(("parts1", json.dumps(config, sort_keys=True), os.cpu_count()))


def load(kind, key):
    path = os.path.join(DIR, f"{kind}-{key}.json")
    if not ON or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def store(kind, key, value):
    if not ON:
        return
    os.makedirs(DIR, exist_ok=True)
    tmp = os.path.join(DIR, f".{kind}-{key}.json.part")
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, os.path.join(DIR, f"{kind}-{key}.json"))


def corpus_folder(rb):
    """The cached generated corpus for this generator, or None (not cached, or the cache is off)."""
    if not ON:
        return None
    d = os.path.join(DIR, "corpus-" + generator_key(rb)[:16])
    return d if os.path.isfile(os.path.join(d, ".complete")) else None


def keep_corpus(rb, folder):
    """Moves a freshly generated corpus into the cache (whole, or not at all); returns where it now is."""
    if not ON:
        return folder
    d = os.path.join(DIR, "corpus-" + generator_key(rb)[:16])
    os.makedirs(DIR, exist_ok=True)
    for old in os.listdir(DIR):  # one generated corpus at a time: they are hundreds of megabytes
        if old.startswith("corpus-") and os.path.join(DIR, old) != d:
            shutil.rmtree(os.path.join(DIR, old), ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    shutil.move(folder, d)
    with open(os.path.join(d, ".complete"), "w") as f:
        f.write("generated by readback corpus generate --large\n")
    return d
