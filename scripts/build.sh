#!/usr/bin/env bash
# Builds the native release (build/scalelab, tests, benchmarks), the WebAssembly engine
# (build-wasm/web/engine.js for the browser, engine-<variant>.js for the lab routes' groups in
# wasm/variants.json, build-wasm/node/engine.cjs for Node) and the web course (web/dist).
# BUILD_DIR and WASM_BUILD_DIR override the two build folders.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

log "native release build -> $BUILD_DIR"
if [[ "$BUILD_DIR" == build ]]; then
  cmake --preset release
  cmake --build --preset release -j"$JOBS"
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
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
