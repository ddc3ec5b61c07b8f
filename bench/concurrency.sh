#!/usr/bin/env bash
# bench/concurrency.sh - 2. concurrency: PLAYERS (100k) players connected to
# one gate and one scene at once, spread over loopback source addresses
# (one address has ~28k ephemeral ports). Each logs in and completes one
# exchange, then holds its connection; the RSS of gate and scene is read
# while all are connected, and bytes per player derived.
# Plot: bench/plots/concurrency.png, each process's RSS and the sessions
# open over time, read five times a second (data bench/plots/concurrency.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-100000} hold=${HOLD:-20}
echo "machine: $(machine)"
sysctl -qw net.core.somaxconn=65535 2>/dev/null || true
start_stack
gate0=$(rss_kb "$GATE_PID") scene0=$(rss_kb "$SCENE_PID")
sources=$(seq -s, -f '127.0.0.%g' 1 8)
loadgen --target "127.0.0.1:$BASE" --conns "$players" --hold-s "$hold" --warmup-s 0 --sources "$sources" >"$WORK/lg.out" &
lg=$!
peak_gate=0 peak_scene=0 sessions=0
csv=bench/plots/concurrency.csv
printf '# second sessions gate_rss_kib scene_rss_kib\n0 0 %s %s\n' "$gate0" "$scene0" >"$csv"
for tick in $(seq 1 $(((hold + 120) * 5))); do
  sleep 0.2
  kill -0 $lg 2>/dev/null || break
  g=$(rss_kb "$GATE_PID") s=$(rss_kb "$SCENE_PID")
  [ "$g" -gt "$peak_gate" ] && peak_gate=$g
  [ "$s" -gt "$peak_scene" ] && peak_scene=$s
  n=$(curl -fs "http://127.0.0.1:$((BASE + 12))/metrics" | awk '/^ticksync_gate_sessions / {print $2}')
  [ "${n:-0}" -gt "$sessions" ] && sessions=$n
  echo "$((tick / 5)).$((tick % 5 * 2)) ${n:-0} $g $s" >>"$csv"
done
wait $lg || true
online=$(curl -fs "http://127.0.0.1:$((BASE + 11))/v1/stats" | sed -n 's/.*"players_known":\([0-9]*\).*/\1/p')
stop_stack
total=$((peak_gate + peak_scene))
echo "players: $players requested, $sessions sessions at once on the gate, $online rows in the scene's store"
echo "gate RSS: ${gate0} KiB idle, ${peak_gate} KiB peak; scene RSS: ${scene0} KiB idle, ${peak_scene} KiB peak"
awk -v t="$total" -v g0="$gate0" -v s0="$scene0" -v g="$peak_gate" -v s="$peak_scene" -v p="$sessions" 'BEGIN {
  printf "total %.1f MiB; per player: gate %.0f B, scene %.0f B\n", t/1024, (g-g0)*1024/p, (s-s0)*1024/p }'
gnuplot <<PLOT
set terminal png size 1000,500
set output "bench/plots/concurrency.png"
set title "RSS while players connect and hold ($players requested; $(date -u +%F))"
set xlabel "seconds"
set ylabel "RSS (MiB)"
set y2label "sessions open on the gate"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set key center right
plot "$csv" using 1:(\$3/1024) with linespoints title "ticksync-gate RSS", \\
     "" using 1:(\$4/1024) with linespoints title "ticksync-scene RSS", \\
     "" using 1:2 axes x1y2 with lines dashtype 2 lw 2 title "sessions (right axis)"
PLOT
echo "plot: bench/plots/concurrency.png"
