#!/usr/bin/env bash
# The docker-compose topology as plain processes on this host: two scene
# shards, one gate over them, and a bot of simulated players with varied
# injected delays; then a live table of the worst players (ticksync-admin
# top) until Ctrl-C, and a clean stop of everything.
#
#   deploy/local-stack.sh [--players N] [--duration S] [--no-table]
#                         [--base-port P] [--build-dir DIR] [--data DIR]
#
# Ports (base P, default 7700): gate P (TCP and UDP) and P+2 (WebSocket),
# shards P+10 and P+11, gate metrics P+1470 (9170 by default), shard admin
# APIs P+1471, P+1472, the operators' dashboard P+1480 (9180 by default),
# the browser demo P+1490 (9190 by default; when libticksync for the
# browser is built, which needs emscripten).
set -euo pipefail
cd "$(dirname "$0")/.."

players=300 duration=0 table=1 base=7700 build=build data=data/local-stack
while [ $# -gt 0 ]; do
  case "$1" in
    --players) players=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --no-table) table=0; shift ;;
    --base-port) base=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "local-stack: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ ! -x "$build/gate/ticksync-gate" ] || [ ! -x "$build/tools/ticksync-bot" ]; then
  bash deploy/build.sh "$build"
fi
bin() { echo "$build/$1"; }
gate_port=$base ws_port=$((base + 2)) metrics_port=$((base + 1470)) dashboard_port=$((base + 1480))
demo_port=$((base + 1490)) web=$build/bindings/web/pkg
scene_ports=($((base + 10)) $((base + 11))) admin_ports=($((base + 1471)) $((base + 1472)))
admin_urls="http://127.0.0.1:${admin_ports[0]},http://127.0.0.1:${admin_ports[1]}"
source "$(dirname "$0")/browser-ports.sh"
for port in "$ws_port" "$dashboard_port" "$demo_port"; do   # the ones a browser opens
  if browser_refuses "$port"; then
    echo "local-stack: --base-port $base puts a browser's port on $port, which browsers refuse (a bad port); pick another" >&2
    exit 2
  fi
done
mkdir -p "$data"
log() { printf 'local-stack: %s\n' "$*" >&2; }

pids=() names=()
start() {   # name, then the command
  local name=$1; shift
  "$@" >>"$data/$name.log" 2>&1 &
  pids+=($!) names+=("$name")
}
wait_http() {   # port path
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$1$2" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  log "nothing answers http://127.0.0.1:$1$2 (see $data/*.log)"
  return 1
}
stopping=0
stop_all() {
  [ "$stopping" = 1 ] && return
  stopping=1
  local status=0 i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do   # bot, gate, then shards: nothing is left mid-flush
    kill -TERM "${pids[$i]}" 2>/dev/null || true
    if ! wait "${pids[$i]}"; then
      log "${names[$i]} did not exit cleanly (see $data/${names[$i]}.log)"
      status=1
    fi
  done
  return $status
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

for k in 0 1; do
  start "scene$k" "$(bin scene/ticksync-scene)" --bind "tcp://127.0.0.1:${scene_ports[$k]}" \
    --admin "127.0.0.1:${admin_ports[$k]}" --db "$data/scene$k.db"
done
wait_http "${admin_ports[0]}" /healthz
wait_http "${admin_ports[1]}" /healthz
start dashboard "$(bin tools/ticksync-admin)" --admin "$admin_urls" dashboard --listen "127.0.0.1:$dashboard_port"
start gate "$(bin gate/ticksync-gate)" --listen "127.0.0.1:$gate_port" \
  --scenes "tcp://127.0.0.1:${scene_ports[0]},tcp://127.0.0.1:${scene_ports[1]}" --metrics "127.0.0.1:$metrics_port" \
  --ws-listen "127.0.0.1:$ws_port"
wait_http "$metrics_port" /healthz
demo=""
if [ -f "$web/ticksync_wasm.wasm" ]; then
  start web python3 bindings/web/serve.py "$web" "$demo_port"
  wait_http "$demo_port" /demo/index.html
  demo="http://127.0.0.1:$demo_port/demo/index.html?ws=ws://127.0.0.1:$ws_port/"
fi
start bot "$(bin tools/ticksync-bot)" --gate "127.0.0.1:$gate_port" --players "$players" --duration-s 0 \
  --up-ms 5-60 --down-ms 5-60 --jitter exponential --jitter-ms 2 --loss 0.01 --quiet
wait_http "$dashboard_port" /healthz
log "gate 127.0.0.1:$gate_port (WebSocket 127.0.0.1:$ws_port), shards $admin_urls, $players players; logs in $data/"
log "dashboard: http://127.0.0.1:$dashboard_port/"
if [ -n "$demo" ]; then
  log "browser demo: $demo"
else
  log "browser demo: not built (libticksync for the browser needs emscripten: bash deploy/install-deps.sh)"
fi

admin() { "$(bin tools/ticksync-admin)" --admin "$admin_urls" "$@"; }
started=$SECONDS
while [ "$duration" = 0 ] || [ $((SECONDS - started)) -lt "$duration" ]; do
  for i in "${!pids[@]}"; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      log "${names[$i]} stopped unexpectedly (see $data/${names[$i]}.log)"
      stop_all || true
      exit 1
    fi
  done
  if [ "$table" = 1 ]; then
    out=$( { admin top --worst -n 15; echo; admin stats; } 2>&1 || true)
    [ -t 1 ] && printf '\033[H\033[2J'
    printf 'ticksync local stack: worst players (Ctrl-C stops)   %s\n\n%s\n' "$(date +%T)" "$out"
  fi
  sleep 2
done
admin stats
stop_all
log "stopped cleanly"
