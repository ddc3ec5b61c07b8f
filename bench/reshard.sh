#!/usr/bin/env bash
# bench/reshard.sh - ticksync-admin reshard from 2 shards to 3: each of the
# two holds PLAYERS (50k) players with STEPS (240) history steps each, made
# by real scenes and filled with sqlite3: ids 1..PLAYERS on shard 0, the
# next on shard 1, all quiet, so every player that does not hash to its
# shard among three (two thirds of those on shard 0, a third of shard 1's)
# is released at once. Prints the players
# and history rows moved a second, and the longest release transaction,
# which is how long a shard's writer could wait on one (the scenes' admin
# logs time each release).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-50000} steps=${STEPS:-240}
echo "machine: $(machine); 2 -> 3 shards, $players players a shard, $steps history steps each"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT
start() {   # K
  "$BUILD/scene/ticksync-scene" --bind "tcp://127.0.0.1:$((BASE + 10 + $1))" --admin "127.0.0.1:$((BASE + 20 + $1))" \
    --db "$WORK/scene$1.db" --log-level info >>"$WORK/scene$1.log" 2>&1 &
  pids+=($!)
  wait_http $((BASE + 20 + $1))
}
now_step=$(( $(date +%s) / 60 * 60 ))
for k in 0 1; do
  start "$k"
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true   # the scene made the database
  first=$((k * players + 1)) last=$(((k + 1) * players))
  sqlite3 "$WORK/scene$k.db" "
    WITH RECURSIVE p(id) AS (SELECT $first UNION ALL SELECT id + 1 FROM p WHERE id < $last)
    INSERT INTO player_latency (player_id, rtt_us, srtt_us, rttvar_us, min_rtt_us, samples, invalid, lost,
                                client_rtt_us, client_offset_us, updated_at_us, lag_flag, lag_strikes, online)
    SELECT id, 20000, 20000, 1000, 19000, 1000, 0, 3, 20000, 0, ($now_step - 3600) * 1000000, 0, 0, 0 FROM p;
    WITH RECURSIVE p(id) AS (SELECT $first UNION ALL SELECT id + 1 FROM p WHERE id < $last),
                   s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < $steps)
    INSERT INTO player_latency_history (t_us, player_id, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us)
    SELECT ($now_step - 3600 - k * 60) * 1000000, id, 60, 0, 19000, 20000, 26000, 300 FROM s, p ORDER BY 1, 2;"
done
for k in 0 1 2; do start "$k"; done
rows=$(( $(sqlite3 "$WORK/scene0.db" "SELECT count(*) FROM player_latency_history") \
       + $(sqlite3 "$WORK/scene1.db" "SELECT count(*) FROM player_latency_history") ))
echo "history rows on the two shards: $rows"
urls="http://127.0.0.1:$((BASE + 20)),http://127.0.0.1:$((BASE + 21)),http://127.0.0.1:$((BASE + 22))"
t0=${EPOCHREALTIME/./}
"$BUILD/tools/ticksync-admin" --admin "$urls" --timeout-ms 60000 reshard --journal "$WORK/journal" --wait-s 0 \
  >"$WORK/reshard.out"
t1=${EPOCHREALTIME/./}
cat "$WORK/reshard.out"
moved=$(awk '/players moved to the shard/ { print $1 }' "$WORK/reshard.out")
hist=$(awk '/players moved to the shard/ { print $(NF - 2) }' "$WORK/reshard.out")
total=0
for _ in $(seq 1 100); do   # the shards' writers take the adopted history in their flushes
  total=0
  for k in 0 1 2; do total=$((total + $(sqlite3 "$WORK/scene$k.db" "SELECT count(*) FROM player_latency_history"))); done
  [ "$total" -ge "$rows" ] && break
  sleep 0.2
done
t2=${EPOCHREALTIME/./}
awk -v p="$moved" -v h="$hist" -v d=$((t1 - t0)) -v total="$total" -v rows="$rows" -v w=$((t2 - t1)) 'BEGIN {
  printf "reshard: %d players, %d history rows in %.1f s: %.0f players/s, %.0f rows/s\n", p, h, d / 1e6,
         p / (d / 1e6), h / (d / 1e6)
  printf "the three shards held %d of the %d history rows %.1f s after the command ended\n", total, rows, w / 1e6 }'
grep -h "event=players_released" "$WORK"/scene[01].log | grep -o 'took_ms=[0-9.]*' | sort -t= -k2 -n | tail -1 \
  | sed 's/^/longest release transaction: /'
