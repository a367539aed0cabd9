#!/usr/bin/env python3
"""synthetic-shards.py OUT --shards N --files F [--rows R]

Writes N shard reports OUT/0 ... OUT/N-1 (report.json only), each holding exactly F file entries, as
`readback audit --shard K/N` would: every entry's source path hashes to its shard by the sharding rule
(docs/distributed.md), every report carries run.shard and the same run.sourceList, files sorted by name.
The entries look like a real audit's of a converted RAW: R metadata rows (default 25; a real camera file
has about 80), four findings, an ISO gain map, two decodes; one file in 23 fails. Used to measure
`readback merge` on 100 x 10,000 files (docs/distributed.md, "What limits throughput").
"""

import argparse
import hashlib
import json
import os


def shard_of(path, n):
    return int.from_bytes(hashlib.sha256(path.encode("utf-8")).digest(), "big") % n


def entry(i, rows):
    name = f"d{i // 1000:04d}/IMG_{i:07d}"
    fail = i % 23 == 7
    findings = [
        {"code": "metadata.changed", "severity": "warning", "message": "EXIF:Software differs",
         "evidence": {"field": "IFD0:Software", "expected": "Firmware 1.2.0", "actual": "readback"}},
        {"code": "metadata.known-loss", "severity": "known-loss", "message": "MakerNotes:All lost (known loss)",
         "evidence": {"field": "MakerNotes:All"}},
        {"code": "metadata.kept", "severity": "info", "message": f"{rows} fields compared"},
        {"code": "signalling.hdr", "severity": "info", "message": "HLG, 10-bit, gain map"},
    ]
    if fail:
        findings.insert(0, {"code": "metadata.lost", "severity": "error",
                            "message": "GPS:GPSLatitude is in the source but not in the output",
                            "evidence": {"field": "GPS:GPSLatitude", "expected": "48.8584"}})
    metadata = [{"field": f"EXIF:Field{r:03d}", "status": "kept", "source": f"value {r} of {i}",
                 "output": f"value {r} of {i}"} for r in range(rows)]
    return {
        "name": name + ".heic", "source": name + ".dng", "output": name + ".heic",
        "sourceBytes": 25_000_000 + i, "outputBytes": 360_000 + i % 9973, "sizeRatio": 0.0144,
        "sha256": hashlib.sha256(name.encode()).hexdigest(), "verdict": "fail" if fail else "pass",
        "worstSeverity": "error" if fail else "warning", "findings": findings,
        "metadata": sorted(metadata, key=lambda m: m["field"]),
        "gainMaps": [{"kind": "iso", "item": 7, "description": "pass", "metadata": "pass", "data": "pass",
                      "colourSpace": "pass"}],
        "decode": [{"target": "primary", "status": "ok", "width": 6000, "height": 4000, "bitDepth": 10},
                   {"target": "gainmap", "status": "ok", "width": 1500, "height": 1000, "bitDepth": 8}],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out")
    p.add_argument("--shards", type=int, default=100)
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--rows", type=int, default=25)
    a = p.parse_args()
    n, per = a.shards, a.files
    # Numbers 0, 1, 2, ... go to the shard their source path hashes to, until every shard has `per`.
    members = [[] for _ in range(n)]
    full = 0
    i = 0
    while full < n:
        k = shard_of(f"d{i // 1000:04d}/IMG_{i:07d}.dng", n)
        if len(members[k]) < per:
            members[k].append(i)
            full += len(members[k]) == per
        i += 1
    keys = sorted(f"d{j // 1000:04d}/IMG_{j:07d}.dng".encode() for m in members for j in m)
    digest = hashlib.sha256(b"".join(k + b"\n" for k in keys)).hexdigest()
    for k, numbers in enumerate(members):
        files = [entry(j, a.rows) for j in numbers]
        files.sort(key=lambda f: f["name"])
        failed = sum(f["verdict"] == "fail" for f in files)
        by_code = {}
        by_sev = {"error": 0, "warning": 0, "known-loss": 0, "info": 0}
        for f in files:
            for x in f["findings"]:
                by_code[x["code"]] = by_code.get(x["code"], 0) + 1
                by_sev[x["severity"]] += 1
        report = {
            "schemaVersion": 2,
            "tool": {"name": "readback", "version": "synthetic"},
            "libraries": [{"name": "libheif", "version": "1.15.1"}],
            "run": {"mode": "directories", "startedAt": "2026-12-01T00:00:00Z", "durationSeconds": 3000.0,
                    "failOn": "error", "decode": True, "jobs": 8, "policy": "built-in",
                    "roots": {"sources": "/shared/photos", "outputs": "/shared/photos-heic"},
                    "shard": {"index": k, "count": n, "sources": len(numbers)},
                    "sourceList": {"files": len(keys), "sha256": digest}},
            "summary": {"files": len(files), "passed": len(files) - failed, "failed": failed,
                        "findingsBySeverity": by_sev, "findingsByCode": by_code,
                        "gainMapsComplete": len(files), "unmatchedOutputs": 0},
            "files": files,
            "unmatchedOutputs": [],
        }
        os.makedirs(os.path.join(a.out, str(k)), exist_ok=True)
        with open(os.path.join(a.out, str(k), "report.json"), "w", encoding="utf-8") as out:
            json.dump(report, out, ensure_ascii=False, indent=2, sort_keys=True)
    print(f"{n} shard reports of {per} files each in {a.out}")


if __name__ == "__main__":
    main()
