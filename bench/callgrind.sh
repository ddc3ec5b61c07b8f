#!/usr/bin/env bash
# bench/callgrind.sh - 4. CPU per exchange, in instructions (repeatable, so
# record it for every change to the hot path): gate and scene each run
# under valgrind --tool=callgrind, one at a time, while the load generator
# completes N exchanges; the echo server likewise bounces 4N frames (an
# exchange is four frames through the gate). Whole-process instructions,
# start-up and shutdown included (so N is large), divided by N.
# Each run adds a row (date@commit) to bench/plots/callgrind.csv, whose
# first rows are the figures of earlier sessions, and plots the history to
# bench/plots/callgrind.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${EXCHANGES:-20000}
echo "machine: $(machine)"
ir() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'; }
per() { awk -v t="$1" -v n="$2" 'BEGIN {printf "%.0f instructions in all, %.0f per %s", t, t/n, "'"$3"'"}'; }
declare -A each
for who in gate scene; do
  out="$WORK/callgrind.$who"
  wrap="valgrind --tool=callgrind --callgrind-out-file=$out"
  if [ $who = gate ]; then GATE_WRAP=$wrap start_stack; else SCENE_WRAP=$wrap SCENE_FLAGS="--workers 1" start_stack; fi
  sleep 1
  loadgen --target "127.0.0.1:$BASE" --conns 50 --window 4 --exchanges "$n" >/dev/null
  stop_stack
  each[$who]=$(ir "$out")
  echo "$who: $(per "${each[$who]}" "$n" exchange)"
done
ECHO_WRAP="valgrind --tool=callgrind --callgrind-out-file=$WORK/callgrind.echo" start_echo
sleep 1
loadgen --target "127.0.0.1:$((BASE + 20))" --echo --conns 50 --window 4 --exchanges "$((4 * n))" >/dev/null
stop_echo
each[echo]=$(ir "$WORK/callgrind.echo")
echo "echo: $(per "${each[echo]}" "$((4 * n))" frame)"
csv=bench/plots/callgrind.csv
awk -v l="$(date -u +%F)@$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" -v g="${each[gate]}" \
    -v s="${each[scene]}" -v e="${each[echo]}" -v n="$n" 'BEGIN { printf "%s %.0f %.0f %.0f\n", l, g/n, s/n, e/(4*n) }' >>"$csv"
gnuplot <<PLOT
set terminal png size 1100,550 noenhanced
set output "bench/plots/callgrind.png"
set title "user-space instructions per exchange under callgrind (50 connections x window 4, $n exchanges)"
set ylabel "instructions per exchange"
set yrange [0:*]
set grid ytics
set style data histograms
set style fill solid 0.8 border -1
set xtics rotate by -30
set datafile missing "?"
plot "$csv" using 2:xtic(1) title "ticksync-gate", "" using 3 title "ticksync-scene (--workers 1)", \\
     "" using (\$4*4) title "ticksync-echo (4 frames)"
PLOT
echo "plot: bench/plots/callgrind.png"
