#!/usr/bin/env bash
# bench/inside.sh - 3. time inside the server: t3 - t2 (the gate's read of a
# SYNC to its write of the SYNC_REPLY, through the scene) as clients see
# it, at 50% and 90% of the maximum exchange rate. The maximum is measured
# first with the same connections.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-10} conns=${CONNS:-400}
echo "machine: $(machine)"
start_stack
max=$(loadgen --target "127.0.0.1:$BASE" --conns "$conns" --window 4 --duration-s "$secs" --json |
      sed -n 's/.*"exchanges_per_s": *\([0-9.]*\).*/\1/p' | cut -d. -f1)
echo "maximum: $max exchanges/s ($conns conns, window 4)"
for pct in 50 90; do
  rate=$((max * pct / 100))
  echo -n "at $pct% ($rate/s): "
  loadgen --target "127.0.0.1:$BASE" --conns "$conns" --rate "$rate" --duration-s "$secs" --first-player 1000000
done
stop_stack
