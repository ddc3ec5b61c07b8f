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
# Plot: bench/plots/inside.png, t3 - t2 by percentile for the four paced
# runs (data bench/plots/inside-wWINDOW-PCT.dat).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-10} conns=${CONNS:-400}
echo "machine: $(machine)"
declare -A labels
start_stack
for window in 1 4; do
  max=$(loadgen --target "127.0.0.1:$BASE" --conns "$conns" --window "$window" --duration-s "$secs" --json |
        sed -n 's/.*"exchanges_per_s": *\([0-9.]*\).*/\1/p' | cut -d. -f1)
  echo "maximum: $max exchanges/s ($conns conns, window $window)"
  for pct in 50 90; do
    rate=$((max * pct / 100))
    echo -n "  at $pct% ($rate/s): "
    loadgen --target "127.0.0.1:$BASE" --conns "$conns" --rate "$rate" --duration-s "$secs" --first-player 1000000 \
      --percentiles "bench/plots/inside-w$window-$pct.dat"
    labels["w$window-$pct"]="window-$window maximum, $pct% (asked $rate/s)"
  done
done
stop_stack
gnuplot <<PLOT
set terminal png size 1000,550
set output "bench/plots/inside.png"
set title "time inside the server (t3 - t2) by percentile, paced load on loopback ($(date -u +%F))"
set xlabel "percentile"
set ylabel "t3 - t2 (microseconds)"
set logscale xy
set xtics ("50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000)
set grid xtics ytics
set key bottom right
plot 250 title "target: p99 <= 250 us at 50%" dashtype 2 lc rgb "black", \
     "bench/plots/inside-w1-50.dat" using 2:3 with linespoints lw 2 title "${labels[w1-50]}", \
     "bench/plots/inside-w1-90.dat" using 2:3 with linespoints lw 2 title "${labels[w1-90]}", \
     "bench/plots/inside-w4-50.dat" using 2:3 with linespoints title "${labels[w4-50]}", \
     "bench/plots/inside-w4-90.dat" using 2:3 with linespoints title "${labels[w4-90]}"
PLOT
echo "plot: bench/plots/inside.png"
