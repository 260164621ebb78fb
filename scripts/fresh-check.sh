#!/usr/bin/env bash
# Tries the README's two commands as a new reader would, on a minimal Debian 12: builds a root
# with `debootstrap --variant=minbase bookworm` in a scratch folder, copies a clean clone of this
# repository in (with ../shared beside it, when there is one), then inside it runs the serve
# command until / answers 200 and stops it, and runs the test command to the end. Prints pass or
# fail and the time of each. Run as root on a Debian or Ubuntu host; not part of the test command.
#   bash scripts/fresh-check.sh [SCRATCH]   SCRATCH defaults to a new folder under /var/tmp
#   KEEP_ROOT=1           keep the root afterwards (it is removed otherwise)
#   SERVE_WAIT=3600       seconds to wait for the serve command's first 200
#   FRESH_PORT=18080      the port the serve command listens on inside the root
#   DEBIAN_MIRROR=URL     the mirror debootstrap reads (its default otherwise)
# Only what lets the package registries answer as they do on this host is copied in: the host's
# extra CA certificates (/usr/local/share/ca-certificates) and npm configuration (npmrc files).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch="${1:-$(mktemp -d /var/tmp/scalelab-fresh.XXXXXX)}"
root="$scratch/root"
port="${FRESH_PORT:-18080}"
serve_wait="${SERVE_WAIT:-3600}"
names=() results=() times=()
serve_pid=""

record() { names+=("$1"); results+=("$2"); times+=("$3"); }

summary() {
  printf '\n\033[1m==> fresh Debian 12 check\033[0m\n'
  for i in "${!names[@]}"; do printf '  %-34s %-8s %6ss\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"; done
}

cleanup() {
  if [[ -n "$serve_pid" ]]; then kill -- "-$serve_pid" 2>/dev/null || true; fi
  # unmount everything below the root, deepest first
  if [[ -d "$root" ]]; then
    findmnt -rn -o TARGET | grep -F "$root/" | sort -r | while read -r m; do umount -l "$m" || true; done
  fi
  if [[ "${KEEP_ROOT:-0}" != 1 && -d "$scratch" ]]; then rm -rf --one-file-system "$scratch"; fi
}
trap cleanup EXIT

need_host_tool() {
  command -v "$1" >/dev/null && return 0
  log "apt-get install $2 (on this host)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"
}

# in_root COMMAND: a shell command in the root's clone, with a stock root login's environment.
in_root() {
  local proxies=()
  for v in http_proxy https_proxy no_proxy; do [[ -n "${!v:-}" ]] && proxies+=("$v=${!v}"); done
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${proxies[@]}" \
    /bin/bash -c "cd /root/scalelab && $1"
}

need_host_tool debootstrap debootstrap
need_host_tool curl curl

log "debootstrap --variant=minbase bookworm -> $root"
t0=$SECONDS
mkdir -p "$root"
debootstrap --variant=minbase bookworm "$root" ${DEBIAN_MIRROR:+"$DEBIAN_MIRROR"} >"$scratch/debootstrap.log" 2>&1 \
  || { tail -20 "$scratch/debootstrap.log"; record "debootstrap" FAILED $((SECONDS - t0)); summary; exit 1; }
record "debootstrap (minbase bookworm)" ok $((SECONDS - t0))

log "a clean clone of $(git -C "$SCALELAB_ROOT" rev-parse --short HEAD), and what lets the registries answer"
git clone --quiet --no-hardlinks "$SCALELAB_ROOT" "$root/root/scalelab"
if [[ -d "$SCALELAB_ROOT/../shared" ]]; then cp -a "$SCALELAB_ROOT/../shared" "$root/root/shared"; fi
mkdir -p "$root/usr/local/share/ca-certificates"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
for f in /etc/npmrc /usr/etc/npmrc /root/.npmrc; do
  if [[ -f "$f" ]]; then mkdir -p "$root$(dirname "$f")"; cp -a "$f" "$root$f"; fi
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"

log "serve: bash scripts/serve.sh (PORT=$port), until / answers 200"
t0=$SECONDS
export -f in_root; export root
setsid bash -c "in_root 'PORT=$port bash scripts/serve.sh'" >"$scratch/serve.log" 2>&1 &
serve_pid=$!
status=""
while ((SECONDS - t0 < serve_wait)); do
  status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)"
  [[ "$status" == 200 ]] && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 5
done
if [[ "$status" == 200 ]]; then
  api="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/calculators" || true)"
  record "serve: / answers 200 (API $api)" ok $((SECONDS - t0))
else
  tail -30 "$scratch/serve.log"
  record "serve: / answers 200" "FAILED" $((SECONDS - t0))
fi
kill -- "-$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true
serve_pid=""
grep -E '^  the (course|API):' "$scratch/serve.log" || true

log "test: bash scripts/test.sh"
t0=$SECONDS
if in_root 'bash scripts/test.sh' 2>&1 | tee "$scratch/test.log"; then
  record "test: bash scripts/test.sh" ok $((SECONDS - t0))
else
  record "test: bash scripts/test.sh" FAILED $((SECONDS - t0))
fi
# rerunning the serve command's setup installs nothing a second time
t0=$SECONDS
if in_root 'bash scripts/setup.sh' >"$scratch/setup-again.log" 2>&1 && ! grep -q 'apt-get install\|npm ci\|npm install' "$scratch/setup-again.log"; then
  record "setup again: nothing reinstalled" ok $((SECONDS - t0))
else
  tail -10 "$scratch/setup-again.log"
  record "setup again: nothing reinstalled" FAILED $((SECONDS - t0))
fi

summary
[[ "${results[*]}" != *FAILED* ]]
