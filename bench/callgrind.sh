#!/usr/bin/env bash
# bench/callgrind.sh - 4. CPU per exchange, in instructions (repeatable, so
# record it for every change to the hot path): gate and scene each run
# under valgrind --tool=callgrind, one at a time, while the load generator
# completes N exchanges; the echo server likewise bounces 4N frames (an
# exchange is four frames through the gate). Whole-process instructions,
# start-up and shutdown included (so N is large), divided by N.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${EXCHANGES:-20000}
echo "machine: $(machine)"
ir() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'; }
per() { awk -v t="$1" -v n="$2" 'BEGIN {printf "%.0f instructions in all, %.0f per %s", t, t/n, "'"$3"'"}'; }
for who in gate scene; do
  out="$WORK/callgrind.$who"
  wrap="valgrind --tool=callgrind --callgrind-out-file=$out"
  if [ $who = gate ]; then GATE_WRAP=$wrap start_stack; else SCENE_WRAP=$wrap SCENE_FLAGS="--workers 1" start_stack; fi
  sleep 1
  loadgen --target "127.0.0.1:$BASE" --conns 50 --window 4 --exchanges "$n" >/dev/null
  stop_stack
  echo "$who: $(per "$(ir "$out")" "$n" exchange)"
done
ECHO_WRAP="valgrind --tool=callgrind --callgrind-out-file=$WORK/callgrind.echo" start_echo
sleep 1
loadgen --target "127.0.0.1:$((BASE + 20))" --echo --conns 50 --window 4 --exchanges "$((4 * n))" >/dev/null
stop_echo
echo "echo: $(per "$(ir "$WORK/callgrind.echo")" "$((4 * n))" frame)"
