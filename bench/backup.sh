#!/usr/bin/env bash
# bench/backup.sh - an online backup of a busy shard: one scene with
# PLAYERS (100k) players under bench/storeload at RATE (100k) exchanges/s,
# its history at a STEP_S (5) s step so a few minutes hold many rows; after
# WARM (40) s of load, `ticksync-admin backup` copies the shard while the
# load goes on. Prints the copy's size and time, and the exchanges the shard
# answered a second before, during and after it (storeload's summary is
# over the whole run; the shard's own /v1/stats count, read each second,
# gives the three).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-100000} rate=${RATE:-100000} warm=${WARM:-40} step=${STEP_S:-5}
echo "machine: $(machine); $players players, $rate exchanges/s, history step $step s"
exchanges() { curl -fsS "http://127.0.0.1:$((BASE + 11))/v1/stats" | jq .exchanges; }
start_scene --history-step-s "$step"
"$BUILD/bench/ticksync-storeload" --scene "tcp://127.0.0.1:$((BASE + 10))" --players "$players" --rate "$rate" \
  --duration-s $((warm + 40)) >"$WORK/load.out" &
load=$!
sleep "$warm"
e0=$(exchanges) t0=${EPOCHREALTIME/./}
sleep 5
e1=$(exchanges) t1=${EPOCHREALTIME/./}
"$BUILD/tools/ticksync-admin" --admin "http://127.0.0.1:$((BASE + 11))" --timeout-ms 60000 backup --out "$WORK/copy.db"
e2=$(exchanges) t2=${EPOCHREALTIME/./}
sleep 5
e3=$(exchanges) t3=${EPOCHREALTIME/./}
wait "$load"
bytes=$(stat -c %s "$WORK/copy.db")
check=$(sqlite3 "$WORK/copy.db" 'PRAGMA integrity_check')
rows=$(sqlite3 "$WORK/copy.db" 'SELECT count(*) FROM player_latency')
hist=$(sqlite3 "$WORK/copy.db" 'SELECT count(*) FROM player_latency_history')
awk -v b="$bytes" -v d=$((t2 - t1)) -v r="$rows" -v h="$hist" -v c="$check" 'BEGIN {
  printf "backup: %.1f MB (%d players, %d history rows) in %.2f s, %.0f MB/s; integrity_check %s\n",
         b / 1e6, r, h, d / 1e6, b / 1e6 / (d / 1e6), c }'
awk -v a=$((e1 - e0)) -v ta=$((t1 - t0)) -v b=$((e2 - e1)) -v tb=$((t2 - t1)) -v c=$((e3 - e2)) -v tc=$((t3 - t2)) 'BEGIN {
  printf "exchanges answered/s: before %.0f, during %.0f, after %.0f\n", a / (ta / 1e6), b / (tb / 1e6), c / (tc / 1e6) }'
cat "$WORK/load.out"
