#!/usr/bin/env bash
# Builds the native release (build/scalelab, tests, benchmarks), the WebAssembly engine
# (build-wasm/web/engine.js for the browser, engine-<variant>.js for each lab group the lab
# manifests name, web/src/labs/*.lab.json; build-wasm/node/engine.cjs for Node) and the web course (web/dist).
# BUILD_DIR and WASM_BUILD_DIR override the two build folders.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The default release builds once, with -Werror. SCALELAB_PGO=1 builds it with GCC's
# profile-guided optimisation instead (BENCHMARKS.md, "Profile-guided optimisation"): an
# instrumented build runs every case of tests/cases and a sweep, and the release reads what it
# counted. It speeds the native evaluations with steps by about a quarter, which no reader sees
# (the course runs the WebAssembly engine), so it is opt-in.
if [[ "${SCALELAB_PGO:-0}" == 1 ]]; then
  PROFILE_BUILD_DIR="${BUILD_DIR%/}-profile"
  case "$PROFILE_BUILD_DIR" in
    /*) PROFILE_DIR="$PROFILE_BUILD_DIR/data" ;;
    *) PROFILE_DIR="$SCALELAB_ROOT/$PROFILE_BUILD_DIR/data" ;;
  esac
  log "the engine's profile -> $PROFILE_BUILD_DIR"
  cmake -S . -B "$PROFILE_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DSCALELAB_PROFILE=generate -DSCALELAB_PROFILE_DIR="$PROFILE_DIR"
  cmake --build "$PROFILE_BUILD_DIR" -j"$JOBS" --target scalelab_profile_workload
  # Taken again when the instrumented engine or the cases changed (or none was taken); its stamp
  # then rebuilds every engine object of the release (engine/CMakeLists.txt).
  WORKLOAD="$PROFILE_BUILD_DIR/scalelab_profile_workload"
  if [[ ! -d "$PROFILE_DIR" || ! -f "$PROFILE_DIR.stamp" || "$WORKLOAD" -nt "$PROFILE_DIR.stamp" ||
        -n "$(find tests/cases -newer "$PROFILE_DIR.stamp" -print -quit)" ]]; then
    rm -rf "$PROFILE_DIR"
    "$WORKLOAD" tests/cases
    touch "$PROFILE_DIR.stamp"
  else
    echo "build: the engine's profile is up to date"
  fi
  PROFILE_FLAGS=(-DSCALELAB_PROFILE=use -DSCALELAB_PROFILE_DIR="$PROFILE_DIR")
else
  PROFILE_FLAGS=(-DSCALELAB_PROFILE=)
fi

log "native release build -> $BUILD_DIR"
if [[ "$BUILD_DIR" == build ]]; then
  cmake --preset release "${PROFILE_FLAGS[@]}"
  cmake --build --preset release -j"$JOBS"
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${PROFILE_FLAGS[@]}"
  cmake --build "$BUILD_DIR" -j"$JOBS"
fi

log "WebAssembly build -> $WASM_BUILD_DIR"
emcmake cmake -S . -B "$WASM_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$WASM_BUILD_DIR" -j"$JOBS"

if [[ -f web/package.json ]]; then
  if node -e 'process.exit(require("./web/package.json").scripts?.build ? 0 : 1)'; then
    log "web course build -> web/dist"
    npm --prefix web run build
  else
    echo "build: web/package.json has no build script; skipping the web course"
  fi
fi
