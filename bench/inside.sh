#!/usr/bin/env bash
# bench/inside.sh - 3. time inside the server: t3 - t2 (the kernel's
# arrival of a SYNC at the gate to the gate's write of its SYNC_REPLY) as
# clients see it, at 50% and 90% of the maximum exchange rate.
#
# Two maxima are measured first with the same connections, and each is the
# base of its own pair of paced runs:
#   window 1 - every connection has one exchange in flight, as real clients
#              do and as the paced runs do: the most this traffic's shape
#              reaches (each message its own read and write at both ends);
#   window 4 - four in flight per connection: the section 1 figure, whose
#              batching the paced shape cannot use.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-10} conns=${CONNS:-400}
echo "machine: $(machine)"
start_stack
for window in 1 4; do
  max=$(loadgen --target "127.0.0.1:$BASE" --conns "$conns" --window "$window" --duration-s "$secs" --json |
        sed -n 's/.*"exchanges_per_s": *\([0-9.]*\).*/\1/p' | cut -d. -f1)
  echo "maximum: $max exchanges/s ($conns conns, window $window)"
  for pct in 50 90; do
    rate=$((max * pct / 100))
    echo -n "  at $pct% ($rate/s): "
    loadgen --target "127.0.0.1:$BASE" --conns "$conns" --rate "$rate" --duration-s "$secs" --first-player 1000000
  done
done
stop_stack
