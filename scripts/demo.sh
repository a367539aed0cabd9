#!/usr/bin/env bash
# `make demo`: the main job on the bundled Corpus/.
#   1. convert every generated RAW in Corpus/dng to HEIC (each output read back and audited before it counts),
#   2. audit the outputs against their sources → Reports/report.{json,html} + Reports/junit.xml,
#   3. audit the mutated HEICs (one silent failure each) and check every one is caught with its finding code.
set -euo pipefail
bin=${1:-.build/release/readback}
cd "$(dirname "$0")/.."
[ -d Corpus/dng ] || { echo "demo: Corpus/dng is missing (run 'make corpus')" >&2; exit 2; }
mkdir -p Reports
out=Reports/demo-heic
hist=Reports/history.db

echo
echo "== 1/3 convert Corpus/dng → $out"
"$bin" convert Corpus/dng --out "$out"

echo
echo "== 2/3 audit $out against Corpus/dng → Reports/"
"$bin" audit --sources Corpus/dng --outputs "$out" --report Reports --history-db "$hist" --quiet

echo
echo "== 3/3 audit the mutated HEICs in Corpus/heic/mutations against Corpus/heic/good.heic → Reports/mutations/"
pairs=Reports/mutations-pairs.tsv
: > "$pairs"
while IFS=$'\t' read -r file code _sha _note; do
  [ "$file" = file ] && continue
  if [ "$file" = - ]; then
    printf '%s\t%s\n' "$PWD/Corpus/heic/good.heic" "$PWD/Reports/no-such-output-for-good.heic" >> "$pairs"
  else
    printf '%s\t%s\n' "$PWD/Corpus/heic/good.heic" "$PWD/Corpus/heic/mutations/$file" >> "$pairs"
  fi
done < Corpus/heic/mutations/MUTATIONS
set +e
"$bin" audit --pairs "$pairs" --report Reports/mutations --history-db "$hist" --quiet > Reports/mutations.txt
rc=$?
set -e
if [ "$rc" != 1 ]; then echo "demo: the mutation audit should fail its gate (exit 1), it exited $rc" >&2; exit 1; fi
python3 - <<'PY'
import csv, json, sys
rep = json.load(open("Reports/mutations/report.json"))
codes = {}
for f in rep["files"]:
    codes[f["name"].rsplit("/", 1)[-1]] = {x["code"] for x in f.get("findings", [])}
missed = 0
for row in csv.DictReader(open("Corpus/heic/mutations/MUTATIONS"), delimiter="\t"):
    name = "no-such-output-for-good.heic" if row["file"] == "-" else row["file"]
    got = codes.get(name, set())
    ok = row["code"] in got
    missed += not ok
    print(f"  {'caught' if ok else 'MISSED'}  {row['code']:<30} {name}")
if missed:
    print(f"demo: {missed} mutation(s) not caught", file=sys.stderr); sys.exit(1)
print("  every mutation caught with its code")
PY
echo
echo "demo: reports in Reports/ (report.html, report.json, junit.xml; mutations/ for the silent-failure set)"
