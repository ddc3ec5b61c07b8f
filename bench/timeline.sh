#!/usr/bin/env bash
# bench/timeline.sh [BUILD_DIR] - libticksync's timeline under every trace of
# bench/accuracy: a 60 Hz client against a server ticking at 60 Hz (the
# share of inputs in time, how early, the convergence of a client 200 ms
# behind, the time scale's range, render time going back), and a plot of
# the server-step trace: the client's simulation and its input tick against
# the server's tick, at the start and around the +50 ms step at 200 s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench/ticksync-accuracy" ] || bash deploy/build.sh "$build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/ticksync-accuracy" --ticks --csv "$tmp"
gnuplot <<PLOT
set terminal png size 1100,750
set output "bench/plots/timeline-server-step.png"
set multiplot layout 2,1 title "server-step trace: ticks ahead of the server's tick (60 Hz)"
set xlabel "seconds"
set ylabel "ticks ahead of the server"
set grid
set key outside right
set title "a client 200 ms behind converging"
plot [0:15] "$tmp/server-step.csv" using 1:(\$2-\$3) with lines linewidth 2 title "client simulation", \
     "" using 1:(\$4-\$3) with steps title "input tick"
set title "the server's time steps +50 ms at 200 s"
plot [190:215] "$tmp/server-step.csv" using 1:(\$2-\$3) with lines linewidth 2 title "client simulation", \
     "" using 1:(\$4-\$3) with steps title "input tick"
unset multiplot
PLOT
echo "plot: bench/plots/timeline-server-step.png"
