#!/usr/bin/env bash
# bench/accuracy-seeds.sh [BUILD_DIR] - the accuracy benchmark over many
# draws: runs ticksync-accuracy with --seed 1..SEEDS (default 30) and
# prints, per trace, over the draws: libticksync's p99 error (median and
# 90th percentile), the oracle's p99 (median) and the ratio libticksync /
# oracle (median and worst), the best of S0-S3 and Mirror (median p99) and
# the ratio best seed / libticksync (median and least), and libticksync's
# backwards steps summed over all draws; then, per trace, the share of
# frames its expected error covered (least, 10th percentile and median
# over the draws) and its median expected / |error| (median over the
# draws). One seeded draw can be a lucky one; this says whether a change
# helps beyond it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seeds=${SEEDS:-30}
[ -x "$build/bench/ticksync-accuracy" ] || bash deploy/build.sh "$build"
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for seed in $(seq 1 "$seeds"); do
  "$build/bench/ticksync-accuracy" --seed "$seed" ${FROM:+--from "$FROM"}
done > "$runs"
awk -F'|' '
  function pct(list, q,   i, j, v, a, m) {   # the q-quantile of a space-separated list
    m = split(list, a, " ")
    for (i = 2; i <= m; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > v + 0; j--) a[j + 1] = a[j]; a[j + 1] = v }
    return a[int((m - 1) * q) + 1]
  }
  /^### / { trace = substr($0, 5); sub(/:.*/, "", trace); best = 1e9; if (!(trace in seen)) { seen[trace] = 1; order[++ntraces] = trace } next }
  /expected error covers/ {
    c = $0; sub(/.*expected error covers /, "", c); sub(/%.*/, "", c)
    r = $0; sub(/.*median expected \/ \|error\| /, "", r); sub(/[;,].*/, "", r)
    cov[trace] = cov[trace] " " c; rat[trace] = rat[trace] " " r
    next
  }
  /^\| / && $2 !~ /algorithm|---/ {
    name = $2; gsub(/^ +| +$/, "", name); p99 = $4 + 0; back = $7 + 0
    if (name == "libticksync") {
      lp = p99; lib[trace] = lib[trace] " " p99; bst[trace] = bst[trace] " " best
      ratio[trace] = ratio[trace] " " (p99 > 0 ? best / p99 : 1e9); backs[trace] += back
    } else if (name == "oracle") {
      orc[trace] = orc[trace] " " p99; vs[trace] = vs[trace] " " (p99 > 0 ? lp / p99 : 1e9)
    } else if (name != "learning oracle" && p99 < best) best = p99
  }
  END {
    printf "%-17s %19s %10s %17s %10s %17s %9s\n", "trace", "libticksync med/p90", "oracle med", "lib/oracle med/max",
           "best seed", "seed/lib med/min", "backwards"
    for (i = 1; i <= ntraces; i++) {
      t = order[i]
      printf "%-17s %9.3f / %7.3f %10.3f %8.1f / %6.1f %10.3f %8.1f / %6.1f %9d\n", t, pct(lib[t], 0.5), pct(lib[t], 0.9),
             pct(orc[t], 0.5), pct(vs[t], 0.5), pct(vs[t], 1), pct(bst[t], 0.5), pct(ratio[t], 0.5), pct(ratio[t], 0), backs[t]
    }
    printf "\n%-17s %26s %22s\n", "trace", "expected covers min/p10/med", "expected/|error| med"
    for (i = 1; i <= ntraces; i++) {
      t = order[i]
      printf "%-17s %8.2f / %6.2f / %6.2f %22.1f\n", t, pct(cov[t], 0), pct(cov[t], 0.1), pct(cov[t], 0.5), pct(rat[t], 0.5)
    }
  }' "$runs"
