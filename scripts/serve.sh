#!/usr/bin/env bash
# Sets up, builds, and serves the course and the API on http://127.0.0.1:8080.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bash scripts/setup.sh
bash scripts/build.sh
port="${PORT:-8080}"
log "serving (Ctrl-C stops)"
echo "  the course: http://127.0.0.1:$port/"
echo "  the API:    http://127.0.0.1:$port/api/v1/calculators  (POST /api/v1/eval/NAME with JSON)"
exec "$BUILD_DIR/scalelab" serve --host 127.0.0.1 --port "$port" --root web/dist
