#!/usr/bin/env bash
# bench/throughput.sh - 1. throughput: complete two-sided exchanges per
# second through gate + scene + SQLite, for a few connection counts and
# windows (exchanges in flight per connection); then the same SYNC frames
# bounced by bench/echo, the ceiling. Prints the best of each and the ratio
# of the gate's client round trips (two per exchange) to the echo's.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-8}
echo "machine: $(machine)"
best=0 best_cfg=
csv=bench/plots/throughput.csv
echo "# config exchanges_per_s echo_frames_per_s" >"$csv"
declare -A rates
start_stack
for conns in 100 400; do
  for window in 1 4 16; do
    out=$(loadgen --target "127.0.0.1:$BASE" --conns $conns --window $window --duration-s "$secs" --first-player $((conns * 100 + window)))
    echo "$out"
    rate=$(echo "$out" | sed -n 's/.* \([0-9]*\) exchanges\/s.*/\1/p')
    rates["${conns}x$window"]=${rate:-0}
    if [ "${rate:-0}" -gt "$best" ]; then best=$rate best_cfg="$conns conns, window $window"; fi
  done
done
stop_stack
echo_best=0
start_echo
for conns in 100 400; do
  for window in 1 4 16; do
    out=$(loadgen --target "127.0.0.1:$((BASE + 20))" --echo --conns $conns --window $window --duration-s "$secs")
    echo "$out"
    rate=$(echo "$out" | sed -n 's/.*: \([0-9]*\) frames back per second/\1/p')
    echo "${conns}x$window ${rates["${conns}x$window"]} ${rate:-0}" >>"$csv"
    [ "${rate:-0}" -gt "$echo_best" ] && echo_best=$rate
  done
done
stop_echo
gnuplot <<PLOT
set terminal png size 1000,500
set output "bench/plots/throughput.png"
set title "throughput on loopback: ticksync exchanges/s (gate + scene + SQLite) and the echo's frames back/s"
set xlabel "connections x window"
set ylabel "per second"
set logscale y
set grid ytics
set style data histograms
set style fill solid 0.8 border -1
plot "$csv" using 2:xtic(1) title "ticksync exchanges/s", "" using 3 title "echo frames back/s"
PLOT
awk -v b="$best" -v e="$echo_best" -v c="$best_cfg" 'BEGIN {
  printf "best: %d exchanges/s (%s) = %d client round trips/s; echo %d frames back/s; ratio %.2f\n", b, c, 2*b, e, 2*b/e }'
