#!/usr/bin/env bash
# Every target of issue 12 measured in one run, one harness after another, on a quiet machine
# (nothing else running: each figure is wall time on a shared 2-core machine). Writes each
# harness's own output to OUT (default bench-targets-<UTC time>/, ignored by git) with the time
# and load average before it, and prints where. Run `bash scripts/build.sh` first; the load run
# needs wrk and nginx-light, Lighthouse needs `npm --prefix bench/lighthouse ci`.
#   bash bench/targets.sh [OUT]                  about 20 minutes
#   SKIP="lighthouse server" bash bench/targets.sh   leave parts out (names below)
# Parts, in order: instructions, native, wasm-node, wasm-chromium, labs, bytes, lighthouse, server.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh  # the Node the build uses, first on PATH

OUT="${1:-bench-targets-$(date -u +%Y%m%dT%H%M)}"
mkdir -p "$OUT"
SKIP=" ${SKIP:-} "

# part NAME COMMAND...: the command's output in OUT/NAME.txt, headed by the time and the load.
part() {
  local name="$1"
  shift
  [[ "$SKIP" == *" $name "* ]] && { echo "targets: $name skipped"; return 0; }
  echo "targets: $name ($(date -u +%H:%M:%S) UTC)"
  {
    echo "# $* — started $(date -u '+%Y-%m-%d %H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$@" 2>&1
    echo "# ended $(date -u '+%H:%M:%S') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  } >"$OUT/$name.txt"
}

lighthouse_all() {
  local route
  for route in $(cd web/dist && ls -d labs/*/ chapters/*/); do
    node bench/lighthouse/run.mjs "/$route" | grep '^row:' || echo "row: | /$route | no report |"
  done
}

part instructions bash bench/callgrind.sh
part native build/scalelab_bench --benchmark_filter='^(evaluate|numbers)/(decode|serving)$|^sweep/' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
part wasm-node node bench/wasm_bench.mjs --fast-path --native build/scalelab_bench --rounds 10
part wasm-chromium node bench/sweep_chromium.mjs --runs 30 --native build/scalelab_bench --rounds 10 --variant inference
part labs node web/bench/lab-latency.mjs --lab all
part bytes node web/bench/route-bytes.mjs
part lighthouse lighthouse_all
part server bash bench/server_load.sh
echo "targets: every part's output is in $OUT/"
