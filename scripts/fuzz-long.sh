#!/usr/bin/env bash
# The long fuzz run (BENCHMARKS.md, "Fuzzing"): the libFuzzer target of tests/fuzz (ASan + UBSan,
# internal errors abort as failures) for FUZZ_RUNS executions (default 1,000,000) or at most
# FUZZ_SECONDS (default 900), at the lowest CPU priority, one process. CI keeps its bounded run
# in scripts/test.sh. Prints libFuzzer's final stats; exit status non-zero on any failure.
#   bash scripts/fuzz-long.sh            # FUZZ_RUNS=… FUZZ_SECONDS=… FUZZ_BUILD_DIR=… to change
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
FUZZ_RUNS="${FUZZ_RUNS:-1000000}"
FUZZ_SECONDS="${FUZZ_SECONDS:-900}"
if [[ "$FUZZ_BUILD_DIR" == build-fuzz ]]; then
  cmake --preset fuzz >/dev/null
else
  cmake -S . -B "$FUZZ_BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DSCALELAB_SANITIZE=ON -DSCALELAB_FUZZ=ON \
    -DBUILD_TESTING=OFF -DCMAKE_CXX_COMPILER=clang++ >/dev/null
fi
nice -n 19 cmake --build "$FUZZ_BUILD_DIR" -j"${JOBS:-2}" --target fuzz_evaluate fuzz_seeds
mkdir -p "$FUZZ_BUILD_DIR/fuzz-corpus-long" "$FUZZ_BUILD_DIR/fuzz-artifacts"
nice -n 19 "$FUZZ_BUILD_DIR/fuzz_evaluate" -runs="$FUZZ_RUNS" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
  -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$FUZZ_BUILD_DIR/fuzz-artifacts/" \
  "$FUZZ_BUILD_DIR/fuzz-corpus-long" "$FUZZ_BUILD_DIR/fuzz-seeds"
