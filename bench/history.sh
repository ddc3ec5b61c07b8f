#!/usr/bin/env bash
# bench/history.sh - the latency history's cost at PLAYERS (100k) players:
# one scene shard under bench/storeload (RATE exchanges/s round-robin over
# the players in a scattered order, straight over ZeroMQ, for SECS seconds)
# with history steps of 86400 s (no step ends: the store's work without
# history), 60 s (the default) and 5 s (twelve times the default's rows).
# For each it prints the CPU of the store thread (ts-store) as a share of
# one core, the history rows written against the design's prediction (one
# per player per step ended; SIGTERM writes every player's current step too,
# so each run ends with one row per player more, the 86400 s one included),
# and the bytes each row adds to the database; and from them, the size of a
# day of history at the default step. Plot bench/plots/history.png:
# ts-store's CPU second by second for the three steps (data
# bench/plots/history.csv).
#
# Then the steady state an operator runs in: a database that already holds
# HOURS (2) of history at the 60 s step for every player, the scene keeping
# that many hours (so retention deletes as steps are added), the players'
# first rows written in a warm-up, and ts-store's CPU over STEADY (125) s,
# which takes in two ends of a step. STEADY=0 skips it; STEPS="" runs it
# alone.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-100000} rate=${RATE:-300000} secs=${SECS:-70}
hours=${HOURS:-2} steady=${STEADY:-125} steps=${STEPS-86400 60 5}
[ -x "$BUILD/bench/ticksync-storeload" ] || bash deploy/build.sh "$BUILD" >/dev/null
echo "machine: $(machine); $players players, $rate exchanges/s, $secs s each"
hz=$(getconf CLK_TCK)
store_ticks() {   # utime + stime of the scene's ts-store thread
  for t in /proc/"$1"/task/*; do
    [ "$(cat "$t/comm")" = ts-store ] && awk '{print $14 + $15}' "$t/stat" && return
  done
}
load() {   # SECS: storeload at the rate over every player, its summary on stdout
  "$BUILD/bench/ticksync-storeload" --scene "tcp://127.0.0.1:$((BASE + 10))" --players "$players" \
    --rate "$rate" --duration-s "$1"
}
share() {   # TICKS MICROSECONDS: ts-store's CPU as a share of one core, in %
  awk -v t="$1" -v hz="$hz" -v w="$2" 'BEGIN { printf "%.1f", 100 * t / hz / (w / 1e6) }'
}
base_bytes= base_rows=
csv=bench/plots/history.csv
[ -z "$steps" ] || echo "# step_s second store_cpu_percent" >"$csv"   # STEPS="": the steady state alone
for step in $steps; do
  start_scene --history-step-s "$step"
  t0=$(store_ticks "$SCENE_PID") w0=${EPOCHREALTIME/./}
  load "$secs" >"$WORK/load.out" &
  load_pid=$! s=0 prev=$t0
  while kill -0 "$load_pid" 2>/dev/null; do   # the store's CPU, second by second
    sleep 1
    s=$((s + 1)) now=$(store_ticks "$SCENE_PID")
    echo "$step $s $(awk -v t=$((now - prev)) -v hz="$hz" 'BEGIN { print 100 * t / hz }')" >>"$csv"
    prev=$now
  done
  wait "$load_pid"
  out=$(cat "$WORK/load.out")
  t1=$(store_ticks "$SCENE_PID") w1=${EPOCHREALTIME/./}
  printf '\n\n' >>"$csv"
  stop_stack
  # the steps that ended while exchanges ran: step starts are multiples of
  # the step on the server's clock, and a player's step ends at its first
  # exchange in a later one
  rows=$(sqlite3 "$WORK/scene.db" "select count(*) from player_latency_history")
  per_step=$(sqlite3 "$WORK/scene.db" "select group_concat(n, ' ') from
    (select count(*) as n from player_latency_history group by t_us order by t_us)")
  bytes=$(sqlite3 "$WORK/scene.db" "select page_count * page_size from pragma_page_count(), pragma_page_size()")
  cpu=$(share $((t1 - t0)) $((w1 - w0)))
  echo "$out"
  echo "step ${step} s: ts-store ${cpu} % of a core; ${rows} history rows, by step: ${per_step:-none}" \
       "(predicted: ${players} a step, the last step ended by some only); database ${bytes} bytes"
  if [ "$step" = 86400 ]; then
    base_bytes=$bytes base_rows=$rows
  elif [ -n "${base_rows:-}" ] && [ "$rows" -gt "$base_rows" ]; then
    awk -v b=$((bytes - base_bytes)) -v r=$((rows - base_rows)) -v p="$players" 'BEGIN {
      printf "  %.1f bytes per history row; a day at the 60 s step, %d players: %.1f GB\n", b / r, p, b / r * p * 1440 / 1e9 }'
  fi
done
[ -z "$steps" ] || gnuplot <<PLOT
set terminal png size 1000,500
set output "bench/plots/history.png"
set title "one scene, $players players, $rate exchanges/s: the store thread's CPU with history steps of 86400, 60 and 5 s"
set xlabel "second (the first two: the players opened)"
set ylabel "ts-store, % of a core"
set yrange [0:110]
set key bottom right
set grid
plot "$csv" index 0 using 2:3 with lines lw 2 title "step 86400 s (no step ends)", \\
     "" index 1 using 2:3 with lines lw 2 title "step 60 s (the default)", \\
     "" index 2 using 2:3 with lines lw 2 title "step 5 s"
PLOT

[ "$steady" -gt 0 ] || exit 0
# the schema is the scene's own: it makes the tables, then the history of
# HOURS is written in step order, as the scene would have written it
start_scene
stop_stack
now_step=$(( $(date +%s) / 60 * 60 ))
sqlite3 "$WORK/scene.db" <<SQL
PRAGMA journal_mode=WAL;
INSERT INTO player_latency_history (player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us)
  WITH RECURSIVE k(n) AS (SELECT $((hours * 60)) UNION ALL SELECT n - 1 FROM k WHERE n > 1),
                 p(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM p WHERE id < $players)
  SELECT id, ($now_step - 60 * n) * 1000000, 60, 0, 20000 + id % 5000, 21000 + id % 5000, 30000 + id % 5000, 500
  FROM k CROSS JOIN p;
SQL
before=$(sqlite3 "$WORK/scene.db" "select count(*) from player_latency_history")
KEEP_DB=1 start_scene --history-step-s 60 --history-hours "$hours"
load 5 >/dev/null   # the warm-up: every player's first row
t0=$(store_ticks "$SCENE_PID") w0=${EPOCHREALTIME/./}
load "$steady" >"$WORK/load.out"
t1=$(store_ticks "$SCENE_PID") w1=${EPOCHREALTIME/./}
stop_stack
after=$(sqlite3 "$WORK/scene.db" "select count(*) from player_latency_history")
cpu=$(share $((t1 - t0)) $((w1 - w0)))
cat "$WORK/load.out"
echo "steady, ${hours} h of history kept (${before} rows before, ${after} after), ${steady} s at the 60 s step:" \
     "ts-store ${cpu} % of a core"
