#!/usr/bin/env bash
# bench/ablate.sh FIELD=VALUE [FIELD=VALUE ...] - a rule against its absence.
#
# Every tuning number of the estimator is a field of TS_TUNING
# (lib/ticksync/tuning.h). This builds the committed tree twice, as it is
# and with the fields given set to the values given (a value that turns a
# rule off: bend_z=1e9 never halves a window, step_waits=0 never waits),
# runs ticksync-accuracy on both, and prints what the rule is worth:
#
# - at each seed of SEEDS (default 31337 9001: seeds no rule was set on),
#   over 200 draws: the geometric mean of libticksync's p99 without the
#   rule over with it, the draws better and worse by over 5 %, the draws a
#   seed is ahead in beyond the asymmetry, and the drawn steps of up to
#   50 ms that settle later than 5 s;
# - over RUNS (default 30; 0: none) runs of each named trace from 60 s
#   on: every trace whose median p99, or whose runs a seed beats
#   libticksync in, moved.
#
# WIDE=1 draws from the wider family (ticksync-accuracy --wide: paths that
# queue one way alone, disciplined clocks).
#
# TICKS=1 measures the timeline instead (the jitter's fields: jitter_q,
# jitter_q_low, spike_ratio): `ticksync-accuracy --ticks --draws 200
# --seed N --each [FAMILY]` for each family of FAMILIES (default all
# five) at each seed, and `--ticks` over the named traces. It prints
# the draws with over 1 % of their inputs late in 4 packets, and the
# early p50 (ticks) at the median and p90 draw, with -> without. Then it
# prints each named trace whose row moved. Some 10 s a family and seed.
#
# Some 4 minutes a seed and 3 for the named traces on two cores. WORK
# (default a temporary folder) keeps both builds and every output.
#   bash bench/ablate.sh clear_k=0
#   SEEDS="12345 777" bash bench/ablate.sh bend_z=1e9 turn_z=1e9
#   WIDE=1 RUNS=0 bash bench/ablate.sh uneven=1e9
#   TICKS=1 SEEDS="1309 1310" bash bench/ablate.sh spike_ratio=1e9
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/ablate.sh FIELD=VALUE [FIELD=VALUE ...]" >&2; exit 2; }
work=${WORK:-$(mktemp -d)}
seeds=${SEEDS:-31337 9001}
runs=${RUNS:-30}
wide=${WIDE:+--wide}

