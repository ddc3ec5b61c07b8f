#!/usr/bin/env bash
# bench/soak.sh - the soak: PLAYERS (10k) connected players exchanging at
# RATE in all (half the maximum of PLAYERS connections with one exchange in
# flight each, measured first unless given) for MINUTES
# (30). Every 10 s it records the RSS and open fds of gate and scene, then
# plots them to bench/plots/soak.png and says whether they stayed flat
# (last third against the first third after warm-up, within 10%). The
# scene's RSS is also split into anonymous memory (heap, stacks) and file
# pages (the binary, libraries, SQLite's -shm), next to SQLite's own heap.
# bench/stallprobe runs alongside and marks the moments the whole machine
# stalled (bench/plots/soak-stalls.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
players=${PLAYERS:-10000} minutes=${MINUTES:-30}
echo "machine: $(machine)"
start_stack
rate=${RATE:-} max=
if [ -z "$rate" ]; then
  # the maximum of the soak's own shape: PLAYERS connections, one
  # exchange in flight each (400 x 4 reaches twice as far, and half of
  # that saturates these connections)
  max=$(loadgen --target "127.0.0.1:$BASE" --conns "$players" --window 1 --duration-s 10 --json --first-player 5000000 \
        --sources "$(seq -s, -f '127.0.0.%g' 1 4)" | sed -n 's/.*"exchanges_per_s": *\([0-9.]*\).*/\1/p' | cut -d. -f1)
  rate=$((max / 2))
fi
echo "soak: $players players, $rate exchanges/s in all (maximum ${max:-not measured}/s), $minutes minutes"
# beside it, a process that only sleeps: its late wake-ups are stalls of
# the whole machine, not of gate or scene (bench/plots/soak-stalls.txt)
stalls=bench/plots/soak-stalls.txt
"$BUILD/bench/ticksync-stallprobe" $((minutes * 60)) >"$stalls" 2>"$WORK/stalls.err" &
probe=$!
loadgen --target "127.0.0.1:$BASE" --conns "$players" --rate "$rate" --duration-s $((minutes * 60)) --warmup-s 0 \
  --sources "$(seq -s, -f '127.0.0.%g' 1 4)" >"$WORK/lg.out" &
lg=$!
csv=bench/plots/soak.csv
echo "# seconds gate_rss_kib scene_rss_kib gate_fds scene_fds scene_anon_kib scene_file_kib scene_sqlite_kib" >"$csv"
anon_kb() { awk '/^Anonymous:/ {print $2}' "/proc/$1/smaps_rollup"; }
file_kb() { awk '/^Rss:/ {r = $2} /^Anonymous:/ {a = $2} END {print r - a}' "/proc/$1/smaps_rollup"; }
sqlite_kb() { curl -fs "http://127.0.0.1:$((BASE + 11))/metrics" | awk '/^ticksync_scene_sqlite_memory_bytes / {printf "%d", $2 / 1024}'; }
t0=$SECONDS
while kill -0 $lg 2>/dev/null; do
  echo "$((SECONDS - t0)) $(rss_kb "$GATE_PID") $(rss_kb "$SCENE_PID") $(ls /proc/"$GATE_PID"/fd | wc -l) $(ls /proc/"$SCENE_PID"/fd | wc -l) $(anon_kb "$SCENE_PID") $(file_kb "$SCENE_PID") $(sqlite_kb)" >>"$csv"
  sleep 10
done
cat "$WORK/lg.out"
wait $probe || true
cat "$WORK/stalls.err"
sort -k2 -n -r "$stalls" | head -5 | awk 'NR == 1 {printf "longest machine stalls (s: ms):"} {printf " %s: %s", $1, $2} END {if (NR) print ""}'
stop_stack
gnuplot <<PLOT
set terminal png size 1100,500
set output "bench/plots/soak.png"
set title "soak: $players players at $rate exchanges/s for $minutes min"
set xlabel "seconds"
set ylabel "RSS, MiB"
set y2label "open fds"
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
plot "$csv" using 1:(\$2/1024) with lines title "gate RSS", "$csv" using 1:(\$3/1024) with lines title "scene RSS", \
     "$csv" using 1:(\$6/1024) with lines dashtype 3 title "scene heap (anon)", \
     "$csv" using 1:4 axes x1y2 with lines dashtype 2 title "gate fds", "$csv" using 1:5 axes x1y2 with lines dashtype 2 title "scene fds", \
     "$stalls" using 1:(1) with points pt 9 ps 1.5 lc rgb "red" title "machine stalls (a sleeping process woken > 50 ms late)"
PLOT
awk 'NR > 1 { n++; t[n] = $0 } END {
  a = int(n / 3); split(t[a > 0 ? a : 1], f); split(t[n], l)
  printf "after warm-up: gate RSS %d -> %d KiB, scene RSS %d -> %d KiB, fds %d/%d -> %d/%d\n", f[2], l[2], f[3], l[3], f[4], f[5], l[4], l[5]
  flat = l[2] <= f[2] * 1.1 && l[3] <= f[3] * 1.1 && l[4] <= f[4] + 5 && l[5] <= f[5] + 5
  print flat ? "flat: yes" : "flat: NO" }' "$csv"
