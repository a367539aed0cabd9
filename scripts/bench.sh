#!/usr/bin/env bash
# `make bench`: compiles the floor helper and runs the interleaved benchmarks (scripts/bench.py; docs/bench.md).
# Usage: scripts/bench.sh [READBACK_BIN]   — knobs: BENCH_QUICK=1, BENCH_PAIRS, BENCH_SIZES, BENCH_SCALE, ...
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/readback}
mkdir -p Reports
# The ladder tool writes Readback's exact pre-encode frame, which the floor then encodes (docs/bench.md).
if grep -q '"readback-ladder"' Package.swift; then
  swift build -c release --product readback-ladder
fi
exec python3 scripts/bench.py "$bin"
