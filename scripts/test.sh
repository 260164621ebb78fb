#!/usr/bin/env bash
# Sets up, builds and runs every test: ctest (release), ctest under ASan+UBSan, a bounded
# libFuzzer run, the Node tests (native vs WebAssembly), the browser tests, and the
# originality check. Prints a summary; exits non-zero if anything failed.
#   BUILD_DIR, WASM_BUILD_DIR, ASAN_BUILD_DIR, FUZZ_BUILD_DIR: build folders
#   FUZZ_RUNS (200000), FUZZ_SECONDS (60): bounds of the fuzz run (the long one: scripts/fuzz-long.sh)
# scripts/test.sh --quick: the inner loop instead — build, release ctest, the Node tests and one
# browser test file (QUICK_BROWSER_TEST, default web/tests/chapter.test.mjs); no sanitizers, no fuzzing.
set -euo pipefail

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
  esac
done
QUICK_BROWSER_TEST="${QUICK_BROWSER_TEST:-web/tests/chapter.test.mjs}"

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ASAN_BUILD_DIR="${ASAN_BUILD_DIR:-build-asan}"
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
FUZZ_RUNS="${FUZZ_RUNS:-200000}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export CTEST_OUTPUT_ON_FAILURE=1

names=() results=() times=() notes=()
failed=0
start_all=$SECONDS

# step NAME COMMAND...: runs one step, records its status and time, never stops the script.
step() {
  local name="$1"; shift
  log "$name"
  local t0=$SECONDS status=0
  local out; out="$(mktemp)"
  set +e
  ( set -e; "$@" ) 2>&1 | tee "$out"
  status=${PIPESTATUS[0]}
  set -e
  names+=("$name"); times+=($((SECONDS - t0)))
  # one line of detail for the summary: ctest's and node's own totals
  notes+=("$(grep -E '^[0-9]+% tests passed|^sanitizer tests:|^# (pass|fail|skipped) |^Done [0-9]+ runs|^originality:' "$out" \
             | sed 's/^# //' | paste -sd ' ' - | cut -c1-110 || true)")
  rm -f "$out"
  if ((status == 0)); then results+=("ok"); else results+=("FAILED ($status)"); failed=1; fi
  return 0
}

skip() {
  names+=("$1"); results+=("skipped"); times+=(0); notes+=("$2")
}

summary() {
  printf '\n\033[1m==> summary\033[0m\n'
  for i in "${!names[@]}"; do
    printf '  %-28s %-12s %5ss  %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}" "${notes[$i]}"
  done
  printf '  %-28s %-12s %5ss\n' "total" "$( ((failed)) && echo FAILED || echo ok)" $((SECONDS - start_all))
}

# The CLI tests spawn ~500 processes; under ASan that costs minutes and checks the same engine
# code the in-process tests already cover, so the sanitizer run leaves them (and the benchmarks,
# which it never runs) to the release build: it builds and runs the engine's and the server's tests.
ASAN_TESTS=(scalelab_engine_tests scalelab_server_tests)
asan_build() {
  if [[ "$ASAN_BUILD_DIR" == build-asan ]]; then
    cmake --preset asan
  else
    cmake -S . -B "$ASAN_BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DSCALELAB_SANITIZE=ON
  fi
  cmake --build "$ASAN_BUILD_DIR" -j"$JOBS" --target "${ASAN_TESTS[@]}"
}

# Each test program runs whole, split into $JOBS shards by GoogleTest itself, rather than once per
# test under ctest: a process under ASan takes about half a second to start, and ctest's 434 of
# them were most of this step's 312 s of tests (BENCHMARKS.md, "The test suite's time").
asan_tests() {
  asan_build
  local dir; dir="$(mktemp -d)"
  local bin shard pids=() status=0
  for bin in "${ASAN_TESTS[@]}"; do
    for ((shard = 0; shard < JOBS; shard++)); do
      (cd "$ASAN_BUILD_DIR/tests" && GTEST_TOTAL_SHARDS="$JOBS" GTEST_SHARD_INDEX="$shard" \
        timeout 1200 "./$bin" --gtest_brief=1 > "$dir/$bin.$shard.log" 2>&1) &
      pids+=($!)
    done
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  cat "$dir"/*.log
  local passed; passed="$(grep -hoE '^\[  PASSED  \] [0-9]+' "$dir"/*.log | awk '{s += $4} END {print s + 0}')"
  rm -rf "$dir"
  echo "sanitizer tests: $passed passed in ${#ASAN_TESTS[@]} programs, $JOBS shards each$( ((status)) && echo ', SOME FAILED')"
  return "$status"
}

fuzz() {
  if [[ "$FUZZ_BUILD_DIR" == build-fuzz ]]; then
    cmake --preset fuzz
    cmake --build --preset fuzz -j"$JOBS" --target fuzz_evaluate fuzz_seeds
  else
    cmake -S . -B "$FUZZ_BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DSCALELAB_SANITIZE=ON -DSCALELAB_FUZZ=ON \
      -DBUILD_TESTING=OFF -DCMAKE_CXX_COMPILER=clang++
    cmake --build "$FUZZ_BUILD_DIR" -j"$JOBS" --target fuzz_evaluate fuzz_seeds
  fi
  mkdir -p "$FUZZ_BUILD_DIR/fuzz-corpus" "$FUZZ_BUILD_DIR/fuzz-artifacts"
  "$FUZZ_BUILD_DIR/fuzz_evaluate" -runs="$FUZZ_RUNS" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
    -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_BUILD_DIR/fuzz-artifacts/" \
    "$FUZZ_BUILD_DIR/fuzz-corpus" "$FUZZ_BUILD_DIR/fuzz-seeds"
}

has_npm_script() {
  [[ -f web/package.json ]] && node -e "process.exit(require('./web/package.json').scripts?.['$1'] ? 0 : 1)"
}

((QUICK)) || step "setup" bash scripts/setup.sh
step "build" bash scripts/build.sh
if [[ "${results[*]}" == *FAILED* ]]; then
  summary
  echo "test: setup or build failed; nothing tested" >&2
  exit 1
fi

step "format (listed files)" bash scripts/format-check.sh
step "ctest (release)" ctest --test-dir "$BUILD_DIR" -j"$JOBS" --timeout 300
if ((QUICK)); then
  step "node (native vs wasm)" node --test --test-reporter=tap tests/node/*.test.mjs
  step "browser ($(basename "$QUICK_BROWSER_TEST"))" node --test --test-reporter=tap "$QUICK_BROWSER_TEST"
  summary
  exit "$failed"
fi
step "tests (asan+ubsan)" asan_tests
step "fuzz (libFuzzer)" fuzz
step "node (native vs wasm)" \
  node --test --test-reporter=tap tests/node/*.test.mjs
if has_npm_script check; then
  step "types (tsc in web/)" npm --prefix web run check
fi
if has_npm_script test; then
  step "browser (npm test in web/)" npm --prefix web test
else
  skip "browser (npm test in web/)" "web/package.json has no test script"
fi
if [[ -x ../shared/tools/originality ]]; then
  step "originality" ../shared/tools/originality .
else
  skip "originality" "../shared/tools/originality not present"
fi

summary
echo "  (to read the course: bash scripts/serve.sh → http://127.0.0.1:${PORT:-8080}/, the API under /api/v1/)"
exit "$failed"
