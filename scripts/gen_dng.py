#!/usr/bin/env python3
"""Benchmark input of last resort: a synthetic Bayer DNG that LibRaw decodes, written with the stdlib only.

`make bench` prefers the project's own generated RAWs (`readback corpus generate --large`); this writer exists so the
harness still has a 24 MP / 50 MP RAW when that command is not in the build. The scene is photo-like for an encoder:
gradients, texture and sensor-like noise (a flat frame would make x265 look ten times faster than on a photo), with
Exif fields a converter is expected to carry (Make, Model, DateTimeOriginal with SubSec and offset, exposure, GPS).

    gen_dng.py OUT.dng WIDTH HEIGHT [SEED]
"""
import math
import random
import struct
import sys

# TIFF field types
BYTE, ASCII, SHORT, LONG, RATIONAL, SRATIONAL = 1, 2, 3, 4, 5, 10


def scene_rows(width, height, seed):
    """Yields the CFA rows (RGGB) as little-endian uint16 bytes.

    Each row is a window of one of a few precomputed textured rows (several sinusoids, hard edges, Gaussian noise),
    picked by brightness level and noise variant; the window slides smoothly with the row number, so the image has
    diagonal structure and vertical gradients instead of stripes, and its noise is independent from row to row.
    """
    rnd = random.Random(seed)
    levels, variants, pad = 16, 4, 512
    gains = ((0.55, 1.0), (1.0, 0.45))  # (even col, odd col) per row parity: R G / G B
    waves = [(0.0015 + 0.03 * rnd.random(), rnd.random() * 6.28, 0.04 + 0.1 * rnd.random()) for _ in range(4)]
    edges = sorted(rnd.randrange(width + pad) for _ in range(6))
    base = []
    for x in range(width + pad):
        s = sum(a * math.sin(x * f + ph) for f, ph, a in waves)
        s += 0.08 * sum(1 for e in edges if x > e) % 3
        base.append(s)
    table = {}
    for lv in range(levels):
        level = 0.06 + 0.5 * lv / (levels - 1)
        for parity in (0, 1):
            g = gains[parity]
            tint = [1.0 + 0.35 * math.sin(x * 0.0011 + lv * (0.8 if parity else -0.6)) for x in range(width + pad)]
            for v in range(variants):
                vals = [min(4095, max(0, int(256 + 3500 * ((level + b) * g[x & 1] * (tint[x] if (x & 1) == parity
                                                                                      else 1.0)
                                                           + rnd.gauss(0.0, 0.01)))))
                        for x, b in enumerate(base)]
                table[(lv, parity, v)] = struct.pack("<%dH" % len(vals), *vals)
    for r in range(height):
        h = (r * 2654435761) & 0xFFFFFFFF
        shift = 2 * int((pad // 4) * (1 + math.sin(r * 0.004)))
        lv = int((levels - 1) * (0.5 + 0.5 * math.sin(r * 1.7 / height * math.pi + seed)))
        row = table[(lv, r & 1, (h >> 7) % variants)]
        yield row[shift * 2:(shift + width) * 2]


def write_dng(path, width, height, seed=1):
    entries = []  # (tag, type, values)

    def add(tag, typ, values):
        entries.append((tag, typ, values))

    strip_bytes = width * height * 2
    exif = [
        (0x829A, RATIONAL, [(1, 250)]),  # ExposureTime
        (0x829D, RATIONAL, [(28, 10)]),  # FNumber
        (0x8827, SHORT, [200]),  # ISO
        (0x9003, ASCII, "2024:06:01 18:30:15"),  # DateTimeOriginal
        (0x9011, ASCII, "+02:00"),  # OffsetTimeOriginal
        (0x9291, ASCII, "123"),  # SubSecTimeOriginal
        (0x920A, RATIONAL, [(35, 1)]),  # FocalLength
        (0xA434, ASCII, "Bench 35mm F2.8"),  # LensModel
    ]
    gps = [
        (0x0000, BYTE, [2, 3, 0, 0]),
        (0x0001, ASCII, "N"),
        (0x0002, RATIONAL, [(48, 1), (51, 1), (2400, 100)]),
        (0x0003, ASCII, "E"),
        (0x0004, RATIONAL, [(2, 1), (21, 1), (300, 100)]),
        (0x0005, BYTE, [0]),
        (0x0006, RATIONAL, [(35, 1)]),
    ]
    add(0x00FE, LONG, [0])
    add(0x0100, LONG, [width])
    add(0x0101, LONG, [height])
    add(0x0102, SHORT, [16])
    add(0x0103, SHORT, [1])
    add(0x0106, SHORT, [32803])
    add(0x010F, ASCII, "Readback")
    add(0x0110, ASCII, "Bench DNG %dMP" % round(width * height / 1e6))
    add(0x0111, LONG, [0])  # StripOffsets, patched below
    add(0x0112, SHORT, [1])
    add(0x0115, SHORT, [1])
    add(0x0116, LONG, [height])
    add(0x0117, LONG, [strip_bytes])
    add(0x011C, SHORT, [1])
    add(0x0131, ASCII, "scripts/gen_dng.py")
    add(0x0132, ASCII, "2024:06:01 18:30:15")
    add(0x828D, SHORT, [2, 2])
    add(0x828E, BYTE, [0, 1, 1, 2])
    add(0x8769, LONG, [0])  # ExifIFD, patched
    add(0x8825, LONG, [0])  # GPS IFD, patched
    add(0xC612, BYTE, [1, 4, 0, 0])
    add(0xC613, BYTE, [1, 1, 0, 0])
    add(0xC614, ASCII, "Readback Bench DNG")
    add(0xC61A, LONG, [256])  # BlackLevel
    add(0xC61D, LONG, [4095])  # WhiteLevel
    # ColorMatrix1 (XYZ -> camera), a plausible sRGB-like camera, and D65.
    cm = [(32404, 10000), (-15371, 10000), (-4985, 10000), (-9693, 10000), (18760, 10000), (416, 10000),
          (556, 10000), (-2040, 10000), (10572, 10000)]
    add(0xC621, SRATIONAL, cm)
    add(0xC628, RATIONAL, [(55, 100), (1, 1), (45, 100)])  # AsShotNeutral
    add(0xC65A, SHORT, [21])  # CalibrationIlluminant1 D65
    entries.sort(key=lambda e: e[0])

    def encode_value(typ, values):
        if typ == ASCII:
            return values.encode() + b"\0", len(values) + 1
        if typ == BYTE:
            return bytes(values), len(values)
        if typ == SHORT:
            return struct.pack("<%dH" % len(values), *values), len(values)
        if typ == LONG:
            return struct.pack("<%dI" % len(values), *values), len(values)
        if typ == RATIONAL:
            return b"".join(struct.pack("<II", n, d) for n, d in values), len(values)
        return b"".join(struct.pack("<ii", n, d) for n, d in values), len(values)

    def ifd_bytes(ents, offset, patches):
        """Serialises one IFD at `offset`; out-of-line data follows it."""
        count = len(ents)
        data_at = offset + 2 + 12 * count + 4
        head, tail = [struct.pack("<H", count)], []
        for tag, typ, values in ents:
            values = patches.get(tag, values)
            raw, n = encode_value(typ, values)
            if len(raw) <= 4:
                head.append(struct.pack("<HHI", tag, typ, n) + raw.ljust(4, b"\0"))
            else:
                head.append(struct.pack("<HHII", tag, typ, n, data_at + sum(len(t) for t in tail)))
                raw += b"\0" * (len(raw) & 1)
                tail.append(raw)
        head.append(struct.pack("<I", 0))
        return b"".join(head) + b"".join(tail)

    # Layout: header, IFD0 (+ data), Exif IFD, GPS IFD, pixel strip. Two passes fix the offsets.
    patches = {}
    for _ in range(2):
        ifd0 = ifd_bytes(entries, 8, patches)
        exif_at = 8 + len(ifd0)
        exif_b = ifd_bytes(exif, exif_at, {})
        gps_at = exif_at + len(exif_b)
        gps_b = ifd_bytes(gps, gps_at, {})
        strip_at = gps_at + len(gps_b)
        strip_at += (-strip_at) % 16
        patches = {0x8769: [exif_at], 0x8825: [gps_at], 0x0111: [strip_at]}
    ifd0 = ifd_bytes(entries, 8, patches)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8))
        f.write(ifd0)
        f.write(exif_b)
        f.write(gps_b)
        f.write(b"\0" * (strip_at - f.tell()))
        for row in scene_rows(width, height, seed):
            f.write(row)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: gen_dng.py OUT.dng WIDTH HEIGHT [SEED]")
    w, h = int(sys.argv[2]) & ~1, int(sys.argv[3]) & ~1
    write_dng(sys.argv[1], w, h, int(sys.argv[4]) if len(sys.argv) == 5 else 1)


if __name__ == "__main__":
    main()
