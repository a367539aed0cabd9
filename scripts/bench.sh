#!/usr/bin/env bash
# `make bench`: builds readback-ladder (it writes Readback's exact pre-encode frame, which the floor then encodes,
# and measures fidelity) and runs the interleaved benchmarks (scripts/bench/; docs/bench.md).
# Usage: scripts/bench.sh [READBACK_BIN]   — knobs: BENCH_QUICK=1, BENCH_PAIRS, BENCH_SIZES, BENCH_CORPUS, ...
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/readback}
mkdir -p Reports
# The same flags as `make release` (SWIFT_RELEASE), or .build/release is compiled again without them.
${SWIFT_RELEASE:-swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now} --product readback-ladder
exec python3 -B scripts/bench "$bin"
