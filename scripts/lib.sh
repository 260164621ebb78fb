# Shared by the scripts in this folder (sourced, not run). Bash, from the repository root.
SCALELAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SCALELAB_ROOT"

BUILD_DIR="${BUILD_DIR:-build}"
WASM_BUILD_DIR="${WASM_BUILD_DIR:-build-wasm}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
# Debian's emcc needs Debian's acorn (the system node is Node 20 from the base image).
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

log() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

# The web course's build and tests, and the Node tests, find the engine builds through these.
export SCALELAB_BIN="${SCALELAB_BIN:-$BUILD_DIR/scalelab}"
export SCALELAB_WASM_DIR="${SCALELAB_WASM_DIR:-$WASM_BUILD_DIR}"
