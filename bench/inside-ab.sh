#!/usr/bin/env bash
# bench/inside-ab.sh - t3 - t2 at one fixed paced rate for settings
# alternated run by run, since this machine's speed drifts within minutes.
# Each argument is one setting: NAME=VALUE for bench/lib.sh (GATE_WRAP,
# SCENE_WRAP, SCENE_FLAGS), or "" for the default stack.
#   bash bench/inside-ab.sh "" "GATE_WRAP=nice -n -10"    (RATE=23000, ROUNDS=6, SECS=6, CONNS=400)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/inside-ab.sh SETTING [SETTING ...]" >&2; exit 2; }
for round in $(seq 1 "${ROUNDS:-6}"); do
  for setting in "$@"; do
    (
      [ -z "$setting" ] || export "${setting%%=*}=${setting#*=}"
      . bench/lib.sh
      start_stack
      echo -n "round $round, [${setting:-default}]: "
      loadgen --target "127.0.0.1:$BASE" --conns "${CONNS:-400}" --rate "${RATE:-23000}" --duration-s "${SECS:-6}" \
        --first-player 1000000 | sed 's/.*exchanges\/s; //'
      stop_stack
    )
  done
done
