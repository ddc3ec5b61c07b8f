#!/usr/bin/env bash
# bench/accuracy.sh [BUILD_DIR] - the accuracy benchmark: runs the
# deterministic simulator (bench/accuracy.c) and plots each trace's error
# over time for every algorithm into bench/plots/accuracy-TRACE.png.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench/ticksync-accuracy" ] || bash deploy/build.sh "$build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/ticksync-accuracy" --csv "$tmp"
for csv in "$tmp"/*.csv; do
  name=$(basename "$csv" .csv)
  gnuplot <<PLOT
set terminal png size 1100,600
set output "bench/plots/accuracy-$name.png"
set title "offset error over time: $name (shown - true server time)"
set xlabel "seconds"
set ylabel "error, ms"
set yrange [-25:25]
set grid
set key outside right
plot "$csv" using 1:2 with lines title "S0 unreal", \
     "$csv" using 1:3 with lines title "S1 blaster", \
     "$csv" using 1:4 with lines dashtype 2 title "S2 esframework", \
     "$csv" using 1:5 with lines title "S3 smoothed", \
     "$csv" using 1:6 with lines title "Mirror", \
     "$csv" using 1:7 with lines linewidth 2 linecolor rgb "black" title "libticksync", \\
     "$csv" using 1:8 with lines dashtype 3 linecolor rgb "gray40" title "oracle", \\
     "$csv" using 1:9 with lines dashtype 4 linecolor rgb "gray60" title "learning oracle"
PLOT
done
echo "plots: bench/plots/accuracy-*.png"