build_tree() {   # build_tree DIR [FIELD=VALUE ...]
  local dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir/src"
  git archive HEAD | tar -x -C "$dir/src"
  for set in "$@"; do
    local field=${set%%=*} value=${set#*=}
    sed -i "s/^    \.$field = .*,\$/    .$field = $value,/" "$dir/src/lib/ticksync/tuning.h"
    grep -q "^    \.$field = $value,\$" "$dir/src/lib/ticksync/tuning.h" \
      || { echo "ablate: no field $field in TS_TUNING" >&2; exit 2; }
  done
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTICKSYNC_TESTS=OFF > "$dir/cmake.log"
  make -C "$dir/build" ticksync-accuracy > "$dir/make.log"
}

build_tree "$work/with" &
with_pid=$!
build_tree "$work/without" "$@" &
wait "$with_pid" && wait $!

# Two at a time: the machine's two cores.
jobs_file="$work/jobs"
: > "$jobs_file"

if [ -n "${TICKS:-}" ]; then
  families=${FAMILIES:-plain wide failover handovers episodes}
  for side in with without; do
    for seed in $seeds; do
      for f in $families; do
        flag=""
        [ "$f" = plain ] || flag="--$f"
        echo "$work/$side/build/bench/ticksync-accuracy --ticks --draws 200 --seed $seed --each $flag > $work/$side/ticks-$f-$seed.txt" >> "$jobs_file"
      done
    done
    echo "$work/$side/build/bench/ticksync-accuracy --ticks > $work/$side/ticks.txt" >> "$jobs_file"
  done
  xargs -P 2 -I{} sh -c '{}' < "$jobs_file"
  # The summary row: | sent once | in 4 packets | late draws (with spikes) | early p50: median, p90, worst | ...
  summary() { tail -n 1 "$1" | awk -F'|' '{ split($5, e, ", "); sub(/^ */, "", e[1]); sub(/ \(.*/, "", $4); gsub(/ /, "", $4); print $4, e[1], e[2] }'; }
  echo "without: $*; the timeline over drawn traces (late draws of 200; early p50 at the median, p90 draw)"
  for f in $families; do
    for seed in $seeds; do
      read -r lw mw pw < <(summary "$work/with/ticks-$f-$seed.txt")
      read -r lo mo po < <(summary "$work/without/ticks-$f-$seed.txt")
      echo "  $f $seed: late $lw -> $lo; early p50 $mw -> $mo, p90 $pw -> $po"
    done
  done
  echo "named traces (--ticks), where they moved:"
  diff <(grep '^| [a-z]' "$work/with/ticks.txt") <(grep '^| [a-z]' "$work/without/ticks.txt") | sed -n 's/^[<>]/  &/p' || true
  echo "outputs in $work"
  exit 0
fi
for side in with without; do
  for seed in $seeds; do
    echo "$work/$side/build/bench/ticksync-accuracy --draws 200 --seed $seed --list --each $wide > $work/$side/draws-$seed.txt" >> "$jobs_file"
  done
  [ "$runs" -eq 0 ] || echo "$work/$side/build/bench/ticksync-accuracy --runs $runs --from 60 > $work/$side/runs.txt" >> "$jobs_file"
done
xargs -P 2 -I{} sh -c '{}' < "$jobs_file"

# A draw's p99: "draw K (...): libticksync X ms, ..."; the summary's lines.
p99s() { sed -n 's/^draw \([0-9]*\) (.*): libticksync \([0-9.]*\) ms.*/\1 \2/p' "$1"; }
ahead() { sed -n 's/.*a seed is ahead in \([0-9]*\) of those.*/\1/p' "$1"; }
late_steps() { sed -n 's/.*later than 5 s in [0-9]*, \([0-9]*\) of the \([0-9]*\) steps.*/\1 of \2/p' "$1"; }
# A named trace's row of --runs: "trace|median p99|runs a seed beats libticksync in".
runs_rows() { awk -F'|' 'NF > 10 && $2 !~ /trace|---/ { gsub(/ /, "", $2); print $2 "|" $3 "|" $8 }' "$1" | sort; }

echo "without: $*${wide:+ (the wider family)}"
for seed in $seeds; do
  with=$work/with/draws-$seed.txt without=$work/without/draws-$seed.txt
  join <(p99s "$with" | sort) <(p99s "$without" | sort) | awk -v seed="$seed" '
    { a = $2 < 0.001 ? 0.001 : $2; b = $3 < 0.001 ? 0.001 : $3
      logs += log(b / a); n++; better += b < 0.95 * a; worse += b > 1.05 * a }
    END { printf "seed %s, %d draws: p99 without / with, geometric mean %.3f; better by over 5%% in %d, worse in %d\n",
                 seed, n, exp(logs / n), better, worse }'
  echo "  a seed ahead beyond the asymmetry: $(ahead "$with") with, $(ahead "$without") without;" \
       "steps of up to 50 ms later than 5 s: $(late_steps "$with") with, $(late_steps "$without") without"
done
[ "$runs" -eq 0 ] && { echo "outputs in $work"; exit 0; }
echo "named traces, $runs runs (median p99 ms; runs a seed beats libticksync in), where they moved:"
join -t '|' <(runs_rows "$work/with/runs.txt") <(runs_rows "$work/without/runs.txt") |
  awk -F'|' '$2 != $4 || $3 != $5 { gsub(/ /, ""); printf "  %s: %s -> %s (%s -> %s)\n", $1, $2, $4, $3, $5; moved++ }
             END { if (!moved) print "  none" }'
echo "outputs in $work"
