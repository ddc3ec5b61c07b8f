#!/usr/bin/env bash
# bench/concurrency.sh - 2. concurrency: PLAYERS (100k) players connected to
# one scene at once, through GATES gates (1), spread over loopback source
# addresses (one address has ~28k ephemeral ports). Each logs in and
# completes one exchange, then holds its connection; the RSS of every gate
# and of the scene is read while all are connected, and bytes per player
# derived. A gate needs a descriptor per connection: where the open-files
# limit is below PLAYERS, GATES > 1 splits the players over that many gate
# processes (and as many load generators), all on the one scene.
# Plot: bench/plots/concurrency.png, the RSS of the gates (summed) and the
# scene, and the sessions open, over time, read every 0.2 s while players
# connect and then for HOLD (20) seconds (data bench/plots/concurrency.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-100000} hold=${HOLD:-20} gates=${GATES:-1}
echo "machine: $(machine); open-files limit $(ulimit -Hn)"
sysctl -qw net.core.somaxconn=65535 2>/dev/null || true
start_stack
start_more_gates $((gates - 1))
gate_pids=("$GATE_PID" "${MORE_GATES[@]}")
gate_ports=("$BASE") metric_ports=($((BASE + 12)))
for k in $(seq 1 $((gates - 1))); do gate_ports+=($((BASE + 30 + k))); metric_ports+=($((BASE + 60 + k))); done
gates_rss() { local t=0; for pid in "${gate_pids[@]}"; do t=$((t + $(rss_kb "$pid"))); done; echo $t; }
gates_sessions() {
  local t=0 n
  for port in "${metric_ports[@]}"; do
    n=$(curl -fs "http://127.0.0.1:$port/metrics" | awk '/^ticksync_gate_sessions / {print $2}')
    t=$((t + ${n:-0}))
  done
  echo $t
}
gate0=$(gates_rss) scene0=$(rss_kb "$SCENE_PID")
sources=$(seq -s, -f '127.0.0.%g' 1 8)
peak_gate=0 peak_scene=0 sessions=0 last=0 t0=${EPOCHREALTIME/./}
csv=bench/plots/concurrency.csv
printf '# second sessions gates_rss_kib scene_rss_kib\n0 0 %s %s\n' "$gate0" "$scene0" >"$csv"
sample() {   # one row of the plot's data; the sessions open in $last
  local g s t
  g=$(gates_rss) s=$(rss_kb "$SCENE_PID") last=$(gates_sessions) t=$((${EPOCHREALTIME/./} - t0))
  [ "$g" -gt "$peak_gate" ] && peak_gate=$g
  [ "$s" -gt "$peak_scene" ] && peak_scene=$s
  [ "$last" -gt "$sessions" ] && sessions=$last
  printf '%d.%06d %s %s %s\n' $((t / 1000000)) $((t % 1000000)) "$last" "$g" "$s" >>"$csv"
}
# the load generators one after another, each once the one before has all
# its players in, so that connects do not overrun the listen backlogs; they
# hold until killed, so every player is in at once for HOLD seconds
lgs=()
trap 'for pid in "${lgs[@]}"; do kill "$pid" 2>/dev/null; done; stop_stack; rm -rf "$WORK"' EXIT
for k in $(seq 0 $((gates - 1))); do
  share=$((players / gates + (k < players % gates ? 1 : 0)))
  "$BUILD/bench/ticksync-loadgen" --target "127.0.0.1:${gate_ports[$k]}" --conns "$share" --hold-s 100000 --warmup-s 0 \
    --sources "$sources" \
    --first-player $((1 + k * (players / gates + 1))) >/dev/null 2>"$WORK/lg.$k.err" &
  lgs+=($!)
  want=$(((k + 1) * (players / gates) + (k + 1 < players % gates ? k + 1 : players % gates)))
  for _ in $(seq 1 600); do
    sleep 0.2
    sample
    [ "$last" -ge "$want" ] && break
    kill -0 "${lgs[$k]}" 2>/dev/null || { cat "$WORK/lg.$k.err" >&2; break; }
  done
done
for _ in $(seq 1 $((hold * 5))); do sleep 0.2; sample; done
for pid in "${lgs[@]}"; do kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
online=$(curl -fs "http://127.0.0.1:$((BASE + 11))/v1/stats" | sed -n 's/.*"players_known":\([0-9]*\).*/\1/p')
stop_stack
total=$((peak_gate + peak_scene))
echo "players: $players requested, $sessions sessions at once on $gates gate(s), $online rows in the scene's store"
echo "gate RSS (all $gates): ${gate0} KiB idle, ${peak_gate} KiB peak; scene RSS: ${scene0} KiB idle, ${peak_scene} KiB peak"
awk -v t="$total" -v g0="$gate0" -v s0="$scene0" -v g="$peak_gate" -v s="$peak_scene" -v p="$sessions" 'BEGIN {
  printf "total %.1f MiB; per player: gate %.0f B, scene %.0f B\n", t/1024, (g-g0)*1024/p, (s-s0)*1024/p }'
gnuplot <<PLOT
set terminal png size 1000,500
set output "bench/plots/concurrency.png"
set title "RSS while $players players connect and hold, $gates gate(s), one scene ($(date -u +%F))"
set xlabel "seconds"
set ylabel "RSS (MiB)"
set y2label "sessions open on the gate(s)"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set key center right
plot "$csv" using 1:(\$3/1024) with linespoints title "ticksync-gate RSS ($gates summed)", \\
     "" using 1:(\$4/1024) with linespoints title "ticksync-scene RSS", \\
     "" using 1:2 axes x1y2 with lines dashtype 2 lw 2 title "sessions (right axis)"
PLOT
echo "plot: bench/plots/concurrency.png"
