#!/usr/bin/env bash
# The long crash test of `readback convert --remove-originals`: batches of generated DNGs are SIGKILLed at random
# moments (at least KILLS times in all, default 60) and resumed until done; after each batch every original must be
# present or have a verified output that passes audit, every item must be finished in the store, and no temp file
# may remain. The same test runs in `make test` with a handful of kills.
#
#   scripts/crash-test.sh [KILLS] [FILES_PER_BATCH] [SEED] [delete|trash]
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS="${1:-60}"
FILES="${2:-8}"
SEED="${3:-$RANDOM}"
REMOVAL="${4:-delete}"
echo "crash-test: building readback and the tests"
swift build >/dev/null
swift build --build-tests >/dev/null
echo "crash-test: at least $KILLS kills, $FILES files per batch, seed $SEED, --remove-originals $REMOVAL"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
set +e
READBACK_CRASH_KILLS="$KILLS" READBACK_CRASH_FILES="$FILES" READBACK_CRASH_SEED="$SEED" READBACK_CRASH_REMOVAL="$REMOVAL" SWIFT_BACKTRACE=enable=no \
  swift test --skip-build --filter killedBatchesWithRemovalNeverLoseAnOriginal >"$out" 2>&1
status=$?
set -e
grep -E "^crash test|✘|✔ Test run" "$out" || tail -40 "$out"
exit $status
