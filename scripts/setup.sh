#!/usr/bin/env bash
# Installs everything scalelab needs on Debian 12 (run as root). Idempotent: apt runs only
# when a package is missing; `npm ci` in web/ runs only when its lockfile changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PACKAGES=(
  # native build: engine, CLI, server, tests, benchmarks
  cmake g++ make pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  # the server: Boost.Beast on Asio (header-only)
  libboost1.81-dev
  # the server tests' HTTP client, and what its pkg-config file links (OpenSSL, zlib, brotli)
  libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev
  # WebAssembly build (emcc 3.1.6, clang 14, binaryen; needs Debian's node-acorn)
  emscripten
  # libFuzzer target: clang++ and its runtime
  clang libclang-rt-14-dev
  # browser tests (Playwright drives Debian's Chromium), precompression of the built site
  chromium brotli ca-certificates
  # the originality check
  python3
  # scripts/format-check.sh on C++ (.clang-format)
  clang-format-14
  # `scalelab probe` times Debian's OpenBLAS sgemm beside its own matmul (found at run time)
  libopenblas0-pthread
  # text in the browser tests' pages and screenshots
  fonts-dejavu-core fontconfig
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
# Debian's node and npm only where there are none (setup_node below brings a newer Node where
# the system's is too old for the web build; npm stays the system's).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} Debian packages present"
fi

# The web course's lockfile says which Node it needs; use the system's where it is new enough,
# else install SCALELAB_NODE_VERSION from the npm registry into NODE_TOOLS_DIR (lib.sh puts it
# first on PATH). Prints which Node the build and tests will use, and why.
setup_node() {
  local lock=web/package-lock.json
  [[ -f "$lock" ]] || return 0
  if node scripts/node-engines.mjs "$lock"; then
    echo "setup: using $(command -v node) ($(node --version))"
    return 0
  fi
  log "npm install node@$SCALELAB_NODE_VERSION -> ${NODE_TOOLS_DIR#"$SCALELAB_ROOT"/}"
  mkdir -p "$NODE_TOOLS_DIR"
  npm install --prefix "$NODE_TOOLS_DIR" --no-save --no-audit --no-fund --no-package-lock \
    "node@$SCALELAB_NODE_VERSION"
  export PATH="$NODE_TOOLS_DIR/node_modules/.bin:$PATH"
  node scripts/node-engines.mjs "$lock" || { echo "setup: the installed Node is still too old" >&2; return 1; }
  echo "setup: using $(command -v node) ($(node --version)); the system's is older than $lock needs"
}
setup_node

# The formatter and linter of scripts/format-check.sh (not the web course's dependencies: its
# lockfile stays as it is). Without the registry the check skips them and says so.
if [[ ! -x "$FORMAT_TOOLS_DIR/node_modules/.bin/prettier" || ! -x "$FORMAT_TOOLS_DIR/node_modules/.bin/eslint" ]]; then
  log "npm install ${FORMAT_TOOLS[*]} -> ${FORMAT_TOOLS_DIR#"$SCALELAB_ROOT"/}"
  mkdir -p "$FORMAT_TOOLS_DIR"
  npm install --prefix "$FORMAT_TOOLS_DIR" --no-save --no-audit --no-fund --no-package-lock "${FORMAT_TOOLS[@]}" ||
    echo "setup: could not install ${FORMAT_TOOLS[*]}; scripts/format-check.sh will skip them"
fi

# The web course's dependencies (web/ is owned by the web course; we only install them).
if [[ -f web/package-lock.json ]]; then
  stamp="web/node_modules/.scalelab-ci-stamp"
  sum="$(sha256sum web/package-lock.json | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    echo "setup: web/node_modules is up to date with web/package-lock.json"
  elif [[ -d web/node_modules ]] && npm --prefix web ls --all >/dev/null 2>&1; then
    # installed by hand (npm install): complete and consistent, so leave it be
    echo "setup: web/node_modules already satisfies web/package.json"
    echo "$sum" > "$stamp"
  else
    log "npm ci (web/)"
    npm --prefix web ci --no-audit --no-fund
    echo "$sum" > "$stamp"
  fi
fi
