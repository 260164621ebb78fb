#!/usr/bin/env bash
# Sets up, builds, and serves the course and the API on http://127.0.0.1:8080.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bash scripts/setup.sh
bash scripts/build.sh
log "serving on http://127.0.0.1:${PORT:-8080} (Ctrl-C stops)"
exec "$BUILD_DIR/scalelab" serve --host 127.0.0.1 --port "${PORT:-8080}" --root web/dist
