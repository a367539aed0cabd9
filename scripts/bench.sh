#!/usr/bin/env bash
# `make bench`: compiles the floor helper and runs the interleaved benchmarks (scripts/bench.py; docs/bench.md).
# Usage: scripts/bench.sh [READBACK_BIN]   — knobs: BENCH_QUICK=1, BENCH_PAIRS, BENCH_SIZES, BENCH_SCALE, ...
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/readback}
mkdir -p Reports
exec python3 scripts/bench.py "$bin"
