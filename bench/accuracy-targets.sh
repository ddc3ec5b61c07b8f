#!/usr/bin/env bash
# bench/accuracy-targets.sh [BUILD_DIR] - the estimator's targets over the
# drawn families (bench/RESULTS.md 5.T): runs `ticksync-accuracy --draws
# DRAWS --seed N --list --each [FAMILY]` for every family and seed, one
# run a core at a time, keeps each run's output in OUT (default a
# temporary folder; a finished run already there is read, not run again),
# and prints one Markdown table a family, a row a seed and a total row.
# SEEDS (default 1201..1205: seeds no rule was set on) and
# FAMILIES (default plain wide failover handovers episodes) choose what
# runs; INTERVAL_MAX passes --interval-max.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seeds=${SEEDS:-1201 1202 1203 1204 1205}
families=${FAMILIES:-plain wide failover handovers episodes}
draws=${DRAWS:-200}
[ -x "$build/bench/ticksync-accuracy" ] || bash deploy/build.sh "$build"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

export build draws out INTERVAL_MAX
run_one() {   # family seed
  local flag=""
  [ "$1" = plain ] || flag="--$1"
  grep -qs "exchanges an hour" "$out/$1-$2.txt" && return 0   # a finished run kept in OUT
  "$build/bench/ticksync-accuracy" --draws "$draws" --seed "$2" --list --each $flag \
    ${INTERVAL_MAX:+--interval-max "$INTERVAL_MAX"} > "$out/$1-$2.txt"
}
export -f run_one
for f in $families; do
  for s in $seeds; do echo "$f $s"; done
done | xargs -P "$(nproc)" -L 1 bash -c 'run_one "$0" "$1"'

for f in $families; do
  echo
  flag=""
  [ "$f" = plain ] || flag=" --$f"
  echo "$f: \`ticksync-accuracy --draws $draws --seed N --list --each$flag${INTERVAL_MAX:+ --interval-max $INTERVAL_MAX}\`"
  echo
  echo "| seed | a seed ahead, beyond the asymmetry and on the p99 | … of them, libticksync longer over 5 ms beyond it | … beyond the asymmetry of the path the newest reply took | … beyond the asymmetry, beaten or not | lib / learning oracle, steady rate: median, p90 | lib / true-rate oracle, changing rate: median, p90 | steps up to 50 ms later than 5 s | bound covers, worst draw | expected error, symmetric draws, pooled | exchanges an hour | backwards frames |"
  echo "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"
  : > "$out/$f.sums"
  for s in $seeds; do
    awk -v seed="$s" -v sums="$out/$f.sums" '
      /learning oracle, steady rate \|/   { split($0, c, "|"); steady = sprintf("%.2f, %.2f", c[4], c[5]) }
      /oracle \(true rate\), changing rate \|/ { split($0, c, "|"); changing = sprintf("%.2f, %.2f", c[4], c[5]) }
      /a seed is ahead in .* of those/   { match($0, /ahead in [0-9]+/); ahead = substr($0, RSTART + 9, RLENGTH - 9) }
      /a seed leads in .* of those/      { match($0, /leads in [0-9]+/); seen = substr($0, RSTART + 9, RLENGTH - 9) }
      /^and in [0-9]+ of all/            { split($0, w, " "); any = w[3]; total = w[6]; sub(/\./, "", total) }
      /over 5 ms beyond the asymmetry for longer/ { split($0, w, " "); longer = w[2] }
      /steps of up to 50 ms/             { match($0, /, [0-9]+ of the [0-9]+ steps/); split(substr($0, RSTART + 2, RLENGTH - 2), w, " ");
                                           late = w[1]; steps = w[4] }
      /exchanges an hour \(median\)/     { split($0, w, " "); xph = w[2]
                                           match($0, /% \(worst draw/); t = substr($0, 1, RSTART); n = split(t, z, " "); worst = z[n] }
      /frames went backwards/            { match($0, /; [0-9]+ frames went backwards/); split(substr($0, RSTART + 2), w, " "); back = w[1] }
      /^Pooled over those draws/         { match($0, /covers [0-9.]+%/); pooled = substr($0, RSTART + 7, RLENGTH - 7) }
      /expected error covers, on the 0 draws/ { nosym = 1 }
      END {
        if (nosym) pooled = "none symmetric"
        printf "| %s | %d (%.1f %%) | %d | %d (%.1f %%) | %d | %s | %s | %d of %d | %s | %s | %s | %s |\n", seed, ahead,
               100 * ahead / total, longer, seen, 100 * seen / total, any, steady, changing, late, steps, worst, pooled, xph, back
        printf "%d %d %d %d %d %d %d %d\n", ahead, any, total, late, steps, back, longer, seen >> sums
      }' "$out/$f-$s.txt"
  done
  awk '{ a += $1; b += $2; n += $3; l += $4; st += $5; bk += $6; nl += $7; se += $8 }
       END { printf "| all | **%d of %d (%.2f %%)** | %d | %d of %d (%.2f %%) | %d | | | **%d of %d (%.1f %%)** | | | | %d |\n", a, n,
                     100 * a / n, nl, se, n, 100 * se / n, b, l, st, 100 * l / st, bk }' "$out/$f.sums"
done
echo
echo "(runs kept in $out)"
