# Shared by the scripts in this folder (sourced, not run). Bash, from the repository root.
SCALELAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SCALELAB_ROOT"

BUILD_DIR="${BUILD_DIR:-build}"
WASM_BUILD_DIR="${WASM_BUILD_DIR:-build-wasm}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
# Debian's emcc runs /usr/bin/node (its own config) and needs Debian's acorn from here.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

# The Node the web build needs (web/package-lock.json's engines.node ranges). Where the system's
# is missing or older, setup.sh installs this version from the npm registry into NODE_TOOLS_DIR
# (git-ignored); every script then finds it first on PATH.
SCALELAB_NODE_VERSION="22.23.3"
NODE_TOOLS_DIR="$SCALELAB_ROOT/.tools/node"
if [[ -x "$NODE_TOOLS_DIR/node_modules/.bin/node" ]]; then
  export PATH="$NODE_TOOLS_DIR/node_modules/.bin:$PATH"
fi

# Prettier and ESLint for scripts/format-check.sh, pinned (setup.sh installs them here; git-ignored).
FORMAT_TOOLS_DIR="$SCALELAB_ROOT/.tools/format"
FORMAT_TOOLS=(prettier@3.10.2 eslint@10.16.0)

log() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

# The web course's build and tests, and the Node tests, find the engine builds through these.
export SCALELAB_BIN="${SCALELAB_BIN:-$BUILD_DIR/scalelab}"
export SCALELAB_WASM_DIR="${SCALELAB_WASM_DIR:-$WASM_BUILD_DIR}"
