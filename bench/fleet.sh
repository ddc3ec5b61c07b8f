#!/usr/bin/env bash
# bench/fleet.sh - fleet history in ClickHouse (Debian's clickhouse-server):
# 1. export: a shard's database holding PLAYERS (10k) players x STEPS (60)
#    history steps, made by a real scene and filled with sqlite3, shipped
#    by `ticksync-export --once`: rows/s, and bytes a row in ClickHouse
#    against the same rows in SQLite;
# 2. fleet: DAYS (7) days of FLEET_PLAYERS (10k) players at 60 s steps over
#    4 shards (about 100 M rows), made inside ClickHouse, and the time of
#    `ticksync-admin fleet --since 7d` over them (best of 3).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
. tests/clickhouse.sh
players=${PLAYERS:-10000} steps=${STEPS:-60} fleet_players=${FLEET_PLAYERS:-10000} days=${DAYS:-7}
http=$((BASE + 40)) tcp=$((BASE + 41))
clickhouse_start "$WORK/ch" "$http" "$tcp"
echo "machine: $(machine); ClickHouse $(clickhouse_query "$http" 'SELECT version()')"
trap 'kill -9 "$clickhouse_pid" 2>/dev/null; wait "$clickhouse_pid" 2>/dev/null; stop_stack; rm -rf "$WORK"' EXIT

echo "== 1. export: $players players x $steps steps from one shard's database"
start_scene
stop_stack   # the scene made the database; its history is filled below
now_step=$(( $(date +%s) / 60 * 60 ))
sqlite3 "$WORK/scene.db" "
  WITH RECURSIVE p(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM p WHERE id < $players),
                 s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < $steps)
  INSERT INTO player_latency_history (t_us, player_id, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us)
  SELECT ($now_step - k * 60) * 1000000, id, 60, abs(random()) % 100 < 3,
         20000 + id % 40000 + abs(random()) % 2000, 22000 + id % 40000 + abs(random()) % 3000,
         26000 + id % 40000 + abs(random()) % 9000, 200 + abs(random()) % 800
  FROM s, p ORDER BY 1, 2;
  VACUUM;"
rows=$(sqlite3 "$WORK/scene.db" "SELECT count(*) FROM player_latency_history")
sqlite_bytes=$(sqlite3 "$WORK/scene.db" "SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%player_latency_history%'" 2>/dev/null || echo 0)
"$BUILD/scene/ticksync-export" --once --db "$WORK/scene.db" --clickhouse "http://127.0.0.1:$http" --log-level warn
clickhouse_query "$http" "OPTIMIZE TABLE ticksync.player_latency_history FINAL"
ch=$(clickhouse_query "$http" "SELECT sum(rows), sum(bytes_on_disk) FROM system.parts
                               WHERE database = 'ticksync' AND table = 'player_latency_history' AND active FORMAT TSV")
awk -v r="$rows" -v s="$sqlite_bytes" -v ch="$ch" 'BEGIN { split(ch, c, "\t");
  printf "bytes a row: ClickHouse %.1f (%d rows, %d bytes on disk), SQLite %.1f (the table and its key)\n",
         c[2] / c[1], c[1], c[2], s / r }'

echo "== 2. fleet: $days days x $fleet_players players at 60 s steps, 4 shards"
n=$((days * 1440 * fleet_players))
t0=${EPOCHREALTIME/./}
clickhouse_query "$http" "CREATE DATABASE IF NOT EXISTS fleetbench"
clickhouse_query "$http" "CREATE TABLE fleetbench.player_latency_history AS ticksync.player_latency_history"
start=$(( ($(date +%s) - days * 86400) / 60 * 60 + 60 ))
clickhouse_query "$http" "INSERT INTO fleetbench.player_latency_history
  SELECT toUInt16(p % 4), p, ($start + intDiv(number, $fleet_players) * 60) * 1000000, 55 + rand() % 10, rand() % 100 < 3,
         20000 + p % 40000 + rand() % 2000, 22000 + p % 40000 + rand(1) % 3000, 26000 + p % 40000 + rand(2) % 9000,
         200 + rand() % 800
  FROM (SELECT number, number % $fleet_players + 1 AS p FROM system.numbers LIMIT $n)"
t1=${EPOCHREALTIME/./}
total=$(clickhouse_query "$http" "SELECT count() FROM fleetbench.player_latency_history")
parts=$(clickhouse_query "$http" "SELECT count() FROM system.parts WHERE database = 'fleetbench' AND active")
echo "$total rows made in $(( (t1 - t0) / 1000000 )) s ($parts parts)"
best=
for i in 1 2 3; do
  a=${EPOCHREALTIME/./}
  "$BUILD/tools/ticksync-admin" --clickhouse "http://127.0.0.1:$http" --clickhouse-db fleetbench --timeout-ms 600000 \
    fleet --since "${days}d" >"$WORK/fleet.txt"
  b=${EPOCHREALTIME/./}
  d=$(( (b - a) / 1000 ))
  echo "fleet --since ${days}d: $d ms ($(grep -c '^[0-9]' "$WORK/fleet.txt") lines)"
  [ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
done
echo "fleet query, best of 3: $best ms over $total rows"
head -3 "$WORK/fleet.txt"

echo "== where the time goes: each of fleet's statements with FINAL and without"
since=$(( ($(date +%s) - days * 86400) * 1000000 ))
delays="arrayMap(x -> toInt64(x / 2), quantiles(0.5, 0.9, 0.99)(rtt_p50_us))"
hours="SELECT shard, intDiv(t_us, 3600000000) AS h, uniqExact(player_id), sum(exchanges), sum(lost), $delays
       FROM fleetbench.player_latency_history FINAL WHERE t_us >= $since GROUP BY shard, h FORMAT Null"
worst="SELECT player_id, argMax(shard, t_us), count(), sum(exchanges), sum(lost), $delays AS d
       FROM fleetbench.player_latency_history FINAL WHERE t_us >= $since GROUP BY player_id
       ORDER BY d[1] DESC LIMIT 10 FORMAT Null"
for name in hours worst; do
  sql=${!name}
  a=${EPOCHREALTIME/./}; clickhouse_query "$http" "$sql"; b=${EPOCHREALTIME/./}
  clickhouse_query "$http" "${sql/ FINAL/}"; c=${EPOCHREALTIME/./}
  echo "$name: $(( (b - a) / 1000 )) ms with FINAL, $(( (c - b) / 1000 )) ms without"
done
