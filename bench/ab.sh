#!/usr/bin/env bash
# bench/ab.sh - old against new, back to back: this machine's speed drifts
# by up to 2x within minutes, so a change is judged only against the build
# before it, run alternately. For each round and each build: the stack from
# bench/lib.sh, then short loadgen runs, by default 400 x 16, 100 x 1 and
# 400 x 4 (CONFIGS="CONNS:WINDOW ...").
#   bash bench/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR     (ROUNDS=2, SECS=5)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bench/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR" >&2; exit 2; }
for round in $(seq 1 "${ROUNDS:-2}"); do
  for build in "$1" "$2"; do
    echo "round $round, $build:"
    (
      BUILD=$build
      . bench/lib.sh
      start_stack
      for cfg in ${CONFIGS:-400:16 100:1 400:4}; do
        set -- ${cfg/:/ }
        loadgen --target "127.0.0.1:$BASE" --conns "$1" --window "$2" --duration-s "${SECS:-5}" \
          --first-player $(($1 * 100 + $2)) | tail -1
      done
      stop_stack
    )
  done
done
