#!/usr/bin/env bash
# scripts/dist/throughput.sh READBACK SRC_DIR [ROUNDS]: convert and audit throughput of 1, 2 and 4 local shards
# (docs/distributed.md, "What limits throughput"). For each round and each N in 1 2 4 (interleaved, so a load
# that comes and goes hits every N alike): N processes `convert --shard K/N --jobs max(1, cores/N)` at once into a
# fresh folder, then N processes `audit --shard K/N` of that folder at once. Prints one line per run
# (files/s = files ÷ wall time of the slowest shard), then the median per N.
set -euo pipefail
readback=$1
src=$2
rounds=${3:-2}
cores=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/readback-throughput.XXXXXX")
trap 'rm -rf "$work"' EXIT
files=$(find "$src" -type f -iname '*.dng' | wc -l)
echo "throughput: $files files in $src, $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds round(s)"

run_shards() { # run_shards N JOBS COMMAND...: N processes at once (COMMAND gets --shard K/N); prints wall seconds
  local n=$1 jobs=$2 k start end
  shift 2
  start=$(date +%s.%N)
  for ((k = 0; k < n; k++)); do "$@" --shard "$k/$n" --jobs "$jobs" >"$work/log-$k" 2>&1 & done
  wait
  end=$(date +%s.%N)
  awk -v a="$end" -v b="$start" 'BEGIN { print a - b }'
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }

results=$work/results
for ((r = 1; r <= rounds; r++)); do
  for n in 1 2 4; do
    jobs=$((cores / n > 0 ? cores / n : 1))
    out=$work/out-$r-$n
    t=$(run_shards "$n" "$jobs" "$readback" convert "$src" --out "$out" --quiet)
    a=$(run_shards "$n" "$jobs" "$readback" audit --sources "$src" --outputs "$out" --no-history --quiet)
    load=$(cut -d' ' -f1 /proc/loadavg)
    printf 'round %d  shards %d  jobs %d  convert %6.1f s  %.3f files/s  audit %5.1f s  %.2f files/s  load %s\n' \
      "$r" "$n" "$jobs" "$t" "$(div "$files" "$t")" "$a" "$(div "$files" "$a")" "$load"
    echo "$n $(div "$files" "$t") $(div "$files" "$a")" >>"$results"
    rm -rf "$out"
  done
done
echo "median files/s per number of shards (convert, audit):"
for n in 1 2 4; do
  c=$(awk -v n="$n" '$1 == n { print $2 }' "$results" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
  a=$(awk -v n="$n" '$1 == n { print $3 }' "$results" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
  printf '  %d shard(s): convert %.3f files/s, audit %.2f files/s\n' "$n" "$c" "$a"
done
