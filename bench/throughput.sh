#!/usr/bin/env bash
# bench/throughput.sh - 1. throughput: complete two-sided exchanges per
# second through gate + scene + SQLite, for a few connection counts and
# windows (exchanges in flight per connection), against the same SYNC
# frames bounced by bench/echo, the ceiling: per shape, ROUNDS (3) rounds
# of SECS (2) s each way, in the order stack-echo, echo-stack, ..., so a
# drift in the machine's speed hits both (both run throughout, the one not
# loaded idle). Prints per shape the ratio of the stack's client round
# trips (two per exchange) to the echo's frames, summed over the rounds,
# with the rounds' own range; then the best of each.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-2}
rounds=${ROUNDS:-3}
echo "machine: $(machine)"
best=0 best_cfg= echo_best=0
csv=bench/plots/throughput.csv
echo "# config exchanges_per_s echo_frames_per_s" >"$csv"
start_stack
start_echo
stack_run() {   # first player -> exchanges/s at this shape
  loadgen --target "127.0.0.1:$BASE" --conns $conns --window $window --duration-s "$secs" --warmup-s 0 \
    --first-player "$1" | rate
}
echo_run() {   # -> the echo's frames back/s at this shape
  loadgen --target "127.0.0.1:$((BASE + 20))" --echo --conns $conns --window $window --duration-s "$secs" \
    --warmup-s 0 | frames
}
echo "each shape: $rounds rounds of ${secs} s through the stack and ${secs} s against the echo, in the order SE ES SE ..."
printf '%-10s %14s %16s %6s %12s\n' shape "exchanges/s" "echo frames/s" ratio rounds
for conns in 100 400; do
  for window in 1 4 16; do
    x_sum=0 e_sum=0 each=()
    for r in $(seq 1 "$rounds"); do
      first=$((r * 1000000 + conns * 100 + window))
      if [ $((r % 2)) = 1 ]; then x=$(stack_run $first); e=$(echo_run); else e=$(echo_run); x=$(stack_run $first); fi
      x_sum=$((x_sum + ${x:-0})) e_sum=$((e_sum + ${e:-0}))
      each+=("$(awk -v x="${x:-0}" -v e="${e:-0}" 'BEGIN { printf "%.2f", e ? 2 * x / e : 0 }')")
    done
    x=$((x_sum / rounds)) e=$((e_sum / rounds))
    range=$(printf '%s\n' "${each[@]}" | sort -n | sed -n '1p;$p' | paste -sd-)
    printf '%-10s %14s %16s %6s %12s\n' "${conns} x $window" "$x" "$e" \
      "$(awk -v x="$x" -v e="$e" 'BEGIN { printf "%.2f", e ? 2 * x / e : 0 }')" "$range"
    echo "${conns}x$window $x $e" >>"$csv"
    if [ "$x" -gt "$best" ]; then best=$x best_cfg="$conns conns, window $window"; fi
    [ "$e" -gt "$echo_best" ] && echo_best=$e
  done
done
stop_echo
stop_stack
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
