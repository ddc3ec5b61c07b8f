#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and runs the local
# stack (two scene shards, a gate, a bot of 300 simulated players with
# varied injected delays) with a live table of the worst players, until
# Ctrl-C. Options go to deploy/local-stack.sh (--duration S stops by itself).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh build -DTICKSYNC_TESTS=OFF   # running needs no test framework
exec bash deploy/local-stack.sh "$@"
