#!/usr/bin/env bash
# Rebuilds the measurements of docs/render-fidelity.md (and the margins in docs/policy.md "Render checks"):
#   1. every RAW of the corpus that converts and has a usable embedded preview, rendered by Readback, `dcraw_emu -w`
#      (sRGB, its BT.709 curve) and `rawtherapee-cli` with its default profile, each compared with the preview;
#   2. the same for real phone photos re-mosaiced into DNGs (`readback corpus remosaic`), compared with the photo's
#      own thumbnail item (or its primary image when it has no usable thumbnail);
#   3. the four deliberate failures applied to every Readback output.
# Prints the Markdown tables; the raw measurements stay in WORKDIR/measurements.jsonl.
#
# Usage: scripts/render-fidelity.sh [CORPUS] [WORKDIR]      (from the repository root; ~10 min on 2 cores)
# Needs: a release build (`swift build -c release --product readback && swift build -c release --product readback-render`), libraw-bin
# (dcraw_emu) and rawtherapee (rawtherapee-cli), from Debian.
set -euo pipefail
CORPUS=${1:-../shared/corpus}
W=${2:-/tmp/readback-render-fidelity}
RB=.build/release/readback
RR=.build/release/readback-render
for t in "$RB" "$RR"; do [ -x "$t" ] || { echo "render-fidelity: build $t first (swift build -c release)" >&2; exit 2; }; done
for t in dcraw_emu rawtherapee-cli; do command -v $t >/dev/null || { echo "render-fidelity: $t is missing" >&2; exit 2; }; done
rm -rf "$W" && mkdir -p "$W/raw" "$W/remo"
OUT="$W/measurements.jsonl"
: > "$OUT"

# One source: Readback, dcraw_emu and RawTherapee against REFERENCE_ARGS; the failures on Readback's output.
measure() {  # SOURCE-FILE LABEL HEIC DIR [reference args...]
  local src=$1 label=$2 heic=$3 dir=$4; shift 4
  "$RR" compare "$src" "$heic" --label "$label|readback" "$@" >> "$OUT"
  dcraw_emu -w -T -Z - "$src" > "$dir/$label.dcraw.tif" 2>/dev/null
  "$RR" compare "$src" "$dir/$label.dcraw.tif" --space srgb709 --label "$label|dcraw_emu" "$@" >> "$OUT"
  rawtherapee-cli -o "$dir/$label.rt.tif" -d -t -Y -c "$src" > /dev/null 2>&1
  "$RR" compare "$src" "$dir/$label.rt.tif" --label "$label|rawtherapee" "$@" >> "$OUT"
  "$RR" failures "$src" "$heic" --label "$label|readback" "$@" >> "$OUT"
}

# 1. Real RAWs: those that convert and whose preview is usable (the others are listed, with why).
for f in "$CORPUS"/raw/*; do
  b=$(basename "$f")
  if ! "$RB" convert "$f" --out "$W/raw" > "$W/raw/$b.convert.txt" 2>&1; then
    echo "skipped $b: $(grep -m1 "^failed" "$W/raw/$b.convert.txt" | sed "s/^failed *//")" >&2; continue
  fi
  heic="$W/raw/${b%.*}.heic"
  if ! "$RR" compare "$f" "$heic" > /dev/null 2> "$W/raw/$b.ref.txt"; then
    echo "skipped $b: $(cat "$W/raw/$b.ref.txt")" >&2; continue
  fi
  measure "$f" "$b" "$heic" "$W/raw"
done

# 2. Re-mosaiced real phone photos (sony-a7m3 profile), against the photo's thumbnail, else its primary.
for f in exiv2_IMG_3578_iPhoneXR.heic photoprism_iphone_15_pro.heic pillowheif_xiaomi.heic \
         mei_Issue437_GalaxyS24FE.heic libheif_example.heic mei_IMG_1034_iPhone8.heic; do
  [ -f "$CORPUS/heic/$f" ] || continue
  b=${f%.*}
  "$RB" corpus remosaic "$CORPUS/heic/$f" --out "$W/remo/$b.dng" --camera sony-a7m3 > /dev/null
  "$RB" convert "$W/remo/$b.dng" --out "$W/remo" > /dev/null
  ref=(--reference "$CORPUS/heic/$f")
  "$RR" compare "$W/remo/$b.dng" "$W/remo/$b.heic" "${ref[@]}" > /dev/null 2>&1 || ref+=(--reference-primary)
  measure "$W/remo/$b.dng" "remosaic $b" "$W/remo/$b.heic" "$W/remo" "${ref[@]}"
done

"$RR" table "$OUT"
