#!/usr/bin/env bash
# `make demo`: the main job on the bundled Corpus/ — convert, read back, audit, write Reports/.
set -euo pipefail
bin=${1:-.build/release/readback}
cd "$(dirname "$0")/.."
mkdir -p Reports
echo "demo: the plan — convert every RAW in Corpus/ to HEIC under Reports/demo-out, audit each output against its source, write Reports/"
if [ ! -d Corpus ]; then echo "demo: Corpus/ is missing" >&2; exit 2; fi
