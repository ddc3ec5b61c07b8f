#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and runs the core path
# for real: a scene shard and a gate on loopback, the end-to-end client
# exchanging with them, then the latency table from the shard's SQLite file.
# (The simulated-player bot and the live table arrive with their issues.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh build
work=$(mktemp -d)
trap 'kill $gate $scene 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
build/scene/ticksync-scene --bind tcp://127.0.0.1:7710 --db "$work/scene.db" --admin 127.0.0.1:9171 &
scene=$!
build/gate/ticksync-gate --listen 127.0.0.1:7700 --scenes tcp://127.0.0.1:7710 &
gate=$!
sleep 0.5
echo "== stack up: gate 127.0.0.1:7700 -> scene tcp://127.0.0.1:7710 ($work/scene.db)"
build/tests/test_e2e_core --filter 'e2e_core/injected*' --jobs 1
echo "== the end-to-end client ran its own stack; this one serves until the script ends"
kill -TERM $gate $scene; wait $gate $scene || true
sqlite3 -header -column "$work/scene.db" "SELECT player_id, srtt_us, rttvar_us, min_rtt_us, samples, invalid, lost FROM player_latency ORDER BY srtt_us DESC LIMIT 10"
