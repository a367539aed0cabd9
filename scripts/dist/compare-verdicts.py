#!/usr/bin/env python3
"""compare-verdicts.py MERGED/report.json REFERENCE/report.json

Exit 0 when two audit reports (docs/report-schema.md) hold the same files with the same verdicts, file by file:
same set of `name`s, each name once, and per name the same `verdict`, `worstSeverity` and sorted finding codes.
Everything else (run, durations, shard fields, thumbnails) may differ. Exit 1 listing the differences.
"""

import json
import sys


def verdicts(path):
    with open(path, encoding="utf-8") as src:
        files = json.load(src)["files"]
    table, twice = {}, []
    for f in files:
        if f["name"] in table:
            twice.append(f["name"])
        codes = sorted(finding["code"] for finding in f.get("findings", []))
        table[f["name"]] = (f["verdict"], f.get("worstSeverity"), codes)
    return table, twice


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    merged_path, reference_path = sys.argv[1:]
    merged, merged_twice = verdicts(merged_path)
    reference, reference_twice = verdicts(reference_path)
    problems = [f"{merged_path}: {n} appears more than once" for n in merged_twice]
    problems += [f"{reference_path}: {n} appears more than once" for n in reference_twice]
    problems += [f"missing from the merge: {n}" for n in sorted(reference.keys() - merged.keys())]
    problems += [f"only in the merge: {n}" for n in sorted(merged.keys() - reference.keys())]
    for name in sorted(merged.keys() & reference.keys()):
        if merged[name] != reference[name]:
            problems.append(f"{name}: merged {merged[name]} but unsharded {reference[name]}")
    if not reference:
        problems.append(f"{reference_path}: no files")
    for line in problems[:50]:
        print(f"compare-verdicts: {line}", file=sys.stderr)
    if problems:
        print(f"compare-verdicts: {len(problems)} difference(s)", file=sys.stderr)
        sys.exit(1)
    passed = sum(1 for v in merged.values() if v[0] == "pass")
    print(f"compare-verdicts: {len(merged)} files ({passed} pass), verdicts identical to the unsharded run")


if __name__ == "__main__":
    main()
