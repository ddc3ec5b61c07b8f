#!/usr/bin/env bash
# bench/serverside.sh - 5. the server side of accuracy: how far the round
# trip the server measures for each exchange is from the truth the bot
# injected, for ticksync's scene (the gate stamps t2/t3/t6 on its monotonic
# clock, the client's turnaround is taken out) and for seed S4's way
# (bench/s4scene: the scene stamps arrivals in whole milliseconds and
# averages with the last value), behind the same real gate, with the same
# bot players, idle and at half the maximum exchange rate (loadgen's
# players alongside).
#   PLAYERS (200) bot players, SECS (10) per run, CONNS (400) load connections.
# Plot: bench/plots/serverside.png, the error's percentiles for the four
# runs (data bench/plots/serverside.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-200} secs=${SECS:-10} conns=${CONNS:-400}
echo "machine: $(machine)"
start_stack
max=$(loadgen --target "127.0.0.1:$BASE" --conns "$conns" --window 4 --duration-s "$secs" --json --first-player 5000000 |
      sed -n 's/.*"exchanges_per_s": *\([0-9.]*\).*/\1/p' | cut -d. -f1)
half=$((max / 2))
csv=bench/plots/serverside.csv
echo "# run p50_us p90_us p99_us max_us" >"$csv"
echo "maximum: $max exchanges/s; half load: $half/s"
stop_stack

start_s4() {
  "$BUILD/bench/ticksync-s4scene" "tcp://127.0.0.1:$((BASE + 10))" &
  SCENE_PID=$!
  start_gate "$BASE" $((BASE + 12))
  GATE_PID=$STARTED
}

# one bot run, with load/s of loadgen exchanges alongside; prints the bot's
# server rtt error line and the rate the load generator held, and adds the
# error's percentiles to the plot's data as row LABEL
measure() {
  local load=$1 label=$2 lg=
  if [ "$load" -gt 0 ]; then
    loadgen --target "127.0.0.1:$BASE" --conns "$conns" --rate "$load" --duration-s $((secs + 4)) \
      --first-player 5000000 --json >"$WORK/lg.json" &
    lg=$!
    sleep 2
  fi
  "$BUILD/tools/ticksync-bot" --gate "127.0.0.1:$BASE" --players "$players" --duration-s "$secs" --up-ms 5-30 \
    --down-ms 5-30 --jitter uniform --jitter-ms 1 --udp=false --json --quiet >"$WORK/bot.json"
  [ -n "$lg" ] && wait "$lg"
  jq -r '.server_rtt_error_us | "p50 \(.p50 | floor) us, p90 \(.p90 | floor) us, p99 \(.p99 | floor) us, max \(.max | floor) us (\(.n) exchanges)"' "$WORK/bot.json"
  jq -r --arg run "$label" '.server_rtt_error_us | "\($run) \(.p50) \(.p90) \(.p99) \(.max)"' "$WORK/bot.json" >>"$csv"
  [ -n "$lg" ] && jq -r '"    load held: \(.exchanges_per_s | floor)/s"' "$WORK/lg.json" || true
}

for way in ticksync s4; do
  if [ $way = ticksync ]; then start_stack; else start_s4; fi
  for load in 0 "$half"; do
    echo -n "$way, load $load/s: server rtt error "
    if [ "$load" -gt 0 ]; then label="$way,half-load"; else label="$way,idle"; fi
    measure "$load" "$label"
  done
  stop_stack
done
gnuplot <<PLOT
set terminal png size 1000,500
set output "bench/plots/serverside.png"
set title "server-measured rtt: error against the bot's injected delays ($players players; half load = $half/s; $(date -u +%F))"
set ylabel "error (microseconds)"
set logscale y
set yrange [1:*]
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
plot "$csv" using 2:xtic(1) title "p50", "" using 3 title "p90", "" using 4 title "p99", "" using 5 title "max", \
     100 with lines dashtype 2 lc rgb "black" title "target: p99 <= 100 us at half load"
PLOT
echo "plot: bench/plots/serverside.png"
