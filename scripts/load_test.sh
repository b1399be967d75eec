#!/usr/bin/env bash
# Load test of `rigplan serve` on loopback with wrk (a Debian package; scripts/setup.sh installs
# it): `recommend` requests for DURATION seconds over CONNECTIONS keep-alive connections, first
# with the answer cache (the same request repeated, as a page reloaded or shared), then with no
# cache (every request computed). Usage: scripts/load_test.sh [DURATION] [CONNECTIONS]
# Needs the release build (`make build`).
set -euo pipefail

duration=${1:-10}
connections=${2:-8}
binary=build/release/rigplan
port=18088
query='/api/recommend?workload=resnet50&hours-per-month=100&budget=3000&region=de'

command -v wrk >/dev/null || { echo "load_test: wrk is missing; run scripts/setup.sh" >&2; exit 2; }
[ -x "$binary" ] || { echo "load_test: $binary is missing; run make build" >&2; exit 2; }

run() {  # run LABEL CACHE_ENTRIES
  "$binary" serve --port "$port" --cache "$2" 2>/dev/null &
  local pid=$!
  trap 'kill $pid 2>/dev/null' EXIT
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.1; done
  echo "== $1: wrk -t1 -c$connections -d${duration}s http://127.0.0.1:$port$query"
  wrk -t1 -c"$connections" -d"${duration}s" --latency "http://127.0.0.1:$port$query" |
    grep -E 'requests in|Requests/sec|Non-2xx|Socket errors|Latency|50%|99%'
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  trap - EXIT
}

echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
run "cached (--cache 1024)" 1024
run "uncached (--cache 0)" 0
