#!/usr/bin/env bash
# Load test of `rigplan serve` on loopback with wrk (a Debian package; scripts/setup.sh installs
# it): `recommend` requests for DURATION seconds over CONNECTIONS keep-alive connections, first
# with the answer cache (the same request repeated, as a page reloaded or shared), then with no
# cache (every request computed), then with no cache and every request different (its budget one
# dollar more than the last one's, so that nothing keyed on the request is reused), and last with
# unique requests of large answers (every request computed and kept), reporting the server's
# resident memory before and after: the answer cache must hold it within its byte limit
# (docs/serve.md). Usage: scripts/load_test.sh [DURATION]
# [CONNECTIONS]. Needs the release build (`make build`), or RIGPLAN_BINARY=path.
set -euo pipefail

duration=${1:-10}
connections=${2:-8}
binary=${RIGPLAN_BINARY:-build/release/rigplan}
port=18088
query='/api/recommend?workload=resnet50&hours-per-month=100&budget=3000&region=de'

command -v wrk >/dev/null || { echo "load_test: wrk is missing; run scripts/setup.sh" >&2; exit 2; }
[ -x "$binary" ] || { echo "load_test: $binary is missing; run make build" >&2; exit 2; }

# Every offer (a 250 KB answer), each request with a price limit of its own, so none is cached.
unique_lua=$(mktemp --suffix=.lua)
budget_lua=$(mktemp --suffix=.lua)
cat >"$budget_lua" <<'LUA'
n = 0
request = function()
  n = n + 1
  return wrk.format(nil, string.format(
    "/api/recommend?workload=resnet50&hours-per-month=100&budget=%d&region=de", 3000 + n))
end
LUA
cat >"$unique_lua" <<'LUA'
n = 0
request = function()
  n = n + 1
  return wrk.format(nil, string.format("/api/offers?max-price=100000.%06d", n))
end
LUA

rss() { grep -E '^(VmRSS|VmHWM)' "/proc/$1/status" | tr -s ' \t' ' ' | paste -sd ','; }

run() {  # run LABEL CACHE_ENTRIES [WRK_SCRIPT PATH_SHOWN]
  "$binary" serve --port "$port" --cache "$2" 2>/dev/null &
  local pid=$!
  trap 'kill $pid 2>/dev/null; rm -f "$unique_lua" "$budget_lua"' EXIT
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.1; done
  local path=$query script=()
  if [ -n "${3:-}" ]; then path=$4; script=(-s "$3"); fi
  echo "== $1: wrk -t1 -c$connections -d${duration}s http://127.0.0.1:$port$path"
  echo "   server memory before: $(rss "$pid")"
  wrk -t1 -c"$connections" -d"${duration}s" --latency "${script[@]}" "http://127.0.0.1:$port$query" |
    grep -E 'requests in|Requests/sec|Non-2xx|Socket errors|Latency|50%|99%'
  echo "   server memory after:  $(rss "$pid")"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  trap 'rm -f "$unique_lua" "$budget_lua"' EXIT
}

echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
run "cached (--cache 1024)" 1024
run "uncached (--cache 0)" 0
run "uncached, every request different (--cache 0)" 0 "$budget_lua" \
  '/api/recommend?workload=resnet50&hours-per-month=100&budget=3001,3002,...&region=de'
run "unique large answers (--cache 1024 --cache-mb 64)" 1024 "$unique_lua" \
  '/api/offers?max-price=...(unique)'
