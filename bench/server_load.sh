#!/usr/bin/env bash
# Load run: `scalelab serve` against nginx serving the same web/dist, on loopback, with wrk.
# Bounded in time (DURATION seconds per run, 4 runs), it stops everything it started.
#   bash bench/server_load.sh            CONNECTIONS=256 DURATION=60 THREADS=2
# The page is asked for as a browser does (Accept-Encoding: gzip: both send web/dist's .gz copy).
# Prints, per target: requests/s, socket errors (connect/read/write/timeout), non-2xx answers,
# and the ratio scalelab/nginx on the same chapter page; for POST /api/v1/eval/decode: the same
# plus the server's resident memory after a warm-up and after the run.
# Needs wrk and nginx (Debian: wrk, nginx-light) and a built build/scalelab and web/dist.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-60}"
THREADS="${THREADS:-2}"
BIN="${SCALELAB_BIN:-build/scalelab}"
PAGE="${PAGE:-/chapters/07-inference/}"
NGINX_PORT="${NGINX_PORT:-18181}"
OURS_PORT="${OURS_PORT:-18182}"
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || { echo "server_load: needs $tool (apt-get install wrk nginx-light)" >&2; exit 2; }
done
[[ -x "$BIN" && -f web/dist/index.html ]] || { echo "server_load: build first (scripts/build.sh)" >&2; exit 2; }

work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# nginx: the same files, one worker per core, keep-alive, its own defaults otherwise.
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nodelay on;
  keepalive_requests 100000;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  gzip_static on;
  server { listen 127.0.0.1:$NGINX_PORT; root $PWD/web/dist; index index.html; }
}
EOF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
"$BIN" serve --host 127.0.0.1 --port "$OURS_PORT" --root web/dist >"$work/ours.log" 2>&1 &
ours=$!
pids+=($ours)
for port in "$NGINX_PORT" "$OURS_PORT"; do
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done

cat >"$work/decode.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"chip":"tpu-v5e","model":"llama3-70b","batch":64,"context":8192}'
wrk.headers["Content-Type"] = "application/json"
EOF

runs=0
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$ours/status"; }

# run NAME URL [wrk args…]: one wrk run, one line of figures; sets RPS.
run() {
  local name="$1" url="$2"; shift 2
  local out="$work/run$((++runs)).txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency "$@" "$url" >"$out" 2>&1 || true
  RPS="$(awk '/^Requests\/sec/ {print $2}' "$out")"
  local errors non2xx p99
  errors="$(grep -o 'Socket errors:.*' "$out" || echo 'Socket errors: none')"
  non2xx="$(awk '/Non-2xx or 3xx responses/ {print $5}' "$out")"
  p99="$(awk '$1 == "99%" {print $2}' "$out")"
  printf '  %-34s %10s req/s  p99 %-9s non-2xx %-6s %s\n' "$name" "${RPS:-?}" "${p99:-?}" "${non2xx:-0}" "$errors"
}

echo "server_load: $CONNECTIONS connections, $DURATION s per run, wrk -t$THREADS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# as a browser asks for a page: compressed (both send the build's precompressed .gz copy)
run "nginx $PAGE" "http://127.0.0.1:$NGINX_PORT$PAGE" -H "Accept-Encoding: gzip"; nginx_rps="$RPS"
run "scalelab $PAGE" "http://127.0.0.1:$OURS_PORT$PAGE" -H "Accept-Encoding: gzip"; ours_rps="$RPS"
# warm-up for the memory figure, then the measured API run
wrk -t"$THREADS" -c"$CONNECTIONS" -d5s -s "$work/decode.lua" "http://127.0.0.1:$OURS_PORT/api/v1/eval/decode" >/dev/null 2>&1 || true
rss_warm="$(rss_kib)"
run "scalelab POST /api/v1/eval/decode" "http://127.0.0.1:$OURS_PORT/api/v1/eval/decode" -s "$work/decode.lua"
rss_after="$(rss_kib)"
awk -v o="$ours_rps" -v n="$nginx_rps" -v w="$rss_warm" -v a="$rss_after" 'BEGIN {
  printf "  ratio scalelab/nginx on the page: %.2f\n", (n > 0 ? o / n : 0)
  printf "  scalelab RSS: %.1f MiB after warm-up, %.1f MiB after the API run (x%.2f)\n", w / 1024, a / 1024, (w > 0 ? a / w : 0)
}'
