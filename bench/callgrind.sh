#!/usr/bin/env bash
# Instructions per engine call, counted by callgrind (independent of the machine's load): per
# numbers-only decode and serving evaluation (first cases of tests/cases) and per point of the
# 2,048-point decode sweep (as JSON text, and with its columns as doubles). Each figure is the difference of two runs (N and 1 calls) divided by
# N - 1, so start-up and the first call's catalog parsing drop out.
#   bash bench/callgrind.sh [build]      (needs valgrind and build/scalelab_instructions)
set -euo pipefail
BIN="${1:-build}/scalelab_instructions"
[ -x "$BIN" ] || { echo "no $BIN: cmake --build build --target scalelab_instructions" >&2; exit 2; }
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$@" 2>"$out" >/dev/null
  grep -o 'Collected : [0-9]*' "$out" | grep -o '[0-9]*'
  rm -f "$out"
}
per() {  # per CALLS WHAT ARGS... : instructions per extra call (per point for a sweep: / 2048)
  local calls=$1 divide=$2 what=$3
  shift 3
  local one many
  one=$(count "$what" 1 "$@")
  many=$(count "$what" "$calls" "$@")
  echo $(( (many - one) / (calls - 1) / divide ))
}
echo "numbers-only decode evaluation: $(per 201 1 decode) instructions"
echo "numbers-only serving evaluation: $(per 201 1 serving) instructions"
echo "decode evaluation with steps: $(per 21 1 decode --steps) instructions"
echo "serving evaluation with steps: $(per 21 1 serving --steps) instructions"
echo "2,048-point decode sweep, per point: $(per 3 2048 sweep) instructions"
echo "the same sweep, columns as doubles (the browser's), per point: $(per 3 2048 sweep-columns) instructions"
