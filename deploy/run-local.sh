#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and runs the core path
# for real: the end-to-end client starts ticksync-scene and ticksync-gate on
# loopback, logs in, exchanges with an injected 30 ms round trip, and checks
# the shard's SQLite row. (The bot with simulated players and the live
# latency table replace this with the deploy issue.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh build
build/tests/test_e2e_core --verbose --jobs 1
