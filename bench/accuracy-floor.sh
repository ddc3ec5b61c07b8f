#!/usr/bin/env bash
# bench/accuracy-floor.sh [SEED] [BUILD_DIR] - which of the draws a seed
# beats libticksync in are within reach of a rate learner at all.
#
# Runs ticksync-accuracy --draws 200 --list at SEED (default 12345), takes
# the draws a seed's algorithm beats libticksync in without also beating
# the true-rate oracle (beyond the asymmetry floor, RESULTS 5.F), and runs
# each again with the learning oracle fitting the last W samples, for
# every W of WINDOWS. The learning oracle is told each way's least delay;
# the W kept is the one whose p99 is least, chosen with the draw's outcome
# known, which no estimator can do. Where the seed beats even that
# learner, the draw is within the floor of learning a rate from these
# samples; where the learner is ahead, libticksync has room.
#
# With CHANGING=1 it then runs every draw whose rate changes (a walk or a
# sinusoid) the same way and prints libticksync's p99 over the best-window
# learner's: the median, p90 and worst over those draws, and the window
# the learner wanted, a reachable reference for a changing rate where the
# true-rate oracle is not one (some 7 minutes a seed on one core).
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-12345}
build=${2:-build}
windows=${WINDOWS:-16 24 32 48 64 96 128 192}
bin="$build/bench/ticksync-accuracy"
[ -x "$bin" ] || bash deploy/build.sh "$build"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
"$bin" --draws 200 --seed "$seed" --list > "$list"

echo "Seed $seed: draws a seed beats libticksync in beyond the asymmetry floor, against a learning"
echo "oracle at its best window of ${windows// /, } samples (p99, ms)."
echo
echo "| draw | libticksync | best seed | true-rate oracle | learning oracle, best window | window | the seed beats it too |"
echo "|---:|---:|---:|---:|---:|---:|---|"
beyond=0 within=0
while read -r draw lib seed_p99 oracle; do
  awk -v s="$seed_p99" -v o="$oracle" 'BEGIN { exit !(s >= o) }' || continue
  best="" at=""
  for w in $windows; do
    p99=$("$bin" --draw "$draw" --seed "$seed" --learn-window "$w" |
          awk -F'|' '$2 ~ /^ learning oracle / { gsub(/ /, "", $4); print $4 }')
    if [ -z "$best" ] || awk -v a="$p99" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$p99 at=$w
    fi
  done
  beats=$(awk -v s="$seed_p99" -v b="$best" 'BEGIN { print (s < b) ? "yes" : "no" }')
  beyond=$((beyond + 1))
  [ "$beats" = yes ] && within=$((within + 1))
  echo "| $draw | $lib | $seed_p99 | $oracle | $best | $at | $beats |"
done < <(sed -nE 's/^beaten: draw ([0-9]+) .*: libticksync ([0-9.]+) ms, .* ([0-9.]+) ms, learning oracle [0-9.]+ ms, oracle ([0-9.]+) ms$/\1 \2 \3 \4/p' "$list")
echo
echo "Beyond the asymmetry floor: $beyond of 200 draws; the seed beats the best-window learner too in $within;"
echo "left for libticksync: $((beyond - within)) ($(awk -v n=$((beyond - within)) 'BEGIN { printf "%.1f", n / 2 }') %)."

[ "${CHANGING:-0}" = 1 ] || exit 0
ratios=$(mktemp)
trap 'rm -f "$list" "$ratios"' EXIT
for draw in $(seq 0 199); do
  best="" at="" lib=""
  for w in $windows; do
    out=$("$bin" --draw "$draw" --seed "$seed" --learn-window "$w")
    head -1 <<< "$out" | grep -Eq 'walking|over [0-9]+ s' || continue 2   # a steady rate
    lib=$(awk -F'|' '$2 ~ /^ libticksync / { gsub(/ /, "", $4); print $4 }' <<< "$out")
    p99=$(awk -F'|' '$2 ~ /^ learning oracle / { gsub(/ /, "", $4); print $4 }' <<< "$out")
    if [ -z "$best" ] || awk -v a="$p99" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$p99 at=$w
    fi
  done
  echo "$draw $lib $best $at" >> "$ratios"
done
echo
echo "Draws whose rate changes: libticksync's p99 over the learning oracle's at its best window."
echo
awk '{ r = $2 / ($3 > 0.001 ? $3 : 0.001); print r, $1, $4 }' "$ratios" | sort -g | awk '
  { r[NR] = $1; d[NR] = $2; w[NR] = $3; win[$3]++ }
  END {
    printf "| draws | median | p90 | worst | windows the learner wanted |\n|---:|---:|---:|---:|---|\n"
    ws = ""; for (k in win) ws = ws sprintf("%s %d, ", k, win[k]); sub(/, $/, "", ws)
    printf "| %d | %.2f | %.2f | %.2f (draw %d) | %s |\n", NR, r[int((NR + 1) / 2)], r[int(NR * 0.9 + 0.5)], r[NR], d[NR], ws
  }'
