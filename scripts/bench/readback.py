"""The product under test: the `readback` binary, its version, and the encoding settings it uses by default."""
import os

from harness import ENV, ROOT, first_line, run


class Readback:
    """The release binary and the environment every run of it gets (a private state folder, no colour)."""

    def __init__(self, binary, needs_ladder=True):
        if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
            raise SystemExit(f"bench: no readback binary at {binary!r} (make release)")
        self.bin = binary
        r = run([binary, "--version"], timeout=60)
        self.version = first_line(r.out) if r.rc == 0 else None
        # readback-ladder sits beside it (`make bench` builds both): it writes the converter's pre-encode frame
        # and measures fidelity the quality ladder's way.
        beside = os.path.join(os.path.dirname(binary), "readback-ladder")
        built = os.path.join(ROOT, ".build", "release", "readback-ladder")
        self.ladder = next((p for p in (beside, built) if os.access(p, os.X_OK)), None)
        if not self.ladder and needs_ladder:
            raise SystemExit("bench: no readback-ladder beside the binary or in .build/release "
                             "(swift build -c release --product readback-ladder)")

    def env(self, work):
        return {"XDG_STATE_HOME": os.path.join(work, "state"), "NO_COLOR": "1"}


def converter_defaults(rb):
    """The encoding settings `readback convert` uses when no option overrides them, as `readback convert
    --print-defaults --json` prints them (quality, speed, depth, chroma, tileSize, gainMapQuality, gainMapSpeed,
    colorSpace, hdr)."""
    r = run([rb.bin, "convert", "--print-defaults", "--json"], timeout=60)
    d = r.json_line() if r.rc == 0 else None
    if not isinstance(d, dict):
        raise SystemExit("bench: `readback convert --print-defaults --json` failed: "
                         + (first_line(r.err) or first_line(r.out) or f"exit {r.rc}"))
    return d


def floor_settings(defaults):
    """The settings the floor encodes with: the converter's defaults, or BENCH_QUALITY / BENCH_PRESET /
    BENCH_CHROMA / BENCH_DEPTH / BENCH_X265 (x265 options beyond the preset, NAME=VALUE comma separated, as the
    converter sets them: aq-strength=1.5 by default). {key: (value as text, where it came from)}."""
    found = {"effort": (str(defaults.get("effort", "")), "readback convert --print-defaults")}
    for key, field in (("quality", "quality"), ("preset", "speed"), ("chroma", "chroma"), ("depth", "depth"),
                       ("x265", "x265")):
        env = ENV.get(f"BENCH_{key.upper()}")
        found[key] = (env, "environment") if env is not None else (str(defaults.get(field, "")),
                                                                   "readback convert --print-defaults")
    return found


def frame_quality(rb, work, dng, default):
    """The quality `readback convert` gives this RAW by default (`readback-ladder noise`: lower on a visibly noisy
    frame, the noise steps), or `default` when the ladder cannot tell; untimed."""
    r = run([rb.ladder, "noise", dng], env=rb.env(work))
    d = r.json_line() if r.rc == 0 else None
    return d.get("quality", default) if isinstance(d, dict) else default
