#!/usr/bin/env bash
# Runs every libFuzzer target of FuzzParsers for its share of SECONDS, seeded from the generated corpus, the HEIF
# fixtures, the fuzz regressions and (read in place, when given) a real-world corpus's files; prints the execs per
# target and fails on the first crash or timeout (2 s), leaving its reproducer in Reports/fuzz/ (docs/security.md,
# "Fuzzing"). Inputs are at most FUZZ_MAX_LEN bytes (default 8192, as the recorded campaign).
#
# Usage: scripts/fuzz.sh SECONDS [SEED-DIR…]        (after `make fuzz`'s build; FUZZ_TARGETS=… chooses targets)
set -uo pipefail
SECONDS_TOTAL=${1:?usage: fuzz.sh SECONDS [SEED-DIR...]}
shift
BIN=.build/fuzz/release/FuzzParsers
TARGETS=${FUZZ_TARGETS:-"heif tiff jpeg xmp tmap makernote opcodes"}
[ -x "$BIN" ] || { echo "fuzz: build $BIN first (make fuzz)" >&2; exit 2; }
n=$(echo $TARGETS | wc -w)
share=$(( SECONDS_TOTAL / n )); [ "$share" -ge 1 ] || share=1
seeds=.build/fuzz-seeds
rm -rf "$seeds"
dirs="Corpus/dng:Corpus/jpeg:Corpus/heic:Corpus/heic/mutations:Corpus/heic/conformance:Tests/HEIFTests/Fixtures"
for d in "$@"; do [ -d "$d" ] && dirs="$dirs:$d"; done
READBACK_FUZZ_WRITE_SEEDS=$seeds READBACK_FUZZ_SEED_FILES=$dirs SWIFT_BACKTRACE=enable=no "$BIN" >/dev/null 2>&1 || true
mkdir -p Reports/fuzz
status=0
for t in $TARGETS; do
  corpus=.build/fuzz-corpus/$t
  mkdir -p "$corpus" "$seeds/$t"
  cp Tests/FuzzRegressions/$t/* "$seeds/$t/" 2>/dev/null
  log=Reports/fuzz/$t.log
  READBACK_FUZZ=$t SWIFT_BACKTRACE=enable=no "$BIN" -max_total_time="$share" -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=2 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="Reports/fuzz/$t-" "$corpus" "$seeds/$t" >"$log" 2>&1
  rc=$?
  execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -1)
  if [ $rc -ne 0 ]; then
    crash=$(ls -t Reports/fuzz/$t-* 2>/dev/null | head -1)
    echo "fuzz: $t: ${execs:-?} execs, CRASH (exit $rc): reproducer ${crash:-none}; log $log" >&2
    grep -m3 -E "invariant broken|Fatal error|ERROR: libFuzzer|SUMMARY" "$log" >&2
    status=1
  else
    echo "fuzz: $t: ${execs:-?} execs in ${share} s, 0 crashes"
  fi
done
exit $status
