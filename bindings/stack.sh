#!/usr/bin/env bash
# bindings/stack.sh BUILD_DIR COMMAND... - runs COMMAND against a real stack
# on loopback: one ticksync-scene and two ticksync-gates in front of it, one
# in open mode and one with a secret (so a client without a token is
# refused). COMMAND sees TICKSYNC_GATE and TICKSYNC_SECURE_GATE (HOST:PORT)
# and TICKSYNC_LIB (libticksync.so). Everything started is stopped on exit.
set -euo pipefail
build=$(cd "$1" && pwd); shift
source "$(dirname "$0")/../tests/ports.sh"
base=$(free_base 2000 790 10)   # 9 ports, below the e2e tests' 10000-32000 and the ephemeral range
tmp=$(mktemp -d /tmp/ts-bindings-XXXXXX)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
head -c 32 /dev/urandom | base64 > "$tmp/secret"
"$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:$((base + 3))" --admin "127.0.0.1:$((base + 4))" \
  --db "$tmp/scene.db" --log-level warn & pids+=($!)
"$build/gate/ticksync-gate" --listen "127.0.0.1:$base" --scenes "tcp://127.0.0.1:$((base + 3))" \
  --metrics "127.0.0.1:$((base + 5))" --ws-listen "127.0.0.1:$((base + 7))" --log-level warn & pids+=($!)
"$build/gate/ticksync-gate" --listen "127.0.0.1:$((base + 1))" --scenes "tcp://127.0.0.1:$((base + 3))" \
  --metrics "127.0.0.1:$((base + 6))" --ws-listen "127.0.0.1:$((base + 8))" --secret-file "$tmp/secret" \
  --log-level warn & pids+=($!)
for port in $((base + 5)) $((base + 6)); do   # both gates see the scene
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
done
export TICKSYNC_GATE="127.0.0.1:$base" TICKSYNC_SECURE_GATE="127.0.0.1:$((base + 1))"
export TICKSYNC_WS_GATE="127.0.0.1:$((base + 7))" TICKSYNC_SECURE_WS_GATE="127.0.0.1:$((base + 8))"
export TICKSYNC_ADMIN="127.0.0.1:$((base + 4))" TICKSYNC_SECRET_FILE="$tmp/secret"
export TICKSYNC_LIB="$build/lib/ticksync/libticksync.so"
"$@"
